"""Agent paradigms over a ChatModel and a tool registry: ReAct, Plan-and-Solve, Reflection.

Every run returns a :class:`Trace` with its steps and one :class:`RunStatus`.
"""

from __future__ import annotations

from colmeia.agents.memory import TrajectoryMemory
from colmeia.agents.plan_solve import Plan, PlanAndSolveAgent, PlanStep
from colmeia.agents.react import ReActAgent, ToolMode
from colmeia.agents.reflection import CRITICS, Critic, Critique, ReflectionAgent, critic_from_text
from colmeia.agents.text_protocol import ParsedReply, answer_from, parse_reply
from colmeia.agents.trace import RunStatus, Step, Trace

__all__ = [
    "CRITICS",
    "Critic",
    "Critique",
    "ParsedReply",
    "Plan",
    "PlanAndSolveAgent",
    "PlanStep",
    "ReActAgent",
    "ReflectionAgent",
    "RunStatus",
    "Step",
    "ToolMode",
    "Trace",
    "TrajectoryMemory",
    "answer_from",
    "critic_from_text",
    "parse_reply",
]
