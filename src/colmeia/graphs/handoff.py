"""Handoffs between agents of a swarm, as tools that return ``Command(goto=…)``.

Two kinds:

* **state-propagating** (``kind="state"``): the target agent takes over the conversation with
  everything in it; the tool's only argument is the reason;
* **task-specific** (``kind="task"``): the target gets a task description (and optional
  context), not the conversation, and hands its result back.

Rules enforced here, not asked of a model:

* every tool call of a model turn gets a tool result before control moves (the OpenAI format
  needs one per call, and an agent that resumes later must see them);
* one handoff per model turn: a handoff beside other tool calls, or two handoffs, are refused
  with a tool result saying why, and the other calls run normally;
* a per-turn cap on handoffs: past it the turn ends with status ``handoff_limit`` instead of
  bouncing between agents until the recursion limit;
* the active agent is a state key, so a checkpointer keeps it per thread and the next turn
  starts with the agent that was talking.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from colmeia.graphs.messages import ChatMessage
from colmeia.llm.base import ToolCall, ToolSpec

if TYPE_CHECKING:
    from langgraph.types import Command

__all__ = [
    "Handoff",
    "HandoffKind",
    "TurnPlan",
    "handoff_command",
    "handoff_record",
    "plan_tool_calls",
]

HandoffKind = Literal["state", "task"]
_ONE_AT_A_TIME = (
    "Refused: a handoff must be the only tool call of its turn. The other tool calls ran; "
    "read their results, then hand off alone if still needed."
)
_TWO_HANDOFFS = "Refused: only one handoff per turn; choose one agent and call it alone."


@dataclass(frozen=True, slots=True)
class Handoff:
    """A handoff to ``target``, offered to a model as the tool ``transfer_to_<target>``."""

    target: str
    kind: HandoffKind
    description: str

    @property
    def tool_name(self) -> str:
        return f"transfer_to_{self.target}"

    def spec(self) -> ToolSpec:
        if self.kind == "task":
            params: dict[str, Any] = {
                "type": "object",
                "properties": {
                    "task": {
                        "type": "string",
                        "description": "What the agent must do, self-contained: it will not "
                        "see the conversation.",
                    },
                    "context": {
                        "type": "string",
                        "description": "Facts from the conversation the task needs, if any.",
                    },
                },
                "required": ["task"],
            }
        else:
            params = {
                "type": "object",
                "properties": {
                    "reason": {"type": "string", "description": "Why this agent should take over."}
                },
                "required": ["reason"],
            }
        return ToolSpec(self.tool_name, self.description, params)


@dataclass(slots=True)
class TurnPlan:
    """What to do with one model turn's tool calls."""

    handoff: tuple[ToolCall, Handoff] | None = None
    calls: list[ToolCall] = field(default_factory=list)
    refused: list[tuple[ToolCall, str]] = field(default_factory=list)


def plan_tool_calls(calls: Sequence[ToolCall], handoffs: Iterable[Handoff]) -> TurnPlan:
    """Split a turn's tool calls: at most one handoff, and only when it stands alone."""
    by_name = {h.tool_name: h for h in handoffs}
    plan = TurnPlan()
    found = [(c, by_name[c.name]) for c in calls if c.name in by_name]
    plan.calls = [c for c in calls if c.name not in by_name]
    if len(found) > 1:
        plan.refused = [(c, _TWO_HANDOFFS) for c, _ in found]
    elif found and plan.calls:
        plan.refused = [(found[0][0], _ONE_AT_A_TIME)]
    elif found:
        plan.handoff = found[0]
    return plan


def handoff_record(call: ToolCall, handoff: Handoff, source: str, turn: int) -> dict[str, Any]:
    """What the target agent is told: who handed over, why, and (task kind) the task."""
    args = call.arguments
    return {
        "from": source,
        "to": handoff.target,
        "kind": handoff.kind,
        "reason": str(args.get("reason") or ""),
        "task": str(args.get("task") or ""),
        "context": str(args.get("context") or ""),
        "turn": turn,
        "call_id": call.id,
    }


def handoff_command(
    call: ToolCall,
    handoff: Handoff,
    *,
    source: str,
    turn: int,
    handoffs_so_far: int,
    max_handoffs: int,
    limit_node: str,
    extra: dict[str, Any] | None = None,
) -> Command[str]:
    """The ``Command`` that moves control to the target, or to ``limit_node`` past the cap.

    The tool result of the handoff call is part of the update, so the call is answered in
    the same step that moves control.
    """
    # imported here: the handoff tools' specs are read by turns that never build the graph
    # (an offline frame turn, colmeia.apps.assistant.frame_turn), and LangGraph costs ~1 s
    from langgraph.types import Command

    if handoffs_so_far >= max_handoffs:
        note = (
            f"Refused: {max_handoffs} handoffs already happened in this turn; the turn ends here."
        )
        return Command(
            goto=limit_node,
            update={
                "messages": [ChatMessage.tool(call.id, call.name, note, agent=source, turn=turn)],
                "status": "handoff_limit",
            },
        )
    record = handoff_record(call, handoff, source, turn)
    result = f"Transferred to {handoff.target}."
    update: dict[str, Any] = {
        "messages": [ChatMessage.tool(call.id, call.name, result, agent=source, turn=turn)],
        "active_agent": handoff.target,
        "handoff": record,
        "turn_handoffs": handoffs_so_far + 1,
        "handoffs": [record],
    }
    update.update(extra or {})
    return Command(goto=handoff.target, update=update)
