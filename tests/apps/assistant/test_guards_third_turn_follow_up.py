"""In a longer thread each follow-up is judged by its own question: the third turn's "e a
situação?", answered from the facts the thread holds, stands (nothing looked up again), though
the second turn asked for something else (the rapporteur).

Scripted decisions over real HTTP to the simulated model, with the synthetic registry and the
shipped laws, as in test_assistant_model_guards.py."""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call

from colmeia.sim.engine import Reply

pytestmark = pytest.mark.agents_route

CASE = "TC/000032/2023"  # Aguardando defesa, Cons. Paulo Arantes, at SecexSaúde
RAPPORTEUR = f"O relator do processo {CASE} é o Cons. Paulo Arantes."
STATUS = f"O processo {CASE} está em Aguardando defesa."


async def test_the_third_turns_follow_up_is_judged_by_its_own_question(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_search", reason="processo")],
        search=[
            call("lookup_case", number=CASE),
            Reply(content=f"O processo {CASE} está na Secretaria de Controle Externo de Saúde."),
            Reply(content=RAPPORTEUR),
            Reply(content=STATUS),
        ],
    )
    bot = await assistant(scripted(roles))
    await bot.ask("t1", f"Me fale do processo {CASE}.")
    second = await bot.ask("t1", "E quem é o relator?")
    assert second.tools == [] and second.answer == RAPPORTEUR, second.as_dict()
    third = await bot.ask("t1", "E a situação?")
    # right by the record and about the status asked for: it stands
    assert third.tools == [] and third.answer == STATUS, third.as_dict()
