"""One agent by paradigm name, with the options every caller (CLI, service) passes the same way."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Literal, Protocol

from colmeia.agents.plan_solve import PlanAndSolveAgent
from colmeia.agents.react import ReActAgent
from colmeia.agents.reflection import Critic, ReflectionAgent
from colmeia.agents.trace import Step, Trace
from colmeia.llm.base import ChatModel
from colmeia.tools.registry import Tool

__all__ = ["PARADIGMS", "Agent", "Paradigm", "make_agent"]

Paradigm = Literal["react", "plan", "reflect"]
PARADIGMS: tuple[Paradigm, ...] = ("react", "plan", "reflect")


class Agent(Protocol):
    """What every paradigm's agent offers: run a task, reporting each step."""

    def run(
        self, task: str, *, on_step: Callable[[Step], object] | None = None
    ) -> Coroutine[Any, Any, Trace]: ...


def make_agent(
    paradigm: Paradigm,
    model: ChatModel,
    tools: Sequence[Tool],
    *,
    tool_mode: Literal["auto", "native", "text"] = "auto",
    max_steps: int = 8,
    deadline: float | None = None,
    hierarchical: bool = False,
    critics: Sequence[str | Critic] = ("correctness",),
    threshold: float = 0.8,
    temperature: float | None = 0.0,
    role: str = "",
    few_shot: str = "",
) -> Agent:
    """A ReAct, Plan-and-Solve or Reflection agent (``max_steps``: iterations for reflect).

    ``deadline=None``: each paradigm's default (ReAct: 300 s, longer on an endpoint measured
    slow; Plan-and-Solve and Reflection: 600 s). ``role`` replaces the system prompt's first
    line, ``few_shot`` adds worked examples to it, in every paradigm.
    """
    longer = 600.0 if deadline is None else deadline
    if paradigm == "react":
        return ReActAgent(
            model,
            list(tools),
            tool_mode=tool_mode,
            max_steps=max_steps,
            deadline=deadline,
            temperature=temperature,
            role=role,
            few_shot=few_shot,
        )
    if paradigm == "plan":
        return PlanAndSolveAgent(
            model,
            list(tools),
            tool_mode=tool_mode,
            max_steps=max_steps,
            hierarchical=hierarchical,
            deadline=longer,
            temperature=temperature,
            role=role,
            few_shot=few_shot,
        )
    return ReflectionAgent(
        model,
        list(tools),
        tool_mode=tool_mode,
        critics=list(critics),
        threshold=threshold,
        max_iterations=max_steps,
        deadline=longer,
        temperature=temperature,
        role=role,
        few_shot=few_shot,
    )
