"""What a new user meets in the first hour: bad settings, bad arguments, typos, help, deletes.

Every case drives the real ``colmeia`` command (in-process, or as a process where the exit code
and the absence of a traceback are the point).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer._click import Context
from typer.core import TyperGroup, TyperOption

from colmeia.cli import _LAZY, app
from colmeia.cli.plumbing import report_unexpected
from shared_data import DATA_DIR

BAD_LLM_VALUES = [
    ("COLMEIA_LLM_PROVIDER", "foo", "Input should be 'openai', 'azure'"),
    ("COLMEIA_LLM_MAX_RETRIES", "abc", "valid integer"),
    ("COLMEIA_LLM_DEADLINE", "-5", "greater than 0"),
    ("COLMEIA_LLM_MAX_CONCURRENCY", "0", "greater than or equal to 1"),
]


def _laws(tmp_path: Path) -> Path:
    folder = tmp_path / "laws"
    folder.mkdir(exist_ok=True)
    shutil.copy(DATA_DIR / "laws" / "lexml" / "lei_8078_19900911.csv", folder)
    return folder


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
    env["COLMEIA_HOME"] = str(tmp_path / "home")
    env.update(extra)
    return env


# -- settings ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("var", "value", "expected"), BAD_LLM_VALUES)
def test_a_bad_model_setting_is_one_line_naming_the_variable(
    var: str, value: str, expected: str, tmp_path: Path
) -> None:
    # A real process: the point is the exit code and that no traceback reaches the user.
    proc = subprocess.run(
        [sys.executable, "-m", "colmeia", "llm", "check"],
        env=_env(tmp_path, **{var: value, "COLMEIA_LLM_BASE_URL": "http://127.0.0.1:9/v1"}),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"configuration error: {var}={value!r}: ")
    assert expected in lines[0]
    assert proc.stdout == ""


def test_commands_that_need_no_model_ignore_bad_model_settings(
    colmeia_cli, tmp_path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    for var, value, _ in BAD_LLM_VALUES:
        monkeypatch.setenv(var, value)
    code, _, err = colmeia_cli("ingest", str(_laws(tmp_path)), "-c", "leis")
    assert code == 0, err
    code, out, err = colmeia_cli("search", "publicidade enganosa", "-c", "leis", "--json")
    assert code == 0, err
    assert json.loads(out)["hits"]
    assert colmeia_cli("collections")[0] == 0
    # … while the commands that do need the model refuse, naming the setting.
    monkeypatch.setenv("COLMEIA_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    code, _, err = colmeia_cli("ask", "O que é publicidade enganosa?", "-c", "leis")
    assert code == 2
    assert "COLMEIA_LLM_PROVIDER='foo'" in err


@pytest.mark.parametrize(
    "args",
    [
        ["agent", "run", "Quanto é 2+2?", "--tools", "calculator"],
        ["moderate", "run", "items.json", "--out", "results.jsonl"],
    ],
)
@pytest.mark.parametrize(("var", "value", "expected"), BAD_LLM_VALUES)
def test_every_command_that_needs_the_model_names_the_bad_setting(
    colmeia_cli, monkeypatch, tmp_path: Path, args: list[str], var: str, value: str, expected: str
) -> None:  # type: ignore[no-untyped-def]
    shutil.copy(DATA_DIR / "moderation" / "sample_items.json", tmp_path / "items.json")
    monkeypatch.setenv("COLMEIA_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("COLMEIA_LLM_MODEL", "sim")
    monkeypatch.setenv(var, value)
    code, out, err = colmeia_cli(*args)
    assert code == 2
    assert f"{var}={value!r}: " in err and expected in err
    assert "moderating" not in out + err  # no progress bar was drawn first
    assert not (tmp_path / "results.jsonl").exists()


def test_sections_are_read_when_used_and_can_be_given(monkeypatch: pytest.MonkeyPatch) -> None:
    from colmeia.config import LLMSettings, Settings, get_settings
    from colmeia.errors import ConfigurationError

    monkeypatch.setenv("COLMEIA_LLM_MAX_RETRIES", "abc")
    settings = get_settings()  # nothing about the model is read yet
    assert settings.store_url().endswith("colmeia.db")
    with pytest.raises(ConfigurationError, match="COLMEIA_LLM_MAX_RETRIES='abc'"):
        _ = settings.llm
    given = Settings(llm=LLMSettings(base_url="http://127.0.0.1:1/v1", max_retries=2))
    assert given.llm.max_retries == 2  # used as given, the environment is not consulted


def test_a_bad_embeddings_setting_stops_search_which_uses_it(
    colmeia_cli, tmp_path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    colmeia_cli("ingest", str(_laws(tmp_path)), "-c", "leis")
    monkeypatch.setenv("COLMEIA_EMBEDDINGS_BATCH_SIZE", "zero")
    code, _out, err = colmeia_cli("search", "publicidade", "-c", "leis")
    assert code == 2
    assert err.strip() == (
        "configuration error: COLMEIA_EMBEDDINGS_BATCH_SIZE='zero': Input should be a valid "
        "integer, unable to parse string as an integer (fix the environment variable or the "
        ".env file)"
    )


# -- arguments -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["search", "lei", "-k", "0"],
        ["search", "lei", "-k", "-3"],
        ["search", "lei", "--per-document", "0"],
        ["ask", "lei?", "--top", "0"],
        ["eval", "retrieval", "-c", "x", "--queries", "q.csv", "--qrels", "r.csv", "-k", "0"],
        ["sim", "serve", "--port", "80000"],
        ["sim", "serve", "--port", "-1"],
        ["sim", "serve", "--fault-500", "1.5"],
        ["sim", "serve", "--capacity", "0"],
        ["sim", "serve", "--latency-ms", "-10"],
    ],
)
def test_out_of_range_arguments_are_refused_before_anything_runs(
    colmeia_cli, args: list[str]
) -> None:  # type: ignore[no-untyped-def]
    code, out, err = colmeia_cli(*args)
    assert code == 2
    assert "Invalid value for" in err
    assert "Traceback" not in out + err


def test_sim_serve_refuses_a_non_loopback_host(colmeia_cli) -> None:  # type: ignore[no-untyped-def]
    code, _, err = colmeia_cli("sim", "serve", "--host", "0.0.0.0")
    assert code == 2
    assert "only listens on loopback addresses" in err


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (["search", "x", "--k", "3"], "did you mean -k?"),
        (["search", "x", "--colection", "leis"], "did you mean --collection?"),
        (["search", "x", "--top-k", "3"], "did you mean --top?"),
        (["ingest", "x", "-c", "y", "--per-document", "2"], "is an option of `colmeia search`"),
        (["serch", "x"], "did you mean 'search'?"),
        (["sim", "srve"], "did you mean 'serve'?"),
        (["--verbos", "search"], "did you mean --verbose?"),
    ],
)
def test_typos_get_suggestions_that_help(colmeia_cli, args: list[str], hint: str) -> None:  # type: ignore[no-untyped-def]
    code, _, err = colmeia_cli(*args)
    assert code == 2
    assert hint in err
    # click's own guess for --per-document on ingest was --type-column: no unrelated guesses.
    assert "Possible options" not in err


def _leaf_commands() -> list[tuple[str, object]]:
    root = app_command()
    ctx = Context(root, info_name="colmeia")
    out: list[tuple[str, object]] = []

    def walk(group: TyperGroup, path: str) -> None:
        for name in group.list_commands(ctx):
            sub = group.get_command(ctx, name)
            if isinstance(sub, TyperGroup):
                walk(sub, f"{path} {name}")
            elif sub is not None:
                out.append((f"{path} {name}", sub))

    walk(root, "colmeia")
    return out


def app_command() -> TyperGroup:
    import typer

    command = typer.main.get_command(app)
    assert isinstance(command, TyperGroup)
    return command


def test_every_command_is_registered() -> None:
    names = {path.split()[1] for path, _ in _leaf_commands()}
    assert set(_LAZY) <= names


def test_help_has_full_option_names_no_type_placeholders_and_no_completion_flags(
    colmeia_cli,
) -> None:  # type: ignore[no-untyped-def]
    for path, _ in _leaf_commands():
        code, out, err = colmeia_cli(*path.split()[1:], "--help", env={"COLUMNS": "80"})
        assert code == 0, (path, err)
        assert not re.search(r"<(bool|str|int|float|path|list\[[^]]*\])>", out), (path, out)
        assert "--install-completion" not in out and "--show-completion" not in out, path
        assert "…" not in out.split("Options:")[-1].split("  ")[0], path
        for line in out.splitlines():
            # an option row starts with its names; a short name never stands alone
            m = re.match(r"^  (-\w)(?:\s|$)", line)
            assert m is None, (path, line)


def test_dash_c_means_collection_everywhere() -> None:
    for path, command in _leaf_commands():
        for param in command.params:  # type: ignore[attr-defined]
            if isinstance(param, TyperOption) and "-c" in param.opts:
                assert param.name == "collection", (path, param.name)


# -- stores are only created by commands that write ---------------------------------------------


def test_read_only_commands_create_nothing(colmeia_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    home = tmp_path / "home"
    (tmp_path / "q.csv").write_text("ID,TEXT\n1,lei\n", encoding="utf-8")
    (tmp_path / "r.csv").write_text("QUERY_ID,DOC_ID,SCORE\n1,a,1\n", encoding="utf-8")
    before = sorted(p.name for p in tmp_path.iterdir())
    for args in (
        ["search", "lei", "-c", "leis"],
        ["search", "lei"],
        ["ask", "O que é lei?", "-c", "leis"],
        ["eval", "retrieval", "-c", "leis", "--queries", "q.csv", "--qrels", "r.csv"],
        ["delete", "--collection", "leis", "--yes"],
    ):
        code, out, err = colmeia_cli(*args)
        assert code == 2, (args, out, err)
        assert f"there is no store at {home / 'colmeia.db'}" in err
        assert "colmeia ingest PATH --collection NAME" in err
    code, out, err = colmeia_cli("collections")
    assert code == 0
    assert "no collections yet" in err
    assert colmeia_cli("collections", "--json")[1].strip() == "[]"
    assert not home.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_searching_an_unknown_collection_does_not_create_it(colmeia_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    colmeia_cli("ingest", str(_laws(tmp_path)), "-c", "leis")
    code, _, err = colmeia_cli("search", "lei", "-c", "leiss")
    assert code == 2
    assert "no collection named 'leiss'" in err
    code, _, _ = colmeia_cli("eval", "retrieval", "-c", "nada", "--queries", "q", "--qrels", "r")
    _, out, _ = colmeia_cli("collections", "--json")
    assert [c["name"] for c in json.loads(out)] == ["leis"]


def test_deleting_a_collection_asks_first(colmeia_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    colmeia_cli("ingest", str(_laws(tmp_path)), "-c", "leis")

    def names() -> list[str]:
        return [c["name"] for c in json.loads(colmeia_cli("collections", "--json")[1])]

    code, out, err = colmeia_cli("delete", "--collection", "leis")  # no answer: kept
    assert code == 1
    assert "Delete collection 'leis' with" in err
    assert "kept" in err
    code, _, err = colmeia_cli("delete", "--collection", "leis", input="n\n")
    assert code == 1 and names() == ["leis"]
    code, out, _ = colmeia_cli("delete", "--collection", "leis", input="y\n")
    assert code == 0 and "collection leis deleted" in out
    assert names() == []
    colmeia_cli("ingest", str(_laws(tmp_path)), "-c", "leis")
    code, out, _ = colmeia_cli("delete", "-c", "leis", "--yes")
    assert code == 0 and names() == []


def test_eval_warns_when_no_judged_document_is_in_the_collection(
    colmeia_cli, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    colmeia_cli("ingest", str(_laws(tmp_path)), "-c", "leis")
    code, out, err = colmeia_cli(
        "eval",
        "retrieval",
        "-c",
        "leis",
        "--queries",
        str(DATA_DIR / "juristcu" / "queries.csv"),
        "--qrels",
        str(DATA_DIR / "juristcu" / "qrels.csv"),
        "--json",
    )
    assert code == 0
    assert json.loads(out)["ndcg@10"] == 0
    assert "warning: none of the" in err
    assert "relevant document ids" in err and "is in collection 'leis'" in err


# -- verbosity and failures ------------------------------------------------------------------------


def test_verbose_shows_colmeia_not_faiss_probing_cpu_features(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "colmeia", "-v", "ingest", str(_laws(tmp_path)), "-c", "leis"],
        env=_env(tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "INFO colmeia.rag.ingest.csv_records" in proc.stderr  # colmeia's own details …
    assert "vetoed or revoked dispositivos not indexed" in proc.stderr
    assert "faiss" not in proc.stderr  # … not which CPU build faiss managed to load
    assert "AVX" not in proc.stderr


def test_an_unexpected_failure_is_one_line_and_the_traceback_needs_v(capsys) -> None:  # type: ignore[no-untyped-def]
    exit_ = report_unexpected(ValueError("boom\nsecond line"), verbose=False)
    err = capsys.readouterr().err
    assert exit_.exit_code == 1
    assert err == (
        "unexpected error: ValueError: boom second line "
        "(run with -v for the traceback; please report it)\n"
    )
    try:
        int("boom")
    except ValueError as exc:
        report_unexpected(exc, verbose=True)
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):")
    assert err.endswith(
        "unexpected error: ValueError: invalid literal for int() with base 10: 'boom'\n"
    )
