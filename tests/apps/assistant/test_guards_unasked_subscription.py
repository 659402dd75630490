"""A subscription to a case's movements is offered for approval only when the person asked
for it this turn (in their question, or in their reply to the agent's question); one nobody
asked for is dropped, its case read instead unless it was read this turn already.

Scripted decisions over real HTTP to the simulated model, with the synthetic registry and the
shipped laws, as in test_assistant_model_guards.py."""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call

from colmeia.sim.engine import Reply

pytestmark = pytest.mark.agents_route

CASE = "TC/000032/2023"  # Aguardando defesa


def _found(result: Any) -> list[str]:
    return [str(f.get("number")) for f in result.facts if f.get("status") == "found"]


async def test_an_unasked_subscription_after_the_lookup_is_dropped_not_read_again(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_search", reason="processo")],
        search=[
            call("lookup_case", number=CASE),
            call("subscribe_updates", number=CASE, contact="example@example.com"),
            Reply(content=""),
        ],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", f"Qual a situação do processo {CASE}?")
    # the record read once is the answer: no approval asked, no second reading of it
    assert result.status == "answered", result.as_dict()
    assert [t["tool"] for t in result.tools] == ["lookup_case"], result.tools
    assert "Situação atual: Aguardando defesa" in result.answer and _found(result) == [CASE]


async def test_a_subscription_the_person_asked_for_in_their_reply_waits_for_approval(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[
            call("ask_user", question="Qual é o número do processo?"),
            call("transfer_to_search", reason="processo"),
        ],
        search=[call("subscribe_updates", number=CASE, contact="maria@example.com")],
    )
    bot = await assistant(scripted(roles))
    asked = await bot.ask("t1", "Preciso de ajuda com um processo")
    assert asked.status == "waiting_clarification", asked.as_dict()
    result = await bot.resume(
        "t1", f"É o {CASE}; quero ser avisada das movimentações em maria@example.com"
    )
    # the reply asked for the updates: the subscription is the person's, offered for approval
    assert result.status == "waiting_approval", result.as_dict()
    assert result.waiting["tool"] == "subscribe_updates"
    assert result.waiting["arguments"]["contact"] == "maria@example.com"
