"""The graph helpers on their own: the reducer, handoff planning, views, checkpointers."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from colmeia.errors import InputError
from colmeia.graphs import (
    ChatMessage,
    Handoff,
    build_view,
    delete_thread,
    handoff_command,
    list_threads,
    merge_messages,
    open_checkpointer,
    parse_resume,
    plan_tool_calls,
)
from colmeia.llm.base import ToolCall
from pg import PG_URL, drop_schema, new_schema, postgres_unreachable

TO_B = Handoff("b", "state", "to b")
TO_C = Handoff("c", "task", "to c")


def test_the_reducer_replaces_by_id_and_appends_new_messages() -> None:
    a, b = ChatMessage.user("oi", id="1"), ChatMessage.user("tudo bem?", id="2")
    merged = merge_messages([a], [b, dataclasses.replace(a, content="olá")])
    assert [(m.id, m.content) for m in merged] == [("1", "olá"), ("2", "tudo bem?")]
    # the same update twice (a node re-run after a resume) leaves one copy
    again = merge_messages(merged, [b])
    assert len(again) == 2
    result = ChatMessage.tool("call-9", "lookup", "ok", agent="x")
    assert merge_messages([result], [ChatMessage.tool("call-9", "lookup", "ok", agent="x")]) == [
        result
    ]


def test_one_handoff_per_turn_and_only_alone() -> None:
    lookup = ToolCall("1", "lookup", {})
    to_b = ToolCall("2", "transfer_to_b", {"reason": "x"})
    to_c = ToolCall("3", "transfer_to_c", {"task": "y"})
    alone = plan_tool_calls([to_b], [TO_B, TO_C])
    assert alone.handoff is not None and alone.handoff[1] is TO_B and not alone.refused
    beside = plan_tool_calls([lookup, to_b], [TO_B, TO_C])
    assert beside.handoff is None and beside.calls == [lookup]
    assert [c.id for c, _ in beside.refused] == ["2"]
    two = plan_tool_calls([to_b, to_c], [TO_B, TO_C])
    assert two.handoff is None and {c.id for c, _ in two.refused} == {"2", "3"}


def test_handoff_commands_carry_the_tool_result_and_stop_at_the_cap() -> None:
    to_c = ToolCall("3", "transfer_to_c", {"task": "resuma a lei", "context": "LGPD"})
    cmd = handoff_command(
        to_c, TO_C, source="a", turn=2, handoffs_so_far=0, max_handoffs=2, limit_node="end"
    )
    assert cmd.goto == "c"
    update: dict[str, Any] = cmd.update  # type: ignore[assignment]
    assert update["handoff"]["task"] == "resuma a lei" and update["active_agent"] == "c"
    assert update["messages"][0].tool_call_id == "3"
    capped = handoff_command(
        to_c, TO_C, source="a", turn=2, handoffs_so_far=2, max_handoffs=2, limit_node="end"
    )
    assert capped.goto == "end"
    assert capped.update["status"] == "handoff_limit"  # type: ignore[index]


def _conversation(turns: int) -> list[ChatMessage]:
    out: list[ChatMessage] = []
    for t in range(1, turns + 1):
        out.append(ChatMessage.user(f"pergunta número {t} " + "palavra " * 40, turn=t))
        out.append(
            ChatMessage.assistant(
                f"resposta número {t} " + "texto " * 40, agent="a", turn=t, kind="answer"
            )
        )
    return out


def test_views_summarise_past_the_budget_and_hide_other_agents_tools() -> None:
    messages = _conversation(6)
    other = ChatMessage.assistant(
        "", agent="b", turn=6, tool_calls=[ToolCall("x1", "lookup", {"n": 1})]
    )
    messages += [other, ChatMessage.tool("x1", "lookup", "segredo do b", agent="b", turn=6)]
    messages.append(ChatMessage.user("pergunta atual", turn=7))
    view = build_view(messages, agent="a", instructions="Você é A.", turn=7, budget_tokens=250)
    text = " ".join(m.content or "" for m in view.messages)
    assert view.summarised_turns >= 3
    assert "Resumo das conversas anteriores" in (view.messages[0].content or "")
    assert "pergunta número 1" in (view.messages[0].content or "")  # summarised, not lost
    assert view.messages[-1].content == "pergunta atual"
    assert "segredo do b" not in text
    roomy = build_view(messages, agent="a", instructions="A", turn=7, budget_tokens=100_000)
    assert roomy.summarised_turns == 0
    assert len(roomy.tokens.__str__()) > 0 and roomy.tokens > view.tokens


def test_a_task_view_holds_only_the_task() -> None:
    handoff = {"from": "a", "to": "c", "task": "resuma o art. 14", "context": "LGPD", "turn": 3}
    view = build_view(
        _conversation(3),
        agent="c",
        instructions="Você é C.",
        turn=3,
        handoff=handoff,
        task_only=True,
    )
    assert [m.role for m in view.messages] == ["system", "user"]
    assert view.messages[1].content == "resuma o art. 14\n\nContexto: LGPD"


def test_resume_values_are_checked_against_what_the_thread_waits_for() -> None:
    approval = {"type": "approval", "tool": "send"}
    assert parse_resume(approval, {"action": "approve"})["action"] == "approve"
    with pytest.raises(InputError, match="waits for an approval"):
        parse_resume(approval, "sim")
    with pytest.raises(InputError, match="new arguments"):
        parse_resume(approval, {"action": "edit"})
    assert parse_resume({"type": "clarification"}, " TC 1/2024 ") == {"answer": "TC 1/2024"}
    with pytest.raises(InputError, match="not waiting"):
        parse_resume({}, "x")


class _State(TypedDict, total=False):
    messages: Annotated[list[ChatMessage], merge_messages]
    extra: Any


@dataclasses.dataclass
class Unlisted:
    """A type that is not on the serialiser's allow-list."""

    value: int


def _ask(state: _State) -> dict[str, Any]:
    name = interrupt({"question": "nome?"})
    return {"messages": [ChatMessage.user(f"sou {name}", id="answer")]}


def _graph(saver: Any) -> Any:
    g: StateGraph[_State] = StateGraph(_State)
    g.add_node("ask", _ask)
    g.add_edge(START, "ask")
    g.add_edge("ask", END)
    return g.compile(checkpointer=saver)


async def _round_trip(url: str) -> None:
    cfg: Any = {"configurable": {"thread_id": "t1"}}
    async with open_checkpointer(url, allowed=[ChatMessage]) as saver:
        graph = _graph(saver)
        first = await graph.ainvoke(
            {"messages": [ChatMessage.user("oi", id="q")], "extra": Unlisted(7)}, cfg
        )
        assert first["__interrupt__"][0].value == {"question": "nome?"}
    # a new checkpointer (as after a restart) resumes the thread
    async with open_checkpointer(url, allowed=[ChatMessage]) as saver:
        graph = _graph(saver)
        done = await graph.ainvoke(Command(resume="Ana"), cfg)
        assert [m.content for m in done["messages"]] == ["oi", "sou Ana"]
        assert isinstance(done["messages"][0], ChatMessage)  # allow-listed: rebuilt
        assert not isinstance(done["extra"], Unlisted)  # not allow-listed: left as data
        assert [t.thread_id for t in await list_threads(saver)] == ["t1"]
        assert await delete_thread(saver, "t1") is True
        assert await list_threads(saver) == []
        assert await delete_thread(saver, "t1") is False


async def test_sqlite_checkpointer_round_trip(tmp_path: Path) -> None:
    await _round_trip(f"sqlite:///{tmp_path / 'threads.db'}")


@pytest.mark.postgres
@pytest.mark.skipif(postgres_unreachable() is not None, reason=str(postgres_unreachable()))
async def test_postgres_checkpointer_round_trip() -> None:
    schema = new_schema()
    try:
        await _round_trip(f"{PG_URL}?schema={schema}")
    finally:
        drop_schema(schema)


async def test_checkpoint_urls_are_checked() -> None:
    from colmeia.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="sqlite:///"):
        async with open_checkpointer("redis://localhost"):
            pass
    with pytest.raises(ConfigurationError, match="schema"):
        async with open_checkpointer(f"{PG_URL}?schema=bad;name"):
            pass
