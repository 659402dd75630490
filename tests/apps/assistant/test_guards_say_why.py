"""When a guard moves a question the model misrouted, the trace the person is shown (``↪ main →
search  a pergunta é sobre um caso`` in ``colmeia assistant``) says why, and a question moved
to the documents carries the person's own words as its task.

Scripted decisions over real HTTP to the simulated model, with the synthetic registry and the
shipped laws, as in test_assistant_model_guards.py."""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call, cited_answer

from colmeia.sim.engine import Reply

pytestmark = pytest.mark.agents_route

CASE = "TC/000032/2023"
LGPD = "o que a LGPD diz sobre dados pessoais de crianças?"
DESCRIBED = "Não sei o número, é sobre a merenda da prefeitura"


def _moves(result: Any) -> list[tuple[str, str, str]]:
    return [(h["from"], h["to"], h.get("task") or h.get("reason") or "") for h in result.handoffs]


async def test_a_numbered_case_the_coordinator_asked_about_says_it_cites_a_case(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("ask_user", question="Qual é o número do processo?")],
        search=[call("lookup_case", number=CASE), Reply(content="")],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", f"Onde está o processo {CASE}?")
    assert _moves(result) == [("main", "search", "a pergunta cita um caso")], result.as_dict()


async def test_a_described_case_the_coordinator_asked_about_says_the_person_describes_it(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("ask_user", question="Qual é o número do processo?")],
        search=[call("search_cases", query="merenda da prefeitura")],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", DESCRIBED)
    assert _moves(result)[:1] == [("main", "search", "a pessoa descreve o caso")], result.as_dict()


async def test_a_case_question_sent_to_the_laws_says_it_is_about_a_case(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_rag", task="andamento do processo")],
        search=[call("ask_user", question="Qual é o número do processo?")],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", "Preciso saber do andamento do meu processo")
    assert _moves(result) == [("main", "search", "a pergunta é sobre um caso")], result.as_dict()


async def test_a_case_question_the_coordinator_answered_itself_says_it_is_about_a_case(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[Reply(content="Seu processo está em andamento.")],
        search=[call("ask_user", question="Qual é o número do processo?")],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", "Preciso saber do andamento do meu processo")
    assert _moves(result) == [("main", "search", "a pergunta é sobre um caso")], result.as_dict()
    assert "Seu processo está em andamento" not in result.answer


@pytest.mark.parametrize(
    "again",
    [call("ask_user", question="Pode repetir a sua dúvida?"), Reply(content="A LGPD protege.")],
    ids=["asked-again", "answered-itself"],
)
async def test_a_law_question_given_in_reply_to_the_coordinator_goes_to_the_laws_in_its_words(
    scripted: Any, assistant: Any, again: Reply
) -> None:
    roles = Roles(main=[call("ask_user", question="Qual é a sua dúvida?"), again])
    roles.scripts["answer"] = [cited_answer]
    bot = await assistant(scripted(roles))
    asked = await bot.ask("t1", "Olá, tenho uma dúvida")
    assert asked.status == "waiting_clarification"
    # the reply is not routed by the rules (it continues the turn): the coordinator decides,
    # and whether it asks again or answers from its own head, the laws answer the reply
    result = await bot.resume("t1", LGPD)
    assert _moves(result)[0] == ("main", "rag", LGPD), result.as_dict()
    assert result.status == "answered" and result.citations
    assert all(c["law"] == "Lei 13.709/2018" for c in result.citations)
    assert "A LGPD protege." not in result.answer
