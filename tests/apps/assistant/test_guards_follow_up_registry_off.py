"""With the registry switched off for a turn, a follow-up about the thread's case that the
coordinator sends to the laws is answered by them (as a case question is, in
test_guards_registry_switched_off.py): the hand-over stands, nothing is dropped.

Scripted decisions over real HTTP to the simulated model, with the synthetic registry and the
shipped laws, as in test_assistant_model_guards.py."""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call, cited_answer

from colmeia.sim.engine import Reply

pytestmark = pytest.mark.agents_route

CASE = "TC/000032/2023"
OFF = {"enable_system_search": False}


async def test_a_follow_up_sent_to_the_laws_with_the_registry_off_is_answered_by_them(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[
            call("transfer_to_search", reason="processo"),
            Reply(content=f"O processo {CASE} está em Aguardando defesa."),
            call("transfer_to_rag", task="quem são as partes de um processo"),
        ],
        search=[call("lookup_case", number=CASE), call("transfer_to_main", reason="pronto")],
        answer=[cited_answer],
    )
    bot = await assistant(scripted(roles))
    first = await bot.ask("t1", f"Me fale do processo {CASE}.")
    assert first.agent == "main", first.as_dict()
    result = await bot.ask("t1", "E quem são as partes?", flags=OFF)
    assert result.status == "answered" and result.citations, result.as_dict()
    assert [(h["from"], h["to"]) for h in result.handoffs] == [("main", "rag"), ("rag", "main")]
