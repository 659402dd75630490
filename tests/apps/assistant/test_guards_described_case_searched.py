"""A described case is searched once a turn: after the search agent's own search found
nothing, its question for more details reaches the person instead of the same search again.

Scripted decisions over real HTTP to the simulated model, with the synthetic registry and the
shipped laws, as in test_assistant_model_guards.py."""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call

pytestmark = pytest.mark.agents_route


async def test_the_question_after_a_search_that_found_nothing_reaches_the_person(
    scripted: Any, assistant: Any
) -> None:
    asked = "Não encontrei esse processo. Pode dizer o município ou o ano?"
    roles = Roles(
        main=[call("transfer_to_search", reason="processo")],
        search=[
            call("search_cases", query="reforma estádio Xique-Xique"),
            call("ask_user", question=asked),
        ],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", "Não sei o número, é sobre a reforma do estádio de Xique-Xique")
    assert result.status == "waiting_clarification", result.as_dict()
    assert result.answer == asked
    assert [t["tool"] for t in result.tools] == ["search_cases"]
