"""A law question the rules are sure of goes to the documents whatever the model would pick.

The 1.5B local model handed 3 of the first 20 law questions to the case-search agent or
answered them itself. When the rules are confident (no case part; a norm named, a term the
collection defines, or a passage covering the question) the coordinator's model is not asked:
the RAG agent answers, its model writing over the ranked passages, and the handoff record says
the rules decided it and why. Scripted models over real HTTP, the shipped laws, SQLite registry.
"""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call, cited_answer

from colmeia.sim.engine import Reply

# the agents' route with a model (routing=agents): what the model decides, and what the
# graph holds whatever it decides; the frame's route is tests/apps/assistant/test_model_frame.py
pytestmark = pytest.mark.agents_route

# lgpd-02 of the laws set: no norm named; "titular", "controlador", "dado pessoal" are terms
# the LGPD defines. Gold: Lei 13.709/2018, Art. 18 (in the first five passages offline).
RIGHTS = "Quais direitos o titular pode pedir ao controlador sobre seus dados pessoais?"


async def test_a_law_question_the_model_would_misroute_is_answered_from_the_documents(
    scripted: Any, assistant: Any
) -> None:
    offline = await (await assistant(None)).ask("offline", RIGHTS)
    for i, wrong in enumerate(
        [
            call("transfer_to_search", reason="dados do titular"),  # to the registry
            Reply(content="O titular pode pedir o que quiser."),  # answered by main itself
        ]
    ):
        roles = Roles(main=[wrong], search=[call("search_cases", query="titular")])
        roles.scripts["answer"] = [cited_answer]
        bot = await assistant(scripted(roles))
        result = await bot.ask(f"t{i}", RIGHTS)
        # Red without the rules route: the search agent searches the registry for "titular"
        # (or main's own sentence is delivered).
        assert result.status == "answered" and result.agent == "rag", result.answer
        assert [(h["from"], h["to"]) for h in result.handoffs] == [("main", "rag"), ("rag", "main")]
        decided = result.handoffs[0]
        assert decided["by"] == "rules" and "termo que a coleção define" in decided["reason"]
        assert roles.seen["main"] == [] and roles.seen["search"] == []
        # the model still writes the answer, over the passages the ranking leads with offline
        assert len(roles.seen["answer"]) == 1 and result.mode == "model"
        lead = offline.citations[0]
        assert (result.citations[0]["chunk_id"], result.citations[0]["by"]) == (
            lead["chunk_id"],
            "ranking",
        )
        assert any(c["article"] == "18" for c in [*result.citations, *result.sources][:5])


async def test_what_the_rules_are_not_sure_of_is_still_the_models_to_route(
    scripted: Any, assistant: Any
) -> None:
    greeting = Reply(content="Olá! Posso ajudar com normas e processos.")
    roles = Roles(main=[greeting])
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", "Qual o horário de funcionamento do tribunal?")
    # no sign that the collection answers it: the coordinator's model is asked
    assert len(roles.seen["main"]) >= 1
    assert all(h.get("by") != "rules" for h in result.handoffs)
    # a mixed question keeps its split: the case part to the registry first
    roles = Roles(
        main=[greeting],
        search=[
            call("lookup_case", number="TC/000032/2023"),
            Reply(content="O processo TC/000032/2023 está Aguardando defesa."),
        ],
    )
    roles.scripts["answer"] = [cited_answer]
    bot = await assistant(scripted(roles))
    mixed = await bot.ask(
        "t2", "Qual o status do processo TC/000032/2023 e qual o prazo legal segundo a Lei 9.784?"
    )
    assert [(h["from"], h["to"]) for h in mixed.handoffs][:2] == [
        ("main", "search"),
        ("search", "rag"),
    ]
    assert all(h.get("by") != "rules" for h in mixed.handoffs)


async def test_a_follow_up_leaning_on_the_last_turn_is_left_to_the_model(
    scripted: Any, assistant: Any
) -> None:
    task = "Se o pedido de acesso à informação for negado, em quantos dias posso recorrer?"
    roles = Roles(main=[call("transfer_to_rag", task=task)], answer=[cited_answer])
    bot = await assistant(scripted(roles))
    first = await bot.ask(  # lai-02 of the laws set ("informação" is defined by the LAI)
        "t1", "Preciso explicar o motivo quando faço um pedido de acesso a informação pública?"
    )
    assert first.handoffs[0]["by"] == "rules" and roles.seen["main"] == []
    # "E se…" leans on the first turn: the model writes the self-contained task
    second = await bot.ask("t1", "E se o pedido for negado, posso recorrer?")
    assert len(roles.seen["main"]) == 1 and second.agent == "rag"
    assert second.handoffs[0]["task"] == task and "by" not in second.handoffs[0]
