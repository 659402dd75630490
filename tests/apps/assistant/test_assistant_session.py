"""A conversation with the assistant as a program drives it (:mod:`colmeia.apps.assistant.session`):
what a turn that waits for the person says (who asks, what, and only this turn's handoffs and
tools), how each turn records the way the model was called (or that none was), the
conversation as the person saw it, the threads listed and deleted, and the sentence that tells
a caller what to do when a thread is not in the state its call needs. The scripted model answers
each agent by its role; the registry, the laws and the checkpointer are real."""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call

from colmeia.apps.assistant.offline import OFFLINE_MODEL
from colmeia.errors import InputError
from colmeia.sim.engine import Reply

# the agents' route with a model (routing=agents), as in test_assistant_graph.py
pytestmark = pytest.mark.agents_route

CARD_START = "Processo TC/000032/2023 — Representação / Licitação"
SUBSCRIBE = "Registrar ana@example.org para receber avisos de movimentação de TC/000032/2023."


def _lookup_then_subscribe() -> Roles:
    """Turn 1 looks the case up; turn 2 asks to subscribe to it (an approval)."""
    return Roles(
        main=[call("transfer_to_search", reason="andamento")],
        search=[
            call("lookup_case", number="TC 32/2023"),
            Reply(content="Consultei o processo TC/000032/2023."),
            call("subscribe_updates", number="TC/000032/2023", contact="ana@example.org"),
            lambda r: Reply(content=r.messages[-1]["content"]),
        ],
    )


async def test_a_turn_waiting_for_an_approval_says_what_and_only_what_this_turn_did(
    scripted: Any, assistant: Any
) -> None:
    bot = await assistant(scripted(_lookup_then_subscribe()), temperature=0.3)
    first = await bot.ask("t1", "como está o TC 32/2023?")
    assert [(h["from"], h["to"], h["turn"]) for h in first.handoffs] == [("main", "search", 1)]
    assert [(t["tool"], t["turn"]) for t in first.tools] == [("lookup_case", 1)]
    waiting = await bot.ask("t1", "quero ser avisada das movimentações dele pelo ana@example.org")
    assert (waiting.thread_id, waiting.turn, waiting.status) == ("t1", 2, "waiting_approval")
    # what is asked is the approval's description, by the agent that asks it
    assert (waiting.answer, waiting.agent) == (SUBSCRIBE, "search")
    assert waiting.waiting is not None and waiting.waiting_for == "approval"
    assert (waiting.waiting["tool"], waiting.waiting["description"]) == (
        "subscribe_updates",
        SUBSCRIBE,
    )
    # turn 1's handoff and lookup are not this turn's
    assert waiting.handoffs == [] and waiting.tools == []
    assert (waiting.mode, waiting.settings) == ("model", {"temperature": 0.3})
    assert waiting.usage["calls"] >= 1  # the model calls the turn made before it paused
    done = await bot.resume("t1", {"action": "approve"})
    assert (done.turn, done.status) == (2, "answered")
    assert [(t["tool"], t["turn"], t["decision"]) for t in done.tools] == [
        ("subscribe_updates", 2, "approve")
    ]


async def test_a_turn_waiting_for_an_answer_shows_the_question_and_the_handoff_that_led_there(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[Reply(content="Olá!"), call("transfer_to_search", reason="andamento")],
        search=[call("ask_user", question="Qual é o número do processo?")],
    )
    bot = await assistant(scripted(roles))
    await bot.ask("t1", "Olá")
    waiting = await bot.ask("t1", "como está meu processo?")
    assert (waiting.thread_id, waiting.turn, waiting.status) == ("t1", 2, "waiting_clarification")
    assert (waiting.answer, waiting.agent) == ("Qual é o número do processo?", "search")
    assert [(h["from"], h["to"], h["turn"]) for h in waiting.handoffs] == [("main", "search", 2)]
    assert waiting.as_dict()["waiting"] == {
        "type": "clarification",
        "question": "Qual é o número do processo?",
        "agent": "search",
    }


async def test_each_turn_records_how_the_model_was_called_or_that_none_was(
    scripted: Any, assistant: Any
) -> None:
    model = await assistant(scripted(Roles(main=[Reply(content="Olá!")])), temperature=0.3)
    said = await model.ask("t1", "Olá")
    assert (said.mode, said.settings) == ("model", {"temperature": 0.3})
    offline = await assistant(None)
    answered = await offline.ask("t2", "O que é fornecedor segundo o CDC?")
    assert answered.status == "answered"
    assert (answered.mode, answered.settings) == (OFFLINE_MODEL, {})


async def test_the_history_is_the_conversation_as_the_person_saw_it(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[Reply(content="Olá!"), call("transfer_to_search", reason="andamento")],
        search=[
            call("ask_user", question="Qual é o número do processo?"),
            lambda r: call("lookup_case", number=r.messages[-1]["content"].split(": ")[-1]),
            Reply(content="Consultei o processo TC/000032/2023."),
        ],
    )
    bot = await assistant(scripted(roles))
    await bot.ask("t1", "Olá")
    await bot.ask("t1", "como está meu processo?")
    await bot.ask("t1", "é este: TC 32/2023")
    history = await bot.history("t1")
    assert [(m["turn"], m["role"], m.get("agent")) for m in history] == [
        (1, "user", None),
        (1, "assistant", "main"),
        (2, "user", None),
        (2, "assistant", "search"),  # the question asked back
        (2, "user", None),  # the reply to it
        (2, "assistant", "search"),
    ]
    assert [m["text"] for m in history[:4]] == [
        "Olá",
        "Olá!",
        "como está meu processo?",
        "Qual é o número do processo?",
    ]
    # the reply as the person typed it (a colon of theirs kept), with how the assistant read it
    assert history[4]["text"] == "é este: TC 32/2023 (lido como processo TC/000032/2023)"
    assert history[5]["text"].startswith(CARD_START)


async def test_the_history_shows_the_question_asked_when_the_model_gave_none(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(main=[call("transfer_to_search", reason="andamento")], search=[call("ask_user")])
    bot = await assistant(scripted(roles))
    asked = await bot.ask("t1", "como está meu processo?")
    assert (asked.status, asked.answer) == ("waiting_clarification", "Pode dar mais detalhes?")
    history = await bot.history("t1")
    assert [(m["role"], m["text"]) for m in history] == [
        ("user", "como está meu processo?"),
        ("assistant", "Pode dar mais detalhes?"),
    ]


async def test_the_history_of_an_offline_turn_shows_the_question_asked_back(
    assistant: Any,
) -> None:
    bot = await assistant(None)
    asked = await bot.ask("t1", "como está meu processo?")
    assert asked.status == "waiting_clarification"
    assert (asked.mode, asked.settings) == (OFFLINE_MODEL, {})
    await bot.ask("t1", "TC 32/2023")
    history = await bot.history("t1")
    assert [(m["turn"], m["role"], m.get("agent")) for m in history] == [
        (1, "user", None),
        (1, "assistant", "main"),
        (1, "user", None),
        (1, "assistant", "main"),
    ]
    assert [m["text"] for m in history[:3]] == [
        "como está meu processo?",
        asked.answer,
        "TC 32/2023",
    ]
    assert history[3]["text"].startswith(CARD_START)


async def test_threads_are_listed_most_recent_first_and_deleted_once(
    scripted: Any, assistant: Any
) -> None:
    bot = await assistant(None)
    await bot.ask("older", "O que é fornecedor segundo o CDC?")
    await bot.ask("newer", "O que é consumidor segundo o CDC?")
    assert [t.thread_id for t in await bot.threads()] == ["newer", "older"]
    assert await bot.delete("older") is True
    assert await bot.delete("older") is False
    assert [t.thread_id for t in await bot.threads()] == ["newer"]
    assert await bot.history("older") == []
    with pytest.raises(InputError, match="invalid thread id"):
        await bot.delete("a thread?")


async def test_a_call_the_thread_is_not_ready_for_says_what_to_do_instead(
    scripted: Any, assistant: Any
) -> None:
    bot = await assistant(scripted(_lookup_then_subscribe()))
    await bot.ask("t1", "como está o TC 32/2023?")
    with pytest.raises(InputError) as not_waiting:
        await bot.resume("t1", {"action": "approve"})
    assert str(not_waiting.value) == (
        "thread 't1' is not waiting for an approval or an answer; ask a new question instead"
    )
    with pytest.raises(InputError) as nothing:
        await bot.resume_command("t1", {"action": "approve"})
    assert str(nothing.value) == "thread 't1' is not waiting for anything"
    await bot.ask("t1", "quero ser avisada das movimentações dele pelo ana@example.org")
    with pytest.raises(InputError) as approve_first:
        await bot.ask("t1", "sim, pode inscrever")
    assert str(approve_first.value) == (
        "thread 't1' is waiting for an approval; approve or reject it first (resume)"
    )


async def test_a_streamed_turn_resumes_an_approval_with_the_checked_command(
    scripted: Any, assistant: Any, registry: Any
) -> None:
    bot = await assistant(scripted(_lookup_then_subscribe()))
    await bot.ask("t1", "como está o TC 32/2023?")
    await bot.ask("t1", "quero ser avisada das movimentações dele pelo ana@example.org")
    with pytest.raises(InputError, match="approval"):
        await bot.resume_command("t1", {"text": "talvez"})
    command = await bot.resume_command("t1", {"action": "approve"})
    events = [e async for e in bot.events("t1", command)]
    result = events[-1]["result"]
    assert (result.thread_id, result.turn, result.status) == ("t1", 2, "answered")
    assert result.answer.startswith("Inscrição registrada: ana@example.org")
    assert [(s.number, s.contact) for s in registry.subscriptions()] == [
        ("TC/000032/2023", "ana@example.org")
    ]
    tools = [e for e in events if e["type"] == "tool"]
    assert [(t["tool"], t["decision"]) for t in tools] == [("subscribe_updates", "approve")]


async def test_an_offline_answer_streams_as_one_token_of_the_agent_that_answered(
    assistant: Any,
) -> None:
    bot = await assistant(None)
    events = [e async for e in bot.events("t1", bot.make_input("onde está o TC-000032-2023?"))]
    result = events[-1]["result"]
    assert [e["type"] for e in events] == ["handoff", "tool", "token", "answer", "result"]
    handoff, tool, token, answer = events[:4]
    assert (handoff["from"], handoff["to"], handoff["turn"]) == ("main", "search", 1)
    assert (tool["tool"], tool["arguments"], tool["turn"]) == (
        "lookup_case",
        {"number": "TC/000032/2023"},
        1,
    )
    assert token == {"type": "token", "agent": "search", "text": result.answer}
    assert (answer["agent"], answer["text"]) == ("search", result.answer)
    assert result.answer.startswith(CARD_START)
    # a turn that waits shows its question by itself, not as an answer: no token
    waiting = [e async for e in bot.events("t2", bot.make_input("como está meu processo?"))]
    assert [e["type"] for e in waiting] == ["result"]
    assert waiting[0]["result"].status == "waiting_clarification"


async def test_a_new_questions_input_carries_its_flags_and_attachments(assistant: Any) -> None:
    bot = await assistant(None)
    given = bot.make_input(
        "  o que diz o edital?  ", {"enable_web_search": True}, ["docs/edital.pdf"]
    )
    assert [m.content for m in given["messages"]] == ["o que diz o edital?"]
    assert given["flags"]["enable_web_search"] is True
    assert given["attachments"] == ["docs/edital.pdf"]
