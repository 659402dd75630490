"""A case number the model made up is never looked up.

The real 1.5B model, asked "Preciso saber do andamento do meu processo", looked up
``TC/1234567890`` and the person got "not a valid case number"; asked about a case by its
subject, small models look up a plausible ``TC/001001/2023``. A lookup of a number that is
nowhere in the thread is replaced by what the person's words allow: their own number, a search
for the case they describe, or the question for the number. Scripted models over real HTTP to
colmeia's simulated server; the synthetic registry in SQLite.
"""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call

from colmeia.sim.engine import Reply, SimRequest

# the agents' route with a model (routing=agents): what the model decides, and what the
# graph holds whatever it decides; the frame's route is tests/apps/assistant/test_model_frame.py
pytestmark = pytest.mark.agents_route

CASE = "TC/000032/2023"


def _search(number: str) -> Any:
    def reply(req: SimRequest) -> Reply:
        if req.tool_results:
            return Reply(content="Pronto.")
        return call("lookup_case", number=number)

    return reply


async def test_an_invented_number_becomes_the_question_for_the_number(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_search", reason="processo")], search=[_search("TC/1234567890")]
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", "Preciso saber do andamento do meu processo")
    # Red without the check: "“TC/1234567890” não é um número válido de processo…"
    assert result.status == "waiting_clarification", result.as_dict()
    assert "Qual é o número?" in result.answer
    assert [t["tool"] for t in result.tools] == []  # nothing looked up


async def test_a_valid_looking_invented_number_for_a_described_case_becomes_a_search(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_search", reason="processo")], search=[_search("TC/001001/2023")]
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", "Não sei o número, é sobre a merenda da prefeitura")
    tools = [(t["tool"], t["arguments"]) for t in result.tools]
    assert tools and tools[0][0] == "search_cases", tools  # the registry's own search
    assert "merenda" in tools[0][1]["query"]
    assert all(name != "lookup_case" for name, _ in tools)


async def test_a_number_the_person_typed_differently_is_theirs(
    scripted: Any, assistant: Any
) -> None:
    # "32/2023" in the question, "TC/000032/2023" in the call: the same case, looked up
    roles = Roles(main=[call("transfer_to_search", reason="processo")], search=[_search(CASE)])
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", "Onde está o processo 32/2023?")
    assert [f["number"] for f in result.facts if f["status"] == "found"] == [CASE]
    assert [t["arguments"]["number"] for t in result.tools] == [CASE]


async def test_a_wrong_number_beside_the_persons_own_is_replaced_by_theirs(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_search", reason="processo")], search=[_search("TC/000033/2023")]
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", f"Quais as últimas movimentações do processo {CASE}?")
    assert [f["number"] for f in result.facts if f["status"] == "found"] == [CASE]


async def test_the_number_given_after_the_guards_question_is_looked_up_even_if_the_model_wont(
    scripted: Any, assistant: Any
) -> None:
    # the real 1.5B, given "32/2023", wrote a tool call as text and a made-up record
    made_up = "Processo TC/000032/2023: Local: Unidade de Contas, desde 2023-01-01."

    def search(req: SimRequest) -> Reply:
        if "Resposta da pessoa" not in str(req.messages):
            return call("lookup_case", number="TC/1234567890")  # invented: the guard asks
        if req.tool_results and "lookup_case" in str(req.messages[-1]):
            return Reply(content="")  # after the lookup: the registry's card stands
        return Reply(content=made_up)

    roles = Roles(main=[call("transfer_to_search", reason="processo")], search=[search])
    bot = await assistant(scripted(roles))
    asked = await bot.ask("t1", "Preciso saber do andamento do meu processo")
    assert asked.status == "waiting_clarification"
    result = await bot.ask("t1", "32/2023")
    # Red when the first guard (the question) kept the second (the lookup) from running.
    assert [f["number"] for f in result.facts if f["status"] == "found"] == [CASE], result.answer
    assert "Unidade de Contas" not in result.answer
