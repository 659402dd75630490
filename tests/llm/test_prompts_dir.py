"""A prompts folder overrides the packaged templates of every app, by package and name.

A team exports the packaged templates, edits the ones it wants, and points
``COLMEIA_PROMPTS_DIR`` (or ``use_prompts_dir`` / ``--prompts``) at the folder; a folder that
would break a run is refused before anything is sent, with one line naming the file.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from colmeia.errors import ConfigurationError
from colmeia.llm.prompts import (
    PROMPTS_ENV,
    PromptsDir,
    active_prompts,
    export_prompts,
    packaged_templates,
    prompts_dir,
    render_prompt,
)

RAG = "colmeia.rag"
AGENTS = "colmeia.agents"


def test_every_package_with_templates_is_found_under_its_short_name() -> None:
    found = packaged_templates()
    assert {"moderation", "assistant", "literature", "agents", "rag", "llm"} <= set(found)
    assert found["moderation"][0] == "colmeia.apps.moderation"
    assert (found["agents"][1] / "react_native.j2").is_file()


def test_export_writes_every_packaged_template_and_refuses_to_overwrite(tmp_path: Path) -> None:
    files = export_prompts(tmp_path / "p")
    packaged = [f for _, folder in packaged_templates().values() for f in folder.glob("*.j2")]
    assert len(files) == len(packaged) >= 30
    decider = tmp_path / "p" / "moderation" / "decider.j2"
    assert decider in files
    assert (
        decider.read_bytes() == (packaged_templates()["moderation"][1] / "decider.j2").read_bytes()
    )
    decider.write_text("edited", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="already exists"):
        export_prompts(tmp_path / "p")
    assert decider.read_text(encoding="utf-8") == "edited"  # a team's edit survives
    # An unchanged export is a valid folder that overrides nothing: every copy is the packaged
    # text, so a run with it is a run with the packaged prompts.
    fresh = PromptsDir.load(export_prompts(tmp_path / "q")[0].parents[1])
    assert fresh.overrides == ()
    assert len(fresh.unchanged) == len(packaged)
    assert fresh.sha256 == hashlib.sha256().hexdigest()  # the hash of no override
    edited = PromptsDir.load(tmp_path / "p")
    assert edited.overrides == ("moderation/decider.j2",)
    assert len(edited.unchanged) == len(packaged) - 1


def _folder(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "prompts"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_an_overriding_template_is_used_and_the_packaged_one_everywhere_else(
    tmp_path: Path,
) -> None:
    packaged = render_prompt(AGENTS, "react_limit.j2", **_variables(AGENTS, "react_limit.j2"))
    root = _folder(
        tmp_path,
        {"rag/answer.j2": "RESPONDA EM PORTUGUÊS.\n{{ passages | length }} trechos"},
    )
    with prompts_dir(root) as chosen:
        assert chosen is not None and chosen.overrides == ("rag/answer.j2",)
        assert active_prompts() == chosen
        text = render_prompt(RAG, "answer.j2", passages=[1, 2])
        assert text == "RESPONDA EM PORTUGUÊS.\n2 trechos"
        # Another package's template of the same kind is untouched.
        assert render_prompt(AGENTS, "react_limit.j2", **_variables(AGENTS, "react_limit.j2")) == (
            packaged
        )
    assert active_prompts() is None  # the block ended: packaged templates again
    assert "RESPONDA" not in render_prompt(RAG, "answer.j2", passages=[])


def _variables(package: str, name: str) -> dict[str, Any]:
    """A value for every variable the packaged template reads (what a test can render with)."""
    import jinja2

    from colmeia.llm.prompts import template_variables

    folder = next(f for p, f in packaged_templates().values() if p == package)
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(folder)))

    class Anything(str):
        def __getattr__(self, _: str) -> Anything:
            return Anything("x")

    return {v: Anything("x") for v in template_variables(env, name)}


def test_the_folder_hash_covers_names_and_bytes(tmp_path: Path) -> None:
    root = _folder(tmp_path, {"moderation/decider.j2": "{{ question }}"})
    first = PromptsDir.load(root)
    expected = hashlib.sha256(b"moderation/decider.j2\0{{ question }}\0").hexdigest()
    assert first.sha256 == expected
    (root / "moderation" / "decider.j2").write_text("{{ question }} ", encoding="utf-8")
    assert PromptsDir.load(root).sha256 != first.sha256
    assert first.describe() == {
        "dir": str(root.resolve()),
        "sha256": expected,
        "overrides": ["moderation/decider.j2"],
    }
    assert "original" in first.dropped["moderation/decider.j2"]  # what the edit left out


@pytest.mark.parametrize(
    ("files", "bad", "message"),
    [
        ({"shop/decider.j2": "x"}, "shop/decider.j2", "no package 'shop' has prompts"),
        ({"moderation/judge.j2": "x"}, "moderation/judge.j2", "moderation has no template"),
        ({"decider.j2": "x"}, "decider.j2", "put it in moderation/"),
        ({"rag/answer.txt.bak": "x"}, "rag/answer.txt.bak", "not a template"),
        (
            {"moderation/decider.j2": "{{ question }} {{ store_name }}"},
            "moderation/decider.j2",
            "uses variable\\(s\\) store_name unknown to this template",
        ),
        (
            {"moderation/semantic.j2": "ok\n{% if part %}\n{{ question }"},
            "moderation/semantic.j2:3",
            "template syntax error",
        ),
        (
            {"moderation/decider.j2": '{% import "_nothing.j2" as m %}'},
            "moderation/decider.j2",
            "imports '_nothing.j2', which does not exist",
        ),
    ],
)
def test_a_folder_that_would_break_a_run_is_one_line_naming_the_file(
    tmp_path: Path, files: dict[str, str], bad: str, message: str
) -> None:
    root = _folder(tmp_path, files)
    with pytest.raises(ConfigurationError, match=message) as err:
        PromptsDir.load(root)
    assert str(root / bad) in str(err.value)
    assert "\n" not in str(err.value)


def test_an_overriding_macro_file_reaches_the_templates_that_import_it(tmp_path: Path) -> None:
    root = _folder(
        tmp_path,
        {
            "moderation/_macros.j2": (
                "{% macro context_block(context, rules) %}CONTEXTO DA LOJA{% endmacro %}"
                "{% macro policy_block(policy, violations) %}{% endmacro %}"
            )
        },
    )
    with prompts_dir(root):
        text = render_prompt(
            "colmeia.apps.moderation",
            "contextual.j2",
            part="user",
            question="Serve?",
            answer="Sim.",
            context={"title": "Mouse"},
            rules=[],
            category="",
            intent="",
        )
    assert text.startswith("CONTEXTO DA LOJA")


def test_the_environment_variable_chooses_the_folder_and_is_validated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _folder(tmp_path, {"rag/rerank.j2": "{{ passage }}"})
    monkeypatch.setenv(PROMPTS_ENV, str(root))
    chosen = active_prompts()
    assert chosen is not None and chosen.overrides == ("rag/rerank.j2",)
    with prompts_dir(None):  # explicit: packaged only, whatever the variable says
        assert active_prompts() is None
    monkeypatch.setenv(PROMPTS_ENV, str(tmp_path / "missing"))
    with pytest.raises(ConfigurationError, match=f"{PROMPTS_ENV} .*missing: not a folder"):
        active_prompts()


def test_prompts_export_and_check_from_the_command_line(tmp_path: Path, colmeia_cli: Any) -> None:
    code, out, _ = colmeia_cli("prompts", "export", str(tmp_path / "p"))
    assert code == 0 and "templates of 6 packages" in " ".join(out.split())
    code, _, err = colmeia_cli("prompts", "export", str(tmp_path / "p"))
    assert code == 2 and "already exists" in err
    (tmp_path / "p" / "rag" / "answer.j2").write_text("{{ nope }}", encoding="utf-8")
    code, _, err = colmeia_cli("prompts", "check", str(tmp_path / "p"))
    assert code == 2
    assert err.startswith(f"configuration error: {tmp_path / 'p' / 'rag' / 'answer.j2'}: uses")
    assert "Traceback" not in err
    # One real edit: it is the one override; the unedited copies are said to be copies.
    (tmp_path / "p" / "rag" / "answer.j2").write_text("{{ passages | length }}", encoding="utf-8")
    code, out, err = colmeia_cli("prompts", "check", str(tmp_path / "p"))
    assert code == 0, err
    flat = " ".join(out.split())
    assert "1 template(s) override the packaged ones rag/answer.j2" in flat
    assert "unedited copy(ies) of packaged templates (not overrides" in flat
