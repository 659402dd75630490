"""With the registry switched off for a request, no guard sends the question to it: the
coordinator's decision stands (the laws, its question, its answer) instead of a hand-over the
graph must refuse until the turn runs out of steps.

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


def _moves(result: Any) -> list[tuple[str, str]]:
    return [(h["from"], h["to"]) for h in result.handoffs]


@pytest.mark.parametrize(
    "question",
    [f"O processo {CASE} segue a Lei 9.784?", "Preciso saber do andamento do meu processo"],
    ids=["numbered", "unnumbered"],
)
async def test_a_case_question_sent_to_the_laws_is_answered_by_them(
    scripted: Any, assistant: Any, question: str
) -> None:
    roles = Roles(main=[call("transfer_to_rag", task=question)], answer=[cited_answer])
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", question, flags=OFF)
    assert result.status == "answered" and result.fallback is None, result.as_dict()
    assert _moves(result) == [("main", "rag"), ("rag", "main")] and result.citations
    assert len(roles.seen["main"]) == 1  # no refused hand-over asked it again


@pytest.mark.parametrize(
    "question",
    [f"Onde está o processo {CASE}?", "Não sei o número, é sobre a merenda da prefeitura"],
    ids=["numbered", "described"],
)
async def test_the_coordinators_question_reaches_the_person(
    scripted: Any, assistant: Any, question: str
) -> None:
    asked = "A consulta aos processos está desligada. Quer perguntar sobre a lei?"
    roles = Roles(main=[call("ask_user", question=asked)])
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", question, flags=OFF)
    assert result.status == "waiting_clarification", result.as_dict()
    assert result.answer == asked and _moves(result) == []


async def test_the_coordinators_own_answer_to_a_case_question_stands(
    scripted: Any, assistant: Any
) -> None:
    said = "A consulta aos processos está desligada nesta conversa."
    roles = Roles(main=[Reply(content=said)])
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", "Preciso saber do andamento do meu processo", flags=OFF)
    assert result.status == "answered" and result.answer == said, result.as_dict()
    assert _moves(result) == [] and len(roles.seen["main"]) == 1
