"""A follow-up about the thread's case ("e a situação?") may be answered from the facts the
thread already holds, but only by an answer that says the registry's record: one that
contradicts it, says nothing of the case, or leaves out the part asked for is replaced by the
record, looked up again this turn.

Scripted decisions over real HTTP to the simulated model, with the synthetic registry and the
shipped laws, as in test_assistant_model_guards.py."""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call

from colmeia.sim.engine import Reply

pytestmark = pytest.mark.agents_route

CASE = "TC/000032/2023"  # Aguardando defesa, Cons. Paulo Arantes, four parties
FIRST = f"O processo {CASE} está em Aguardando defesa."


def _found(result: Any) -> list[str]:
    return [str(f.get("number")) for f in result.facts if f.get("status") == "found"]


async def _follow_up(scripted: Any, assistant: Any, reply: str, question: str) -> Any:
    roles = Roles(
        main=[call("transfer_to_search", reason="processo")],
        # the first turn's answer, the follow-up's reply from the context, and (when the
        # guard looks the case up again) the reply after that lookup: the registry's card
        search=[
            call("lookup_case", number=CASE),
            Reply(content=FIRST),
            Reply(content=reply),
            Reply(content=""),
        ],
    )
    bot = await assistant(scripted(roles))
    await bot.ask("t1", f"Me fale do processo {CASE}.")
    return await bot.ask("t1", question)


async def test_a_follow_up_answered_with_the_record_stands_without_a_lookup(
    scripted: Any, assistant: Any
) -> None:
    said = f"O relator do processo {CASE} é o Cons. Paulo Arantes."
    result = await _follow_up(scripted, assistant, said, "E quem é o relator?")
    assert result.tools == [] and result.answer == said, result.as_dict()
    assert _found(result) == [CASE]


@pytest.mark.parametrize(
    "reply",
    [
        # names its rapporteur, but puts it where the record does not
        f"O processo {CASE}, do Cons. Paulo Arantes, está no Gabinete da Presidência.",
        "Claro, posso ajudar com isso.",  # says nothing of the case
    ],
    ids=["contradicts", "says-nothing"],
)
async def test_a_follow_up_answered_without_the_record_gets_the_record(
    scripted: Any, assistant: Any, reply: str
) -> None:
    result = await _follow_up(scripted, assistant, reply, "E onde ele está agora?")
    assert [t["tool"] for t in result.tools] == ["lookup_case"], result.as_dict()
    assert "Onde está: Secretaria de Controle Externo de Saúde" in result.answer
    assert reply not in result.answer and _found(result) == [CASE]


async def test_a_follow_up_answered_with_another_part_of_the_record_gets_the_part_asked_for(
    scripted: Any, assistant: Any
) -> None:
    # right by the record, and about the case, but the rapporteur was asked for
    result = await _follow_up(scripted, assistant, FIRST, "E quem é o relator?")
    assert [t["tool"] for t in result.tools] == ["lookup_case"], result.as_dict()
    assert "Paulo Arantes" in result.answer and _found(result) == [CASE]
