"""A question that gives a case's number goes to the registry, whatever the coordinator
decides: a question back for the number the person just gave, or the laws for a case that
names a law. The coordinator's own hand-over of it stands as its decision.

Scripted decisions over real HTTP to the simulated model, with the synthetic registry and the
shipped laws, as in test_assistant_model_guards.py."""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call, cited_answer

from colmeia.sim.engine import Reply

pytestmark = pytest.mark.agents_route

CASE = "TC/000032/2023"  # Aguardando defesa


def _found(result: Any) -> list[str]:
    return [str(f.get("number")) for f in result.facts if f.get("status") == "found"]


def _moves(result: Any) -> list[tuple[str, str]]:
    return [(h["from"], h["to"]) for h in result.handoffs]


async def test_the_coordinator_asking_for_the_number_the_person_gave_hands_the_case_over(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("ask_user", question="Qual é o número do processo?")],
        search=[call("lookup_case", number=CASE), Reply(content="")],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", f"Onde está o processo {CASE}?")
    # the person is not asked for the number they gave: the registry answers
    assert result.status == "answered", result.as_dict()
    assert _moves(result) == [("main", "search")]
    assert "Situação atual: Aguardando defesa" in result.answer and _found(result) == [CASE]


async def test_a_numbered_case_that_names_a_law_goes_to_the_registry_not_the_laws(
    scripted: Any, assistant: Any
) -> None:
    question = f"O processo {CASE} trata da Lei 8.666?"
    roles = Roles(
        main=[call("transfer_to_rag", task=question)],
        search=[call("lookup_case", number=CASE), Reply(content="")],
        answer=[cited_answer],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", question)
    # what the case is about is the registry's record, not a passage of Lei 8.666
    assert _moves(result) == [("main", "search")], result.as_dict()
    assert result.citations == [] and roles.seen["answer"] == []
    assert "Assunto: Superfaturamento" in result.answer and _found(result) == [CASE]


async def test_the_coordinators_own_hand_over_of_a_numbered_case_is_recorded_as_its_own(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_search", reason="o processo citado")],
        search=[call("lookup_case", number=CASE), Reply(content="")],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", f"Onde está o processo {CASE}?")
    # the trace tells the model's decisions from the guards': this one was the model's
    [handoff] = result.handoffs
    assert (handoff["from"], handoff["to"], handoff["reason"]) == (
        "main",
        "search",
        "o processo citado",
    )
    assert not handoff.get("guard")
    assert _found(result) == [CASE]


async def test_the_registry_agent_asking_back_after_reading_only_movements_reads_the_record(
    scripted: Any, assistant: Any
) -> None:
    # as the 0.5B model did in CI: the movements read, the same call repeated, then a
    # "question" to the person that asks nothing — the record of the case they typed answers
    roles = Roles(
        main=[call("transfer_to_search", reason="o processo citado")],
        search=[
            call("case_movements", number=CASE, limit=10),
            call("case_movements", number=CASE, limit=10),
            call("ask_user", question=f"Enquanto o processo {CASE} não for concluído, sugiro…"),
            Reply(content=""),
        ],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", f"Onde está o processo {CASE} e desde quando?")
    assert result.status == "answered", result.as_dict()
    assert "Situação atual: Aguardando defesa" in result.answer and _found(result) == [CASE]
