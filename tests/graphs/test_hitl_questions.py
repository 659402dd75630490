"""Human in the loop, as a thread sees it: what an approval or a clarification pauses with, what
the person's reply becomes, which replies are refused and with what words, and the key a side
effect is done under (a real LangGraph graph with an in-memory checkpointer)."""

from __future__ import annotations

import hashlib
import re
from typing import Any, TypedDict

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command

from colmeia.errors import InputError
from colmeia.graphs.hitl import (
    ApprovalRequest,
    Clarification,
    ask_approval,
    ask_clarification,
    idempotency_key,
    parse_resume,
)


class _State(TypedDict, total=False):
    got: Any


def _thread(node: Any) -> Any:
    graph: StateGraph[_State] = StateGraph(_State)
    graph.add_node("ask", node)
    graph.add_edge(START, "ask")
    graph.add_edge("ask", END)
    return graph.compile(checkpointer=InMemorySaver())


def _pause_and_resume(node: Any, reply: Any) -> tuple[Any, Any]:
    """What the thread paused with, and the node's result once resumed with ``reply``."""
    thread = _thread(node)
    config: Any = {"configurable": {"thread_id": "t1"}}
    paused = thread.invoke({}, config)["__interrupt__"][0].value
    return paused, thread.invoke(Command(resume=reply), config)["got"]


def _approval(state: _State) -> _State:
    request = ApprovalRequest(
        tool="send_email", arguments={"to": "ana@example.org"}, call_id="c1", agent="cases"
    )
    return {"got": ask_approval(request).model_dump()}


def _clarification(state: _State) -> _State:
    return {"got": ask_clarification(Clarification(question="Qual processo?", agent="cases"))}


def test_an_approval_pauses_with_the_request_and_resumes_with_the_decision() -> None:
    paused, decision = _pause_and_resume(
        _approval, {"action": "edit", "arguments": {"to": "bia@example.org"}}
    )
    assert paused == {
        "type": "approval",
        "tool": "send_email",
        "arguments": {"to": "ana@example.org"},
        "call_id": "c1",
        "agent": "cases",
        "description": "",
    }
    assert decision == {"action": "edit", "arguments": {"to": "bia@example.org"}, "reason": ""}


@pytest.mark.parametrize(
    ("reply", "answer"),
    [
        ({"answer": "  TC/001950/2023 "}, "TC/001950/2023"),
        (" 1950/2023 ", "1950/2023"),
        ({"text": "x"}, ""),
    ],
)
def test_a_clarification_pauses_with_the_question_and_resumes_with_the_answer_trimmed(
    reply: Any, answer: str
) -> None:
    paused, got = _pause_and_resume(_clarification, reply)
    assert paused == {"type": "clarification", "question": "Qual processo?", "agent": "cases"}
    assert got == answer


def _refused(text: str) -> Any:
    return pytest.raises(InputError, match=f"^{re.escape(text)}$")


def test_an_approval_reply_is_checked_before_the_thread_resumes() -> None:
    pending = {"type": "approval", "tool": "send_email"}
    assert parse_resume(pending, {"action": "reject", "reason": "não"}) == {
        "action": "reject",
        "arguments": None,
        "reason": "não",
    }
    assert parse_resume(pending, {"action": "edit", "arguments": {"to": "x"}})["arguments"] == {
        "to": "x"
    }
    with _refused(
        "this thread waits for an approval: approve, reject, or edit the arguments of 'send_email'"
    ):
        parse_resume(pending, {"action": "maybe"})
    for empty in ({"action": "edit"}, {"action": "edit", "arguments": {}}):
        with _refused("an edit needs the new arguments (a JSON object)"):
            parse_resume(pending, empty)


def test_a_clarification_reply_must_be_a_text() -> None:
    pending = {"type": "clarification"}
    assert parse_resume(pending, {"answer": "  Ana "}) == {"answer": "Ana"}
    assert parse_resume(pending, " Ana ") == {"answer": "Ana"}
    for bad in ("   ", {"answer": ""}, {"text": "Ana"}, 42):
        with _refused("this thread waits for an answer to its question: give a text"):
            parse_resume(pending, bad)


def test_a_thread_waiting_for_nothing_refuses_a_reply() -> None:
    with _refused("this thread is not waiting for anything; ask a new question instead"):
        parse_resume({"type": "other"}, "x")


def test_a_side_effect_is_keyed_by_thread_call_and_tool() -> None:
    key = idempotency_key("t1", "c1", "send_email")
    digest = hashlib.sha256(b"t1\x1fc1\x1fsend_email").hexdigest()
    assert key == f"send_email:{digest[:32]}"
    assert idempotency_key("t1", "c1", "send_email") == key
    others = {idempotency_key("t2", "c1", "send_email"), idempotency_key("t1", "c2", "send_email")}
    assert key not in others and len(others) == 2
    # the separator keeps "t1" + "c1x" apart from "t1c" + "1x"
    assert idempotency_key("t1", "c1x", "s") != idempotency_key("t1c", "1x", "s")
