"""The rewrite cap, round by round: a store that allows many rewrites gets every one of them
and not one more, a rewrite the policy stops is an attempt like any other, and the round each
step is filed under is the rewrite it is about.

Scripted agents of the simulated model over real HTTP.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from moderation_helpers import ROLE_OF

from colmeia.apps.moderation.graph import Moderator
from colmeia.apps.moderation.records import ModerationItem
from colmeia.llm.openai_compat import OpenAIChatModel
from colmeia.sim.engine import SimRequest, SimulatedModel

PHONE = "Olá! Sim, é sem fio. Ligue (11) 98765-4321. Atenciosamente, equipe Logitech."


def rewrite_number(n: int) -> str:
    return f"Olá! Sim, o mouse é sem fio (versão {n}). Atenciosamente, equipe Logitech."


class NeverSatisfied:
    """Reviewers score everything 1; the decider always asks for another rewrite; the rewriter
    writes ``rewrites[i]`` on its i-th call (then numbered clean rewrites)."""

    def __init__(self, rewrites: list[str] | None = None) -> None:
        self.rewrites = rewrites or []
        self.calls: dict[str, int] = dict.fromkeys(ROLE_OF.values(), 0)

    def __call__(self, req: SimRequest) -> dict[str, Any]:
        role = ROLE_OF[str((req.schema or {}).get("title"))]
        self.calls[role] += 1
        n = self.calls[role]
        if role in ("semantic", "contextual"):
            return {"justification": "Vaga.", "score": 1}
        if role == "suggester":
            return {"suggestions": ["Seja específica."]}
        if role == "rewriter":
            text = self.rewrites[n - 1] if n <= len(self.rewrites) else rewrite_number(n)
            return {"can_rewrite": True, "answer": text, "reason": ""}
        return {"reasoning": f"Ainda vaga ({n}).", "decision": "rewrite_again"}


@pytest.fixture
async def moderator(sim_server: Any) -> AsyncIterator[Callable[..., Moderator]]:
    models: list[OpenAIChatModel] = []

    def make(agents: NeverSatisfied, **kwargs: Any) -> Moderator:
        srv = sim_server(SimulatedModel(responder=agents))
        models.append(OpenAIChatModel(base_url=srv.base_url, model="sim", backoff_base=0.0))
        return Moderator(models[-1], **kwargs)

    yield make
    for m in models:
        await m.aclose()


async def test_a_cap_of_nine_rewrites_gets_all_nine_and_no_tenth(
    moderator: Any, item: ModerationItem
) -> None:
    """Nine full rounds (rewrite, both reviews, decision) after the first review: the run's
    step limit (a backstop against a wiring loop) leaves room for the longest legal run."""
    agents = NeverSatisfied()
    result = await moderator(agents, max_rewrites=9).moderate(item)
    assert (result["outcome"], result["reason_code"]) == ("DO_NOT_ANSWER", "cap_reached")
    assert result["reason"] == "rewrite cap reached (9 rewrites); last verdict: Ainda vaga (9)."
    assert result["error"] is None
    assert agents.calls == {
        "semantic": 10,
        "contextual": 10,
        "suggester": 1,
        "rewriter": 9,
        "decider": 9,
    }
    assert result["revisions"] == 9 and len(result["scores"]["rewrites"]) == 9
    decisions = [s["round"] for s in result["trail"] if s["role"] == "decider"]
    assert decisions == list(range(1, 10))  # each decision is filed under its rewrite


async def test_rewrites_the_policy_stops_are_attempts_and_count_toward_the_cap(
    moderator: Any, item: ModerationItem
) -> None:
    agents = NeverSatisfied([PHONE, rewrite_number(2), PHONE])
    result = await moderator(agents, max_rewrites=3).moderate(item)
    assert (result["outcome"], result["reason_code"]) == ("DO_NOT_ANSWER", "policy")
    assert result["reason"] == (
        "rewrite cap reached (3 rewrites); the last one breaks the store policy: "
        "remove the phone number (11) 98765-4321"
    )
    assert result["final_answer"] is None
    assert (agents.calls["rewriter"], agents.calls["decider"]) == (3, 1)
    assert result["revisions"] == 3
    # only the clean rewrite was reviewed and judged
    assert result["scores"]["rewrites"] == [{"semantic": 1, "contextual": 1}]
    policy = [
        (s["round"], s["output"]["checked"]) for s in result["trail"] if s["role"] == "policy"
    ]
    assert policy == [(1, "rewrite"), (3, "rewrite")]
    assert [v["round"] for v in result["policy"]["violations"]] == [1, 3]


async def test_a_clean_last_rewrite_at_the_cap_is_still_judged(
    moderator: Any, item: ModerationItem
) -> None:
    """The cap stops the loop after the decider's verdict on the last rewrite, not before."""
    agents = NeverSatisfied([PHONE, PHONE])
    result = await moderator(agents, max_rewrites=3).moderate(item)
    assert result["reason_code"] == "cap_reached"
    assert (agents.calls["rewriter"], agents.calls["decider"]) == (3, 1)
    decided = [s for s in result["trail"] if s["role"] == "decider"]
    assert [s["round"] for s in decided] == [3]


async def test_every_problem_of_the_last_rewrite_at_the_cap_is_named(
    moderator: Any, item: ModerationItem
) -> None:
    two = (
        "Olá! Sim, é sem fio. Ligue (11) 98765-4321 ou escreva para vendas@loja.com.br. "
        "Atenciosamente, equipe Logitech."
    )
    result = await moderator(NeverSatisfied([two]), max_rewrites=1).moderate(item)
    assert result["reason_code"] == "policy"
    assert result["reason"] == (
        "rewrite cap reached (1 rewrites); the last one breaks the store policy: "
        "remove the phone number (11) 98765-4321; remove the e-mail address vendas@loja.com.br"
    )
    assert [v["rule"] for v in result["policy"]["violations"]] == ["phone", "email"]
