"""A law question is not answered with a request for a case number: when the registry's agent
(active since the thread's first case) asks the person for a number on a question about the
LGPD, the question goes back to the coordinator instead, with the reason said. With the
documents switched off for the turn the rules do not route it, so the guard is what decides.

Scripted decisions over real HTTP to the simulated model, with the synthetic registry and the
shipped laws, as in test_assistant_model_guards.py."""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call

from colmeia.sim.engine import Reply

pytestmark = pytest.mark.agents_route

CASE = "TC/000032/2023"
LGPD = "O que a LGPD diz sobre dados pessoais de crianças?"
CANNOT = "A consulta às leis está desativada nesta conversa."


async def test_the_registry_agent_asking_a_number_on_a_law_question_gives_it_back(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_search", reason="processo"), Reply(content=CANNOT)],
        search=[
            call("lookup_case", number=CASE),
            Reply(content=f"O processo {CASE} está em Aguardando defesa."),
            call("ask_user", question="Qual é o número do processo?"),
        ],
    )
    bot = await assistant(scripted(roles))
    await bot.ask("t1", f"Onde está o processo {CASE}?")
    result = await bot.ask("t1", LGPD, flags={"enable_rag_processing": False})
    assert result.status == "answered" and result.answer == CANNOT, result.as_dict()
    assert [(h["from"], h["to"], h["reason"]) for h in result.handoffs] == [
        ("search", "main", "a pergunta não é sobre um caso")
    ]
