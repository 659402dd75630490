"""A case whose movements were listed this turn has not been read yet: when the model then
subscribes to it unasked, the subscription becomes this turn's lookup of its record (the turn's
trace shows the lookup the guard made; a listing of movements does not count as one), and the
person gets the case's status. So when the model answers in its own words after the movements
alone (the 0.5B model in CI, for "onde está o processo X e desde quando?"): the record is read
before the answer.

Scripted decisions over real HTTP to the simulated model, with the synthetic registry and the
shipped laws, as in test_assistant_model_guards.py."""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call

from colmeia.sim.engine import Reply

pytestmark = pytest.mark.agents_route

CASE = "TC/000032/2023"  # Aguardando defesa


async def test_an_unasked_subscription_after_the_movements_reads_the_cases_record(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_search", reason="processo")],
        search=[
            call("case_movements", number=CASE),
            call("subscribe_updates", number=CASE, contact="example@example.com"),
            Reply(content=""),
        ],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", f"Qual a situação do processo {CASE}?")
    assert result.status == "answered", result.as_dict()
    assert "Situação atual: Aguardando defesa" in result.answer, result.answer
    assert [f["number"] for f in result.facts if f.get("status") == "found"] == [CASE], result.facts
    assert [t["tool"] for t in result.tools] == ["case_movements", "lookup_case"], result.tools


async def test_movements_then_a_direct_answer_still_reads_the_cases_record(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_search", reason="processo")],
        search=[
            call("case_movements", number=CASE),
            Reply(content="O processo está em andamento desde ontem."),
            Reply(content=""),
        ],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", f"Onde está o processo {CASE} e desde quando?")
    assert result.status == "answered", result.as_dict()
    assert [f["number"] for f in result.facts if f.get("status") == "found"] == [CASE], result.facts
    assert [t["tool"] for t in result.tools] == ["case_movements", "lookup_case"], result.tools
    assert "Aguardando defesa" in result.answer, result.answer
