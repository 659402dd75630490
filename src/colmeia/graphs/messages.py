"""Conversation messages kept in graph state: stable ids, the agent that wrote them, and a
reducer that deduplicates.

LangGraph re-runs a node from its start when a thread resumes after an interrupt, and a
client may send the same input twice; a reducer that only appended would then store the
same message twice. :func:`merge_messages` keys messages by ``id``: a message whose id is
already in the list replaces it in place, a new one is appended.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from colmeia.llm.base import Message, ToolCall

__all__ = [
    "ChatMessage",
    "merge_messages",
    "new_id",
    "to_llm",
]

Role = Literal["system", "user", "assistant", "tool"]


def new_id(prefix: str = "m") -> str:
    """A new message id."""
    return f"{prefix}-{uuid.uuid4().hex[:16]}"


@dataclass(slots=True)
class ChatMessage:
    """One message of a conversation as the graph keeps it.

    ``agent`` is who wrote it (``user`` for the person), ``turn`` the turn it belongs to.
    Tool calls are plain dicts (``id``, ``name``, ``arguments``) so checkpoints stay simple.
    """

    id: str
    role: Role
    content: str = ""
    agent: str = ""
    turn: int = 0
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    tool_call_id: str = ""
    name: str = ""
    kind: str = ""  # "answer", "handoff", "clarification", "note", … for views and UIs

    @classmethod
    def user(cls, content: str, *, turn: int = 0, id: str | None = None) -> ChatMessage:
        return cls(id or new_id("u"), "user", content, "user", turn)

    @classmethod
    def assistant(
        cls,
        content: str,
        *,
        agent: str,
        turn: int = 0,
        tool_calls: Sequence[ToolCall] = (),
        kind: str = "",
        id: str | None = None,
    ) -> ChatMessage:
        calls = [{"id": c.id, "name": c.name, "arguments": dict(c.arguments)} for c in tool_calls]
        return cls(id or new_id("a"), "assistant", content, agent, turn, calls, kind=kind)

    @classmethod
    def tool(
        cls, call_id: str, name: str, content: str, *, agent: str, turn: int = 0
    ) -> ChatMessage:
        # A tool result's id follows from its call: a node that runs again after a resume
        # writes the same id, and the reducer keeps one copy.
        return cls(f"t-{call_id}", "tool", content, agent, turn, [], call_id, name)

    def calls(self) -> list[ToolCall]:
        return [
            ToolCall(c["id"], c["name"], dict(c.get("arguments") or {})) for c in self.tool_calls
        ]

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "role": self.role,
            "content": self.content,
            "agent": self.agent,
            "turn": self.turn,
            "tool_calls": self.tool_calls,
            "tool_call_id": self.tool_call_id,
            "name": self.name,
            "kind": self.kind,
        }


def merge_messages(
    left: Sequence[ChatMessage] | None, right: ChatMessage | Iterable[ChatMessage] | None
) -> list[ChatMessage]:
    """The state reducer: messages with a known id replace it, new ones are appended."""
    out = list(left or [])
    if right is None:
        return out
    items = [right] if isinstance(right, ChatMessage) else list(right)
    where = {m.id: i for i, m in enumerate(out)}
    for m in items:
        i = where.get(m.id)
        if i is None:
            where[m.id] = len(out)
            out.append(m)
        else:
            out[i] = m
    return out


def to_llm(messages: Iterable[ChatMessage]) -> list[Message]:
    """The model-layer messages for a view (ids and agents are ours, not the model's)."""
    out: list[Message] = []
    for m in messages:
        if m.role == "tool":
            out.append(Message.tool(m.tool_call_id, m.content, m.name or None))
        elif m.role == "assistant":
            out.append(Message.assistant(m.content or None, m.calls()))
        else:
            out.append(Message(m.role, m.content))
    return out
