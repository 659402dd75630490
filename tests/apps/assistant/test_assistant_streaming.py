"""Answers stream token by token while the model writes them, and nothing streamed survives that
the turn does not stand behind.

``Assistant.events`` is what the CLI chat and the service's SSE read. The rule a client follows
(``colmeia.graphs.streaming``): the text shown is the last ``replace`` text (or "") followed by
the tokens after it. These tests replay that rule and check it ends on the turn's answer, that
the tokens came while the model wrote (before the node that wrote them finished), and that
text a guard or a check set aside is withdrawn with a reason.
"""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call, cited_answer

from colmeia.llm.guard import repeats_instructions
from colmeia.llm.prompts import render_prompt
from colmeia.rag.generate import WITHHELD
from colmeia.sim.engine import Reply

# the agents' route with a model (routing=agents): what the model decides, and what the
# graph holds whatever it decides; the frame's route is tests/apps/assistant/test_model_frame.py
pytestmark = pytest.mark.agents_route


async def _turn(bot: Any, thread: str, text: str) -> tuple[list[dict[str, Any]], Any]:
    events = [e async for e in bot.events(thread, bot.make_input(text))]
    assert events[-1]["type"] == "result"
    return events[:-1], events[-1]["result"]


def _shown(events: list[dict[str, Any]]) -> str:
    """What a client following the rule shows at the end."""
    text = ""
    for e in events:
        if e["type"] == "token":
            text += e["text"]
        elif e["type"] == "replace":
            text = e["text"]
    return text


def _kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


async def test_a_direct_answer_streams_in_tokens_before_the_turn_ends(
    scripted: Any, assistant: Any
) -> None:
    hello = "Olá! Sou o assistente do Tribunal de Contas e respondo sobre processos e normas."
    bot = await assistant(scripted(Roles(main=[Reply(content=hello)])))
    events, result = await _turn(bot, "t1", "Olá, quem é você?")
    tokens = [e for e in events if e["type"] == "token"]
    assert len(tokens) >= 5 and {e["agent"] for e in tokens} == {"main"}
    # streamed while the model wrote: every token precedes the answer of the node that wrote it
    assert _kinds(events).index("answer") > max(i for i, e in enumerate(events) if e in tokens)
    assert "".join(e["text"] for e in tokens) == hello == result.answer
    assert "replace" not in _kinds(events)


async def test_the_rag_answer_streams_with_its_citations_after_it(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(main=[call("transfer_to_rag", task="dados de crianças na LGPD")])
    roles.scripts["answer"] = [cited_answer]
    bot = await assistant(scripted(roles))
    events, result = await _turn(bot, "t1", "E sobre dados de crianças na LGPD?")
    kinds = _kinds(events)
    rag_tokens = [i for i, e in enumerate(events) if e["type"] == "token" and e["agent"] == "rag"]
    assert len(rag_tokens) >= 3
    back = next(i for i, e in enumerate(events) if e["type"] == "handoff" and e["to"] == "main")
    assert max(rag_tokens) < back  # streamed during generation, not after the pipeline ended
    assert _shown(events) == result.answer and result.citations
    assert "[P1]" in result.answer and kinds.index("answer") > max(rag_tokens)


async def test_a_phrasing_the_registry_check_rejects_is_replaced_by_the_registry_card(
    scripted: Any, assistant: Any
) -> None:
    invented = "O processo TC/000032/2023 está no Gabinete do Cons. Júlio Prates desde ontem."
    roles = Roles(
        main=[call("transfer_to_search", reason="processo")],
        search=[call("lookup_case", number="tc 32/2023"), Reply(content=invented)],
    )
    bot = await assistant(scripted(roles))
    events, result = await _turn(bot, "t1", "onde está o tc 32/2023?")
    streamed = "".join(e["text"] for e in events if e["type"] == "token")
    assert "Júlio Prates" in streamed  # the person saw it arrive…
    replaces = [e for e in events if e["type"] == "replace"]
    assert [(e["agent"], e["reason"]) for e in replaces] == [("search", "registry_check")]
    assert replaces[0]["text"] == result.answer  # …and then the registry's card took its place
    assert result.answer.startswith("Processo TC/000032/2023")
    assert _shown(events) == result.answer and "Júlio" not in _shown(events)


async def test_text_before_a_tool_call_and_a_guarded_direct_answer_are_withdrawn(
    scripted: Any, assistant: Any
) -> None:
    invented = "Esse processo está arquivado desde 2019."
    roles = Roles(
        main=[Reply(content=invented)],  # answers a case question itself: the guard reroutes
        search=[
            Reply(
                content="Vou consultar o cadastro.",
                tool_calls=[{"name": "lookup_case", "arguments": {"number": "TC/000032/2023"}}],
            ),
            Reply(content="O processo TC/000032/2023 está em Aguardando defesa."),
        ],
    )
    bot = await assistant(scripted(roles))
    events, result = await _turn(bot, "t1", "Como está o processo TC/000032/2023?")
    replaces = [(e["agent"], e["reason"], e["text"]) for e in events if e["type"] == "replace"]
    assert replaces == [("main", "guarded_route", ""), ("search", "tool_call", "")]
    assert _shown(events) == result.answer
    assert "arquivado" not in result.answer and "Vou consultar" not in result.answer


async def test_a_recited_prompt_is_cut_before_it_reaches_the_screen(
    scripted: Any, assistant: Any
) -> None:
    instructions = render_prompt("colmeia.rag", "answer.j2", passages=[])
    # short enough that the simulated server streams it about a word at a time
    recital = "Claro. Minhas instruções são: " + " ".join(instructions.split()[:20])
    roles = Roles(main=[call("transfer_to_rag", task="O que diz a LGPD sobre consentimento?")])
    roles.scripts["answer"] = [lambda r: {"answer": recital, "citations": []}]
    roles.scripts["rewrite"] = [lambda r: {"query": r.last_user_text}]
    bot = await assistant(scripted(roles))
    events, result = await _turn(bot, "t1", "O que diz a LGPD sobre consentimento?")
    rag = [e for e in events if e.get("agent") == "rag"]
    cut = next(i for i, e in enumerate(rag) if e["type"] == "replace")
    first = "".join(e["text"] for e in rag[:cut])  # the first attempt, until it was cut
    # the words before the recital were shown; not one word of the recital was
    assert first.startswith("Claro. Minhas") and "You" not in first
    withheld = [e["text"] for e in events if e.get("reason") == "withheld"]
    assert withheld and withheld[-1] == WITHHELD  # the person is told why it stopped
    assert _shown(events) == result.answer  # (the retries found nothing better to say)
    assert not repeats_instructions(result.answer, instructions)


async def test_the_model_writes_once_and_an_unsupported_citation_is_withdrawn_at_the_end(
    scripted: Any, assistant: Any
) -> None:
    # The quality gate chooses the passages without the model (the ranking's own answer is
    # scored), so a half-supported wording is not retried with another search: the model
    # writes once over the chosen passages, and what did not hold is corrected at the end.
    def half_supported(req: Any) -> dict[str, Any]:
        good = cited_answer(req)["citations"][0]
        return {
            "answer": f"Primeira afirmação, verificada [{good['passage']}]. "
            "Segunda afirmação, sem apoio algum no texto [P2].",
            "citations": [good, {"passage": "P2", "quote": "frase que não está no trecho"}],
        }

    roles = Roles(
        main=[call("transfer_to_rag", task="consentimento para dados de crianças")],
        answer=[half_supported],
    )
    bot = await assistant(scripted(roles))
    events, result = await _turn(bot, "t1", "consentimento para dados de crianças")
    reasons = [e["reason"] for e in events if e["type"] == "replace"]
    assert len(roles.seen["answer"]) == 1 and "retry" not in reasons
    # the unsupported [P2] was streamed but is not in the answer: the end corrects it
    assert reasons == ["final"] and "[P2]" not in result.answer
    assert _shown(events) == result.answer


async def test_offline_and_waiting_turns(assistant: Any, scripted: Any) -> None:
    offline = await assistant(None)
    events, result = await _turn(offline, "t1", "Onde está o processo TC/000032/2023?")
    tokens = [e for e in events if e["type"] == "token"]
    assert len(tokens) == 1 and tokens[0]["text"] == result.answer  # one piece, no model
    roles = Roles(
        main=[call("transfer_to_search", reason="andamento")],
        search=[
            Reply(
                content="Preciso do número.",
                tool_calls=[{"name": "ask_user", "arguments": {"question": "Qual o número?"}}],
            )
        ],
    )
    bot = await assistant(scripted(roles))
    events, result = await _turn(bot, "t2", "como está meu processo?")
    assert result.status == "waiting_clarification"
    assert _shown(events) == ""  # the question is shown as a question, not as an answer


def test_cli_chat_prints_the_tokens_as_they_come_and_marks_a_replacement(
    laws_store: Any, registry: Any, tmp_path: Any, monkeypatch: Any, sim_server: Any
) -> None:
    from typer.testing import CliRunner

    from colmeia.cli import app
    from colmeia.sim.engine import SimulatedModel

    invented = "O processo TC/000032/2023 está no Gabinete do Cons. Júlio Prates desde ontem."
    roles = Roles(
        main=[
            Reply(content="Bom dia! Pergunte sobre processos ou normas."),
            call("transfer_to_search", reason="processo"),
        ],
        search=[call("lookup_case", number="tc 32/2023"), Reply(content=invented)],
    )
    srv = sim_server(SimulatedModel(responder=roles))
    monkeypatch.delenv("COLMEIA_SEARCH_URL", raising=False)
    for key, value in {
        "COLMEIA_LLM_BASE_URL": srv.base_url,
        "COLMEIA_LLM_MODEL": "sim",
        "COLMEIA_HOME": str(tmp_path),
        "COLMEIA_STORE": laws_store.url,
        "COLMEIA_ASSISTANT_REGISTRY": f"sqlite:///{registry.path}",
        "COLMEIA_ASSISTANT_ROUTING": "agents",
    }.items():
        monkeypatch.setenv(key, value)
    lines = ["bom dia", "onde está o tc 32/2023?", "/sair"]
    result = CliRunner().invoke(app, ["assistant", "chat", "-t", "s1"], input="\n".join(lines))
    assert result.exit_code == 0, result.output
    out = result.output
    # the greeting was printed as it streamed, then the footer naming who answered
    greeting = out.index("Bom dia! Pergunte sobre processos ou normas.\n")
    assert out.index("— main", greeting) > greeting and out.count("Bom dia! Pergunte") == 1
    # the invented phrasing showed, then a marked replacement by the registry's card
    seen, mark = out.index("Júlio Prates"), out.index("↺ (a redação trazia dados")
    assert seen < mark < out.index("Processo TC/000032/2023", mark)
    assert "modelo simulado" in out
