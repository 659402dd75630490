"""The registry's agent does not answer a question about the laws in its own words: with the
documents switched off, a law question the coordinator handed to it goes back to the
coordinator (which says what it cannot do), and the search agent's unsourced claim about the
law never reaches the person.

Scripted decisions over real HTTP to the simulated model, with the synthetic registry and the
shipped laws, as in test_assistant_model_guards.py."""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call

from colmeia.sim.engine import Reply

pytestmark = pytest.mark.agents_route

LGPD = "O que a LGPD diz sobre dados pessoais de crianças?"
INVENTED = "A LGPD diz que dados de crianças podem ser usados sem consentimento."
CANNOT = "A consulta às leis está desativada aqui; não consigo responder sobre a LGPD."


async def test_a_law_question_answered_by_the_registry_agent_goes_back_to_the_coordinator(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_search", reason="dúvida"), Reply(content=CANNOT)],
        search=[Reply(content=INVENTED)],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", LGPD, flags={"enable_rag_processing": False})
    assert result.answer == CANNOT and result.agent == "main", result.as_dict()
    assert [(h["from"], h["to"]) for h in result.handoffs] == [
        ("main", "search"),
        ("search", "main"),
    ]
    assert result.handoffs[1]["reason"] == "a pergunta não é sobre um caso"
    assert result.facts == [] and result.citations == []
