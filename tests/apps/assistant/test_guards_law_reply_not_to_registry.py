"""A law question the person gives in reply to the coordinator's question ("qual é a sua
dúvida?") is answered by the laws even when the coordinator hands it to the registry's agent:
the reply is not routed by the rules (it continues the turn), so the guard sends it to the
documents in the person's words, and no case is searched for.

Scripted decisions over real HTTP to the simulated model, with the synthetic registry and the
shipped laws, as in test_assistant_model_guards.py."""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call, cited_answer

pytestmark = pytest.mark.agents_route

LGPD = "o que a LGPD diz sobre dados pessoais de crianças?"


async def test_a_law_question_in_reply_handed_to_the_registry_goes_to_the_laws(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[
            call("ask_user", question="Qual é a sua dúvida?"),
            call("transfer_to_search", reason="dúvida"),
        ],
        answer=[cited_answer],
    )
    bot = await assistant(scripted(roles))
    asked = await bot.ask("t1", "Olá, tenho uma dúvida")
    assert asked.status == "waiting_clarification", asked.as_dict()
    result = await bot.resume("t1", LGPD)
    assert result.status == "answered" and result.agent == "rag", result.as_dict()
    assert [(h["from"], h["to"]) for h in result.handoffs] == [("main", "rag"), ("rag", "main")]
    assert result.handoffs[0]["task"] == LGPD and roles.seen["search"] == []
    assert result.citations and all(c["law"] == "Lei 13.709/2018" for c in result.citations)
