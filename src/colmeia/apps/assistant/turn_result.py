"""What a turn returns (:class:`TurnResult`) and how it is read from a thread's state once the
turn has ended — shared by the graph's route (:mod:`.session`) and the offline fast path
(:mod:`.frame_turn`), which must give the person the same result. Nothing here imports
LangGraph."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from colmeia.errors import InputError

__all__ = ["TurnResult", "answered_result", "check_thread"]

_THREAD_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:@")


def check_thread(thread_id: str) -> str:
    """``thread_id`` if it is a valid thread id; :class:`InputError` otherwise."""
    if not thread_id or len(thread_id) > 128 or not set(thread_id) <= _THREAD_CHARS:
        raise InputError(
            f"invalid thread id {thread_id!r}: use 1-128 letters, digits, '-', '_', '.', ':' or '@'"
        )
    return thread_id


@dataclass(slots=True)
class TurnResult:
    """How a turn ended and what the person gets to see."""

    thread_id: str
    status: str
    answer: str = ""
    agent: str = ""
    citations: list[dict[str, Any]] = field(default_factory=list)
    facts: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    waiting: dict[str, Any] | None = None
    handoffs: list[dict[str, Any]] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    mode: str = "model"
    usage: dict[str, Any] = field(default_factory=dict)
    quality: float | None = None
    turn: int = 0
    # Further passages the RAG agent ranked for the question, best first (after the citations).
    sources: list[dict[str, Any]] = field(default_factory=list)
    # How the model was called this turn ({"temperature": 0.0}; {} offline).
    settings: dict[str, Any] = field(default_factory=dict)
    # Why the answer is the one given without a model (the model left the turn unanswered:
    # "error", "step_limit", "handoff_limit", "empty_answer"), or None.
    fallback: str | None = None

    @property
    def waiting_for(self) -> str | None:
        return str(self.waiting.get("type")) if self.waiting else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "thread_id": self.thread_id,
            "turn": self.turn,
            "status": self.status,
            "answer": self.answer,
            "agent": self.agent,
            "citations": self.citations,
            "facts": self.facts,
            "notes": self.notes,
            "waiting": self.waiting,
            "handoffs": self.handoffs,
            "tools": self.tools,
            "mode": self.mode,
            "quality": self.quality,
            "usage": self.usage,
            "sources": self.sources,
            "settings": self.settings,
            "fallback": self.fallback,
        }


def answered_result(
    thread_id: str,
    state: dict[str, Any],
    mode: str,
    usage: dict[str, Any],
    settings: dict[str, Any],
) -> TurnResult:
    """The result of a turn that ended (not waiting for a person), from the thread's state."""
    turn = int(state.get("turn", 0))
    answer = state.get("answer") or {}
    return TurnResult(
        thread_id,
        str(state.get("status") or "answered"),
        str(answer.get("text", "")),
        str(answer.get("agent", "")),
        list(answer.get("citations", [])),
        list(answer.get("facts", [])),
        list(answer.get("notes", [])),
        None,
        [h for h in state.get("handoffs", []) if h.get("turn") == turn],
        [t for t in state.get("tool_log", []) if t.get("turn") == turn],
        mode,
        usage,
        answer.get("quality"),
        turn,
        sources=list(answer.get("sources", [])),
        settings=dict(settings),
        fallback=answer.get("fallback"),
    )
