"""What each agent is told: the design's criteria, one audit language, and prompts that agree
with the schemas they ask for."""

from __future__ import annotations

import json
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
