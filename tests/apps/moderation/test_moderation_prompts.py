"""What each agent is told: the design's criteria, one audit language, and prompts that agree
with the schemas they ask for."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from colmeia.apps.moderation.graph import Moderator
from colmeia.apps.moderation.records import ModerationItem
from colmeia.apps.moderation.schemas import MAX_SUGGESTIONS, Suggestions
from colmeia.llm.openai_compat import OpenAIChatModel
from colmeia.llm.prompts import render_prompt
from colmeia.sim.engine import SimulatedModel
from shared_data import DATA_DIR

PKG = "colmeia.apps.moderation"


def system(role: str, audit_language: str = "English") -> str:
    return " ".join(
        render_prompt(
            PKG,
            f"{role}.j2",
            part="system",
            audit_language=audit_language,
            max_suggestions=MAX_SUGGESTIONS,
        ).split()
    )


def test_the_semantic_reviewer_checks_spelling_and_vagueness_for_the_category_and_intent() -> None:
    prompt = system("semantic")
    assert "spelling" in prompt and "vague" in prompt
    user = render_prompt(
        PKG,
        "semantic.j2",
        part="user",
        question="Serve no Gol?",
        answer="Sim.",
        locale="pt",
        category="Acessórios para Veículos",
        intent="Compatibilidade",
    )
    assert "CATEGORY: Acessórios para Veículos" in user and "INTENT: Compatibilidade" in user


def test_the_contextual_reviewer_checks_omitted_critical_context() -> None:
    assert "leave out a critical fact of the context" in system("contextual")


def test_the_suggester_prompt_and_schema_agree_on_the_number_of_suggestions() -> None:
    assert f"at most {MAX_SUGGESTIONS} concrete" in system("suggester")
    assert Suggestions.model_json_schema()["properties"]["suggestions"]["maxItems"] == (
        MAX_SUGGESTIONS
    )


def test_the_decider_accepts_another_product_the_context_links() -> None:
    prompt = system("decider")
    assert "only when the context links it to this one" in prompt
    assert "then it is no reason to reject" in prompt


@pytest.mark.parametrize("role", ["semantic", "contextual", "suggester", "rewriter", "decider"])
def test_every_justification_is_asked_for_in_the_audit_language(role: str) -> None:
    prompt = system(role, "Brazilian Portuguese")
    assert "in Brazilian Portuguese" in prompt
    assert "question's language" not in prompt  # justifications no longer follow the item


async def test_the_audit_language_reaches_every_agent(sim_server: Any) -> None:
    sim = SimulatedModel(schema_mode=True, seed=2)
    srv = sim_server(sim)
    raw = json.loads((DATA_DIR / "moderation" / "sample_items.json").read_text("utf-8"))[0]
    async with OpenAIChatModel(base_url=srv.base_url, model="sim") as model:
        await Moderator(model, audit_language="pt-BR").moderate(ModerationItem.model_validate(raw))
    systems = [str(r.messages[0]["content"]) for r in sim.requests]
    assert len(systems) >= 2 and all("Brazilian Portuguese" in s for s in systems)


# -- a team's own prompts -----------------------------------------------------------------------


def test_an_overriding_template_is_used_and_its_hash_recorded(
    tmp_path: Path, colmeia_cli: Any, sim_server: Any
) -> None:
    from colmeia.apps.moderation.manifest import read_manifest
    from colmeia.llm.prompts import PromptsDir, export_prompts

    export_prompts(tmp_path / "exported")
    folder = tmp_path / "ours" / "moderation"
    folder.mkdir(parents=True)
    packaged = (tmp_path / "exported" / "moderation" / "semantic.j2").read_text("utf-8")
    ours = packaged.replace(
        "Semantic reviewer of a store's answer", "REVISOR DA LOJA CENTRO. Semantic reviewer"
    )
    (folder / "semantic.j2").write_text(ours, encoding="utf-8")
    sim = SimulatedModel(schema_mode=True, seed=3)
    srv = sim_server(sim)
    items = tmp_path / "items.json"
    items.write_text(json.dumps(_sample()[:3]), encoding="utf-8")
    out = tmp_path / "results.jsonl"
    code, _, err = colmeia_cli(
        "moderate", "run", str(items), "--out", str(out), "--prompts", str(tmp_path / "ours"),
        env={"COLMEIA_LLM_BASE_URL": srv.base_url, "COLMEIA_LLM_MODEL": "sim"},
    )  # fmt: skip
    assert code == 0, err
    assert "prompts: " in err and "overrides moderation/semantic.j2" in err
    systems = [str(r.messages[0]["content"]) for r in sim.requests]
    semantic = [s for s in systems if "Semantic reviewer" in s]
    assert semantic and all(s.startswith("REVISOR DA LOJA CENTRO.") for s in semantic)
    assert not any("REVISOR" in s for s in systems if s not in semantic)  # the others: packaged
    manifest = read_manifest(out)
    assert manifest is not None
    recorded = manifest.settings["prompts_dir"]
    assert recorded["sha256"] == PromptsDir.load(tmp_path / "ours").sha256
    assert recorded["overrides"] == ["moderation/semantic.j2"]
    assert (
        manifest.settings["prompts"]["semantic.j2"]
        == hashlib.sha256(ours.encode("utf-8")).hexdigest()
    )

    # Resuming with the packaged prompts is a change of settings, named as such.
    code, _, err = colmeia_cli(
        "moderate", "run", str(items), "--out", str(out), "--resume",
        env={"COLMEIA_LLM_BASE_URL": srv.base_url, "COLMEIA_LLM_MODEL": "sim"},
    )  # fmt: skip
    assert code == 2 and "prompt template semantic.j2 changed" in err


def test_a_bad_prompts_folder_stops_the_run_before_any_request(
    tmp_path: Path, colmeia_cli: Any, sim_server: Any
) -> None:
    (tmp_path / "ours" / "moderation").mkdir(parents=True)
    bad = tmp_path / "ours" / "moderation" / "decider.j2"
    bad.write_text("{{ question }} {{ margin }}", encoding="utf-8")
    sim = SimulatedModel(schema_mode=True, seed=3)
    srv = sim_server(sim)
    items = tmp_path / "items.json"
    items.write_text(json.dumps(_sample()[:2]), encoding="utf-8")
    code, _, err = colmeia_cli(
        "moderate", "run", str(items), "--out", str(tmp_path / "r.jsonl"),
        env={"COLMEIA_LLM_BASE_URL": srv.base_url, "COLMEIA_LLM_MODEL": "sim",
             "COLMEIA_PROMPTS_DIR": str(tmp_path / "ours")},
    )  # fmt: skip
    assert code == 2
    assert err.strip() == (
        f"configuration error: {bad}: uses variable(s) margin unknown to this template; "
        + err.split("unknown to this template; ", 1)[1].strip()
    )
    assert sim.requests == []


def _sample() -> list[dict[str, Any]]:
    return list(json.loads((DATA_DIR / "moderation" / "sample_items.json").read_text("utf-8")))


# -- the paper's criteria, in the templates ------------------------------------------------------

CRITERIA = {
    "semantic": ["every part of the question", "category and intent", "spelling and grammar",
                 "vague", "one language", "Ignore greetings and signatures"],
    "contextual": ["consistent with the product context", "claim anything they do not support",
                   "critical fact of the context", "stay on the question"],
    "suggester": ["concrete, actionable fixes", "Do not rewrite the answer"],
    "rewriter": ["following the suggestions", "only facts from the context",
                 "greeting and signature once", "this intent", "this category",
                 "Spelling, accents and grammar must be correct", "can_rewrite false"],
    "decider": ['"answer"', '"rewrite_again"', '"do_not_answer"', "Tone:", "polite",
                "category and intent", "vague or incorrect"],
}  # fmt: skip


@pytest.mark.parametrize("role", list(CRITERIA))
def test_each_agent_is_told_the_papers_criteria(role: str) -> None:
    prompt = system(role)
    missing = [c for c in CRITERIA[role] if c not in prompt]
    assert missing == []


async def test_rewriter_and_decider_receive_the_category_and_intent(sim_server: Any) -> None:
    def agents(req: Any) -> dict[str, Any]:
        title = str((req.schema or {}).get("title"))
        if title in ("SemanticReview", "ContextualReview"):
            return {"justification": "Vaga.", "score": 1}
        if title == "Suggestions":
            return {"suggestions": ["Diga que é sem fio."]}
        if title == "Rewrite":
            return {"can_rewrite": True, "answer": "Olá! Sim, é sem fio. Att.", "reason": ""}
        return {"reasoning": "Boa.", "decision": "answer"}

    sim = SimulatedModel(responder=agents)
    srv = sim_server(sim)
    raw = _sample()[1]
    async with OpenAIChatModel(base_url=srv.base_url, model="sim") as model:
        result = await Moderator(model).moderate(ModerationItem.model_validate(raw))
    assert result["outcome"] == "ANSWER_REVISED"
    expected = f"CATEGORY: {raw['category']}   INTENT: {raw['intent']['name']}"
    by_role = {
        str((r.schema or {}).get("title")): str(r.messages[1]["content"]) for r in sim.requests
    }
    assert expected in by_role["Rewrite"]
    assert expected in by_role["Decision"]
    # temperature 0 unless set: every call asked for it.
    assert {r.body.get("temperature") for r in sim.requests} == {0.0}
