"""A question naming its own case and asking nothing else ("Me fale do processo X.") that the
search agent looked up and handed back, then sent to the laws by the coordinator, is answered
with the case's record, not law passages (Lei 9.784 on "processo administrativo"): the turn's
frame reads it as a case question, as a follow-up ("me conta mais dele",
test_guards_follow_up_after_hand_back.py) is read. A question with a legal part beside its case
("O processo X: o que é o contraditório?") reads as mixed and its hand-over stands
(test_assistant_conversations.py). Found by mutation testing (issue 33).

Scripted decisions over real HTTP to the simulated model, with the synthetic registry and the
shipped laws, as in test_assistant_model_guards.py."""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call, cited_answer

from colmeia.sim.engine import Reply

pytestmark = pytest.mark.agents_route

CASE = "TC/000032/2023"


async def test_a_numbered_case_handed_back_after_its_lookup_is_not_answered_by_the_laws(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[
            call("transfer_to_search", reason="processo"),
            call("transfer_to_rag", task="processo"),
            Reply(content=""),
        ],
        search=[call("lookup_case", number=CASE), call("transfer_to_main", reason="pronto")],
        answer=[cited_answer],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", f"Me fale do processo {CASE}.")
    assert result.citations == [] and roles.seen["answer"] == [], result.as_dict()
    assert f"Processo {CASE}" in result.answer
