"""A follow-up about the thread's case ("me conta mais dele") that the search agent looked up
and handed back is answered by the registry's record: the coordinator's hand-over of it to the
laws is dropped, and no passage of a law is shown for a question about a case.

Scripted decisions over real HTTP to the simulated model, with the synthetic registry and the
shipped laws, as in test_assistant_model_guards.py."""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call, cited_answer

from colmeia.sim.engine import Reply

pytestmark = pytest.mark.agents_route

CASE = "TC/000032/2023"  # Aguardando defesa, at SecexSaúde
PARTY = "Carla Bezerra Duarte"  # a Responsável of CASE


async def test_a_follow_up_handed_back_after_its_lookup_is_not_sent_to_the_laws(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[
            call("transfer_to_search", reason="processo"),
            call("transfer_to_rag", task="mais informações sobre processos"),
        ],
        search=[
            call("lookup_case", number=CASE),
            Reply(content=f"O processo {CASE} está em Aguardando defesa."),
            call("lookup_case", number=CASE),
            call("transfer_to_main", reason="pronto"),
        ],
        answer=[cited_answer],
    )
    bot = await assistant(scripted(roles))
    await bot.ask("t1", f"Onde está o processo {CASE}?")
    result = await bot.ask("t1", "Me conta mais dele.")
    assert result.status == "answered", result.as_dict()
    assert result.citations == [] and roles.seen["answer"] == [], result.as_dict()
    assert f"Processo {CASE}" in result.answer and PARTY in result.answer
    assert [f["number"] for f in result.facts if f.get("status") == "found"] == [CASE]
