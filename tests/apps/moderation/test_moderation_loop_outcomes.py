"""Every way the moderation loop ends names why (``reason_code``, what the report groups
withheld answers by), with the answer that goes out, the attempts counted and who was asked;
a rewrite sent back hears the decider's reason and both reviewers' justifications; the decider
judges with the question, the store's rules and the suggestions, told which rewrite it
judges. Scripted agents over real HTTP (a simulated server)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from moderation_helpers import ROLE_OF

from colmeia.apps.moderation.graph import REASON_CODES, Moderator
from colmeia.apps.moderation.records import ModerationItem
from colmeia.llm.openai_compat import OpenAIChatModel
from colmeia.sim.engine import SimRequest, SimulatedModel

FIRST = "Olá! Sim, o mouse é sem fio por USB 2.4 GHz. Atenciosamente, equipe Logitech."
SECOND = "Olá! Sim: USB 2.4 GHz, 1600 DPI, pilha AA inclusa. Atenciosamente, equipe Logitech."
WITH_PHONE = "Olá! Sim, é sem fio. Dúvidas? Ligue (11) 98765-4321. Atenciosamente, equipe Logitech."


class Agents:
    """What each role answers, call after call (the last answer repeats), and what it was sent."""

    def __init__(self, **answers: list[dict[str, Any]]) -> None:
        self.answers = answers
        self.sent: defaultdict[str, list[str]] = defaultdict(list)

    def __call__(self, req: SimRequest) -> dict[str, Any]:
        role = ROLE_OF[str((req.schema or {}).get("title"))]
        user = "\n".join(str(m.get("content")) for m in req.messages if m.get("role") == "user")
        self.sent[role].append(user)
        queue = self.answers[role]
        return queue[min(len(self.sent[role]), len(queue)) - 1]


def review(score: int, why: str) -> dict[str, Any]:
    return {"justification": why, "score": score}


def rewrite(text: str) -> dict[str, Any]:
    return {"can_rewrite": True, "answer": text, "reason": ""}


def decide(decision: str, why: str) -> dict[str, Any]:
    return {"reasoning": why, "decision": decision}


SUGGEST = {"suggestions": ["Diga que é sem fio."]}


@pytest.fixture
async def moderator(sim_server: Any) -> AsyncIterator[Callable[..., Moderator]]:
    models: list[OpenAIChatModel] = []

    def make(agents: Agents, **kwargs: Any) -> Moderator:
        srv = sim_server(SimulatedModel(responder=agents))
        models.append(
            OpenAIChatModel(base_url=srv.base_url, model="sim", max_repairs=1, backoff_base=0.0)
        )
        return Moderator(models[-1], **kwargs)

    yield make
    for m in models:
        await m.aclose()


LOW = [review(1, "fraca")]
PATHS: dict[str, tuple[dict[str, list[dict[str, Any]]], dict[str, Any], dict[str, int]]] = {
    "first_review": (
        {"semantic": [review(5, "ok")], "contextual": [review(4, "ok")]},
        {"outcome": "KEEP_ORIGINAL", "revisions": 0},
        {"suggester": 0, "rewriter": 0, "decider": 0},
    ),
    "accepted": (
        {
            "semantic": LOW,
            "contextual": LOW,
            "suggester": [SUGGEST],
            "rewriter": [rewrite(FIRST)],
            "decider": [decide("answer", "Correta.")],
        },
        {"outcome": "ANSWER_REVISED", "final_answer": FIRST, "revisions": 1},
        {"suggester": 1, "rewriter": 1, "decider": 1},
    ),
    "rewriter_could_not": (
        {
            "semantic": LOW,
            "contextual": LOW,
            "suggester": [SUGGEST],
            "rewriter": [{"can_rewrite": False, "answer": "", "reason": "Sem dados."}],
        },
        {"outcome": "DO_NOT_ANSWER", "final_answer": None, "revisions": 1},
        {"suggester": 1, "rewriter": 1, "decider": 0},
    ),
    "decider_withheld": (
        {
            "semantic": LOW,
            "contextual": LOW,
            "suggester": [SUGGEST],
            "rewriter": [rewrite(FIRST)],
            "decider": [decide("do_not_answer", "Não responda.")],
        },
        {"outcome": "DO_NOT_ANSWER", "final_answer": None, "revisions": 1},
        {"suggester": 1, "rewriter": 1, "decider": 1},
    ),
    "cap_reached": (
        {
            "semantic": LOW,
            "contextual": LOW,
            "suggester": [SUGGEST],
            "rewriter": [rewrite(FIRST), rewrite(SECOND)],
            "decider": [decide("rewrite_again", "Falta o DPI.")],
        },
        {"outcome": "DO_NOT_ANSWER", "final_answer": None, "revisions": 2},
        {"suggester": 1, "rewriter": 2, "decider": 2},
    ),
    "policy": (
        {
            "semantic": LOW,
            "contextual": LOW,
            "suggester": [SUGGEST],
            "rewriter": [rewrite(WITH_PHONE)],
            "decider": [decide("answer", "Correta.")],
        },
        {"outcome": "DO_NOT_ANSWER", "final_answer": None, "revisions": 2},
        {"suggester": 1, "rewriter": 2, "decider": 0},
    ),
}


@pytest.mark.parametrize("code", sorted(PATHS))
async def test_every_way_the_loop_ends_names_its_reason(
    moderator: Any, item: ModerationItem, code: str
) -> None:
    answers, expected, calls = PATHS[code]
    agents = Agents(**answers)
    result = await moderator(agents, max_rewrites=2).moderate(item)
    assert result["reason_code"] == code
    assert result["reason_code"] in REASON_CODES
    assert result["error"] is None and result["error_kind"] is None
    for field, value in expected.items():
        assert result[field] == value, field
    if code == "first_review":
        assert result["final_answer"] == item.answer
        assert result["reason"] == "first review 5+4 > 8"
    if code == "cap_reached":
        assert result["reason"] == ("rewrite cap reached (2 rewrites); last verdict: Falta o DPI.")
    if code == "policy":
        assert result["reason"].startswith("rewrite cap reached (2 rewrites); the last one ")
        assert "(11) 98765-4321" in result["reason"]
    for role, n in calls.items():
        assert len(agents.sent[role]) == n, role
    # a model's answers are only ever read by the step that asked: no step is lost or doubled
    assert result["usage"]["calls"] == sum(len(v) for v in agents.sent.values())


async def test_a_rewrite_sent_back_hears_the_decider_and_both_reviewers(
    moderator: Any, item: ModerationItem
) -> None:
    agents = Agents(
        semantic=[review(1, "fraca"), review(3, "Não diz o DPI."), review(5, "ok")],
        contextual=[review(1, "fraca"), review(3, "Esquece a pilha."), review(5, "ok")],
        suggester=[SUGGEST],
        rewriter=[rewrite(FIRST), rewrite(SECOND)],
        decider=[decide("rewrite_again", "Incompleta."), decide("answer", "Agora sim.")],
    )
    result = await moderator(agents).moderate(item)
    assert result["outcome"] == "ANSWER_REVISED" and result["final_answer"] == SECOND
    assert result["reason_code"] == "accepted" and result["reason"] == "Agora sim."
    second = agents.sent["rewriter"][1]
    for heard in ("Incompleta.", "Não diz o DPI.", "Esquece a pilha."):
        assert heard in second, heard
    assert "fraca" not in second  # the first review was about the original, not this rewrite
    # the decider judges with what a person would: the question, the store's rules, the
    # suggestions the rewrite was to follow; and is told which rewrite it judges, with its scores
    for sent in agents.sent["decider"]:
        assert "QUESTION: Funciona com USB 2.4 GHz?" in sent
        assert "STORE METADATA / RULES:\n- language: portuguese" in sent
        assert "Diga que é sem fio." in sent
    assert "REWRITE #1 (3+3/10): " + FIRST in agents.sent["decider"][0]
    assert "REWRITE #2 (5+5/10): " + SECOND in agents.sent["decider"][1]
    assert result["scores"] == {
        "original": {"semantic": 1, "contextual": 1},
        "rewrites": [{"semantic": 3, "contextual": 3}, {"semantic": 5, "contextual": 5}],
    }
