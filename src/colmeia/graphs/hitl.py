"""Human in the loop: clarifying questions and approvals, each one ``interrupt()`` in a node.

LangGraph re-runs a node from its start when the thread resumes, so a node that interrupts
must do nothing irreversible before its ``interrupt()`` call, and must ask at most once (with
several interrupts in one node, resume values are matched by position, which breaks as soon
as the node's path changes). The helpers here ask exactly one thing; the graph asks the
next in another run of the node. A side effect runs after approval, keyed by
:func:`idempotency_key`, so a repeat after a crash does not do it twice.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

from langgraph.types import interrupt
from pydantic import BaseModel, Field, ValidationError

from colmeia.errors import InputError

__all__ = [
    "Approval",
    "ApprovalRequest",
    "Clarification",
    "ask_approval",
    "ask_clarification",
    "idempotency_key",
    "parse_resume",
]


class ApprovalRequest(BaseModel):
    """What a person is asked to approve: a tool with side effects and its arguments."""

    type: Literal["approval"] = "approval"
    tool: str
    arguments: dict[str, Any]
    call_id: str
    agent: str
    description: str = ""


class Clarification(BaseModel):
    """A question for the person, asked when the request is too ambiguous to act on."""

    type: Literal["clarification"] = "clarification"
    question: str
    agent: str


class Approval(BaseModel):
    """The person's decision: approve, reject, or approve with edited arguments."""

    action: Literal["approve", "reject", "edit"]
    arguments: dict[str, Any] | None = Field(
        default=None, description="The edited arguments (action=edit)."
    )
    reason: str = ""


def ask_approval(request: ApprovalRequest) -> Approval:
    """Pause the thread until a person decides on ``request`` (one interrupt per node)."""
    value = interrupt(request.model_dump())
    return Approval.model_validate(value)


def ask_clarification(question: Clarification) -> str:
    """Pause the thread until the person answers ``question``; returns the answer."""
    value = interrupt(question.model_dump())
    return str(value.get("answer", "") if isinstance(value, dict) else value).strip()


def parse_resume(pending: dict[str, Any], value: Any) -> Any:
    """Check a resume value against what the thread waits for, before resuming it.

    Raises :class:`InputError` naming what is expected: an approval needs
    ``{"action": "approve"|"reject"|"edit", "arguments": {...}}``; a clarification a text.
    """
    kind = pending.get("type")
    if kind == "approval":
        try:
            decision = Approval.model_validate(value)
        except ValidationError:
            raise InputError(
                "this thread waits for an approval: approve, reject, or edit the arguments "
                f"of {pending.get('tool')!r}"
            ) from None
        if decision.action == "edit" and not decision.arguments:
            raise InputError("an edit needs the new arguments (a JSON object)")
        return decision.model_dump()
    if kind == "clarification":
        text = value.get("answer") if isinstance(value, dict) else value
        if not isinstance(text, str) or not text.strip():
            raise InputError("this thread waits for an answer to its question: give a text")
        return {"answer": text.strip()}
    raise InputError("this thread is not waiting for anything; ask a new question instead")


def idempotency_key(thread_id: str, call_id: str, tool: str) -> str:
    """The key a side effect is done under: the same call in the same thread, once."""
    digest = hashlib.sha256(f"{thread_id}\x1f{call_id}\x1f{tool}".encode()).hexdigest()
    return f"{tool}:{digest[:32]}"
