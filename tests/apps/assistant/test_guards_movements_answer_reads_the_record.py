"""A numbered case answered from its movements alone has not been read: the turn looks up its
record before the answer, so "onde está e desde quando?" gets the registry's location and date,
not the model's reading of a list of movements (the 0.5B model in CI listed the movements and
answered in its own words, with no fact checked against the record).

Scripted decisions over real HTTP to the simulated model, with the synthetic registry and the
shipped laws, as in test_assistant_model_guards.py."""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call

from colmeia.sim.engine import Reply

pytestmark = pytest.mark.agents_route

CASE = "TC/000032/2023"  # Aguardando defesa


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
