"""The assistant's swarm with a scripted model over HTTP: every path the issue names.

The simulated model answers each agent from its own script (``Roles``); the registry, the
laws and the checkpointer are real. Assertions are what a person or an auditor would check:
who answered, which citations, which registry record, what was written.
"""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import AS_OF, Roles, call, calls, cited_answer

from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.errors import InputError
from colmeia.sim.engine import Reply

# the agents' route with a model (routing=agents): what the model decides, and what the
# graph holds whatever it decides; the frame's route is tests/apps/assistant/test_model_frame.py
pytestmark = pytest.mark.agents_route


async def test_direct_answer_from_the_coordinator(scripted: Any, assistant: Any) -> None:
    roles = Roles(main=[Reply(content="Olá! Sou o assistente do Tribunal de Contas.")])
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", "Olá, quem é você?")
    assert result.status == "answered"
    assert (result.agent, result.answer) == ("main", "Olá! Sou o assistente do Tribunal de Contas.")
    assert result.handoffs == [] and result.citations == []
    assert result.usage["calls"] == 1


async def test_handoff_to_rag_and_back_with_checked_citations(
    scripted: Any, assistant: Any
) -> None:
    task = "Explique quando o tratamento de dados pessoais de crianças exige consentimento."
    roles = Roles(main=[call("transfer_to_rag", task=task)], answer=[cited_answer])
    bot = await assistant(scripted(roles))
    # a question the rules leave to the model (no norm, no defined term, few words)
    result = await bot.ask("t1", "E sobre crianças?")
    assert result.status == "answered" and result.agent == "rag"
    assert [(h["from"], h["to"]) for h in result.handoffs] == [("main", "rag"), ("rag", "main")]
    assert result.citations, result.answer
    first = result.citations[0]
    assert (first["law"], first["article"]) == ("Lei 13.709/2018", "14")
    # every citation in the text names a passage whose quote was found in it
    for c in result.citations:
        assert f"[{c['passage']}]" in result.answer
        assert c["quote"]
    # main delivered the RAG answer unchanged: one model call for main, one for generation
    assert len(roles.seen["main"]) == 1 and len(roles.seen["answer"]) == 1


async def test_task_handoff_gives_rag_the_task_not_the_conversation(
    scripted: Any, assistant: Any
) -> None:
    task = "Qual o prazo para responder a um pedido de acesso à informação (Lei 12.527)?"
    roles = Roles(
        main=[Reply(content="Olá!"), call("transfer_to_rag", task=task, context="pedido a órgão")],
        answer=[cited_answer],
    )
    bot = await assistant(scripted(roles))
    await bot.ask("t1", "Olá, meu nome é Joana Silva e moro em Campinas")
    result = await bot.ask("t1", "Quanto tempo o órgão tem para me responder?")
    assert result.handoffs[0]["task"] == task and result.handoffs[0]["kind"] == "task"
    generation = roles.seen["answer"][0]
    user_text = generation.last_user_text
    assert user_text.startswith(task) and "Contexto: pedido a órgão" in user_text
    sent = " ".join(str(m.get("content")) for m in generation.messages)
    assert "Joana" not in sent and "Campinas" not in sent
    assert any(c["law"] == "Lei 12.527/2011" for c in result.citations)


async def test_search_handoff_normalises_a_sloppy_number_before_the_lookup(
    scripted: Any, assistant: Any, registry: SQLiteCaseRegistry
) -> None:
    from colmeia.apps.assistant.ids import parse_case_id

    loc = await registry.location(parse_case_id("TC/000032/2023"), AS_OF)
    assert loc is not None
    since = loc.since[8:10] + "/" + loc.since[5:7] + "/" + loc.since[:4]
    phrased = f"O processo TC/000032/2023 está em {loc.location} desde {since}."
    roles = Roles(
        main=[call("transfer_to_search", reason="andamento de processo")],
        search=[call("lookup_case", number="tc 32/2023"), Reply(content=phrased)],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", "onde está o tc 32/2023 e desde quando?")
    assert result.status == "answered" and result.agent == "search"
    assert result.answer == phrased  # the phrasing only used what the registry returned
    assert [f["number"] for f in result.facts] == ["TC/000032/2023"]
    assert result.facts[0]["location"]["since"] == loc.since
    # the search agent saw the whole conversation (state-propagating handoff)
    assert "onde está o tc 32/2023" in roles.seen["search"][0].last_user_text
    # the next turn starts with the agent that was active: search
    roles.scripts["search"] = [Reply(content="De nada!")]
    again = await bot.ask("t1", "obrigado")
    assert again.agent == "search" and again.handoffs == []


async def test_unknown_and_invalid_numbers_never_get_invented_fields(
    scripted: Any, assistant: Any
) -> None:
    invented = (
        "O processo TC/999999/2020 está no Gabinete do Cons. Júlio Prates desde 01/02/2024, "
        "há 300 dias, em fase de julgamento."
    )
    roles = Roles(
        main=[call("transfer_to_search", reason="processo")],
        search=[
            calls(
                ("lookup_case", {"number": "TC-999999-2020"}),
                ("lookup_case", {"number": "tc 0/2024"}),
            ),
            Reply(content=invented),
        ],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", "Como estão o TC-999999-2020 e o tc 0/2024?")
    assert result.status == "answered"
    assert "Não encontrei o processo TC/999999/2020" in result.answer
    assert "o número não pode ser zero" in result.answer
    for made_up in ("Júlio", "Prates", "01/02/2024", "300 dias", "julgamento", "Gabinete"):
        assert made_up not in result.answer
    assert [f["status"] for f in result.facts] == ["not_found", "invalid"]
    assert "record" not in result.facts[0]


async def test_ping_pong_between_agents_stops_at_the_cap(scripted: Any, assistant: Any) -> None:
    roles = Roles(
        main=[lambda r: call("transfer_to_search", reason="talvez processo")],
        search=[lambda r: call("transfer_to_main", reason="não é processo")],
    )
    bot = await assistant(scripted(roles), max_handoffs_per_turn=3)
    result = await bot.ask("t1", "hmm?")
    assert result.status == "handoff_limit"
    assert len(result.handoffs) == 3
    assert "3 vezes" in result.answer
    assert len(roles.seen["main"]) + len(roles.seen["search"]) == 4


async def test_a_handoff_beside_another_tool_call_is_refused_cleanly(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_search", reason="processo")],
        search=[
            calls(
                ("lookup_case", {"number": "TC/000032/2023"}), ("transfer_to_main", {"reason": "x"})
            ),
            Reply(content="O processo TC/000032/2023 foi consultado."),
        ],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", "tc 32/2023?")
    assert result.status == "answered" and result.agent == "search"
    assert [(h["from"], h["to"]) for h in result.handoffs] == [("main", "search")]
    second = roles.seen["search"][1].messages
    results = {m["tool_call_id"]: m["content"] for m in second if m["role"] == "tool"}
    assert len(results) == 2  # both calls got a result before the model spoke again
    assert any(
        v.startswith("Refused: a handoff must be the only tool call") for v in results.values()
    )
    assert any('"status":"found"' in v for v in results.values())


async def test_clarification_pauses_the_thread_and_the_answer_resumes_it(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_search", reason="andamento")],
        search=[
            call("ask_user", question="Qual é o número do processo?"),
            lambda r: call("lookup_case", number=r.messages[-1]["content"].split(": ")[-1]),
            Reply(content="Consultei o processo TC/000032/2023."),
        ],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", "como está meu processo?")
    assert result.status == "waiting_clarification"
    assert result.answer == "Qual é o número do processo?"
    with pytest.raises(InputError, match="answer to its question"):
        await bot.resume("t1", {"action": "approve"})
    # the person types the number as a new message: it is the answer, as in `chat`
    done = await bot.ask("t1", "TC 32/2023")
    assert done.status == "answered"
    assert [f["number"] for f in done.facts] == ["TC/000032/2023"]
    assert [m["role"] for m in await bot.history("t1")] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]


def _subscribe_script(number: str = "tc 32/2023") -> Roles:
    return Roles(
        main=[call("transfer_to_search", reason="avisos")],
        search=[
            call("subscribe_updates", number=number, contact="ana@example.org"),
            lambda r: Reply(content=r.messages[-1]["content"]),
        ],
    )


async def test_approval_then_resume_runs_the_side_effect_once(
    scripted: Any, assistant: Any, registry: SQLiteCaseRegistry
) -> None:
    bot = await assistant(scripted(_subscribe_script()))
    result = await bot.ask("t1", "Quero ser avisada das movimentações do tc 32/2023")
    assert result.status == "waiting_approval"
    assert result.waiting is not None
    assert result.waiting["tool"] == "subscribe_updates"
    assert registry.subscriptions() == []  # nothing happens before approval
    with pytest.raises(InputError, match="waiting for an approval"):
        await bot.ask("t1", "sim, pode inscrever")  # a side effect needs an explicit approval
    assert registry.subscriptions() == []
    done = await bot.resume("t1", {"action": "approve"})
    assert done.status == "answered"
    subs = registry.subscriptions()
    assert [(s.number, s.contact) for s in subs] == [("TC/000032/2023", "ana@example.org")]
    assert "Inscrição registrada" in done.answer
    assert done.tools[-1]["decision"] == "approve"


async def test_edited_arguments_are_what_runs(
    scripted: Any, assistant: Any, registry: SQLiteCaseRegistry
) -> None:
    bot = await assistant(scripted(_subscribe_script()))
    await bot.ask("t1", "Quero ser avisada das movimentações do tc 32/2023")
    edited = {"number": "TC/000032/2023", "contact": "joana@example.org"}
    await bot.resume("t1", {"action": "edit", "arguments": edited})
    assert [s.contact for s in registry.subscriptions()] == ["joana@example.org"]


async def test_rejection_does_nothing_and_the_agent_is_told(
    scripted: Any, assistant: Any, registry: SQLiteCaseRegistry
) -> None:
    roles = _subscribe_script()
    bot = await assistant(scripted(roles))
    await bot.ask("t1", "Quero ser avisada das movimentações do tc 32/2023")
    done = await bot.resume("t1", {"action": "reject", "reason": "mudei de ideia"})
    assert registry.subscriptions() == []
    assert done.status == "answered"
    assert "recusou" in done.answer and "mudei de ideia" in done.answer
    assert done.tools[-1]["decision"] == "reject"


async def test_capability_flags_switch_tools_off_and_refuse_them_if_called(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[
            call("transfer_to_rag", task="o que diz a LGPD?"),
            Reply(content="A consulta a documentos está desativada."),
        ]
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask(
        "t1",
        "o que diz a LGPD?",
        flags={"enable_rag_processing": False, "enable_system_search": False},
    )
    offered = roles.seen["main"][0].tool_names
    assert offered == ["ask_user"]  # neither handoff is offered
    assert result.handoffs == [] and result.agent == "main"
    refused = [m for m in roles.seen["main"][1].messages if m["role"] == "tool"]
    assert refused[0]["content"].startswith("Refused")
    # with search on and web off, the search agent has registry tools but no web search
    roles2 = Roles(
        main=[call("transfer_to_search", reason="x")],
        search=[Reply(content="ok"), Reply(content="Consultei o TC/000032/2023.")],
    )
    bot2 = await assistant(scripted(roles2))
    await bot2.ask("t2", "tc 32/2023", flags={"enable_web_search": True})
    names = roles2.seen["search"][0].tool_names
    assert "lookup_case" in names and "web_search" not in names  # web search not configured


async def test_quality_gate_chooses_the_passages_as_offline_and_the_model_writes_once(
    scripted: Any, assistant: Any
) -> None:
    # The gate scores the ranking's own answer on each attempt (rules rewrite the query), so
    # with a model the attempts and the chosen passages are those offline; the model then
    # writes once over them, and the quality reported is the written answer's.
    def half_supported(req: Any) -> dict[str, Any]:
        good = cited_answer(req)["citations"][0]
        return {
            "answer": f"Primeira afirmação, verificada [{good['passage']}]. "
            "Segunda afirmação, sem apoio algum no texto [P2].",
            "citations": [good, {"passage": "P2", "quote": "frase que não está no trecho"}],
        }

    question = "consentimento para dados de crianças"
    offline = await (await assistant(None)).ask("t0", question)
    roles = Roles(main=[call("transfer_to_rag", task=question)], answer=[half_supported])
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", question)
    assert len(roles.seen["answer"]) == 1 and roles.seen["rewrite"] == []
    assert result.status == "answered" and result.agent == "rag"
    lead = [c["chunk_id"] for c in result.citations if c["by"] == "ranking"]
    assert lead == [c["chunk_id"] for c in offline.citations]  # the same passages lead
    assert result.quality is not None and result.quality <= 0.7  # half its citations failed
    assert any("suporte parcial" in n for n in result.notes)
    assert all(c["passage"] != "P2" for c in result.citations)  # the unsupported one is gone


async def test_a_model_that_skips_the_registry_and_the_laws_is_routed_to_them(
    scripted: Any, assistant: Any
) -> None:
    invented = "O processo TC/000032/2023 está no Gabinete do Cons. Júlio Prates desde 2022."
    roles = Roles(
        main=[Reply(content=invented), Reply(content="A LGPD exige consentimento, sempre.")],
        search=[Reply(content=invented), Reply(content=invented)],
        answer=[cited_answer],
    )
    bot = await assistant(scripted(roles))
    first = await bot.ask("t1", "Onde está o processo TC/000032/2023?")
    assert [(h["from"], h["to"], h.get("guard")) for h in first.handoffs] == [
        ("main", "search", True)
    ]
    assert [(t["tool"], t["guard"]) for t in first.tools] == [("lookup_case", True)]
    assert first.facts[0]["status"] == "found"
    assert "Júlio" not in first.answer and first.answer.startswith("Processo TC/000032/2023")
    # a legal question to the search agent goes back to main and on to the documents
    roles.scripts["search"] = [Reply(content="Sobre a LGPD: não sei.")]
    # (one the rules leave to the model: a question naming a norm goes to the documents
    # before any model is asked, see test_assistant_rules_route.py)
    second = await bot.ask(
        "t1", "Qual o prazo para desistir de uma compra feita pela internet, fora da loja?"
    )
    assert [(h["from"], h["to"]) for h in second.handoffs] == [
        ("search", "main"),
        ("main", "rag"),
        ("rag", "main"),
    ]
    assert second.agent == "rag" and second.citations


async def test_a_model_stuck_repeating_a_lookup_is_answered_from_the_registry(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_search", reason="caso")],
        search=[lambda r: call("lookup_case", number="TC/000032/2023")],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", "onde está o TC/000032/2023?")
    assert result.status == "answered" and result.agent == "search"
    assert len(roles.seen["search"]) == 2  # the repeat ends the loop
    assert [t.get("refused") for t in result.tools] == [None, "repeated"]
    assert result.answer.startswith("Processo TC/000032/2023")


async def test_a_phrasing_that_does_not_name_the_case_is_replaced(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_search", reason="caso")],
        search=[call("lookup_case", number="tc 32/2023"), Reply(content="ask_user")],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", "onde está o tc 32/2023?")
    assert result.answer.startswith("Processo TC/000032/2023")


async def test_a_case_number_overrides_a_wrong_route_and_a_needless_question(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_rag", task="processo")],
        search=[call("ask_user", question="Qual o número?"), Reply(content="ok")],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", "Onde está o TC-000032-2023?")
    assert result.status == "answered"  # no question asked: the number was there
    assert [(h["from"], h["to"], h.get("guard")) for h in result.handoffs] == [
        ("main", "search", True)
    ]
    assert [(t["tool"], t["guard"]) for t in result.tools] == [("lookup_case", True)]
    assert result.answer.startswith("Processo TC/000032/2023")
