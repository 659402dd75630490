"""What an agent run did, step by step, and how it ended.

Every run returns a :class:`Trace`: its steps (thought, tool, input, observation, tokens,
latency) and one :class:`RunStatus`. A run never returns nothing: a model error, a loop, a
tool that keeps failing or a spent budget all end in a status with a message.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from colmeia.llm.base import Usage

__all__ = ["RunStatus", "Step", "StepCallback", "Trace"]


class RunStatus(StrEnum):
    """How a run ended."""

    FINISHED = "finished"
    MAX_STEPS = "max_steps"
    LOOP_DETECTED = "loop_detected"
    TOOL_FAILURES = "tool_failures"
    MODEL_ERROR = "model_error"


@dataclass(slots=True)
class Step:
    """One thing the agent did: think, call a tool, plan, critique, refine or answer."""

    index: int
    kind: str
    thought: str = ""
    tool: str | None = None
    input: dict[str, Any] | None = None
    observation: str = ""
    ok: bool = True
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "kind": self.kind,
            "thought": self.thought,
            "tool": self.tool,
            "input": self.input,
            "observation": self.observation,
            "ok": self.ok,
            "tokens": {"prompt": self.prompt_tokens, "completion": self.completion_tokens},
            "latency_s": round(self.latency_s, 6),
            "meta": self.meta,
        }


StepCallback = Callable[[Step], object]


@dataclass(slots=True)
class Trace:
    """A whole run: task, steps, answer, status and what it cost."""

    paradigm: str
    task: str
    status: RunStatus = RunStatus.FINISHED
    answer: str = ""
    steps: list[Step] = field(default_factory=list)
    error: str | None = None
    stop_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    started: float = field(default_factory=time.perf_counter)
    elapsed_s: float = 0.0
    #: how the run was configured where it changes the outcome (``temperature``, …)
    settings: dict[str, Any] = field(default_factory=dict)
    on_step: StepCallback | None = field(default=None, repr=False, compare=False)

    def add(self, kind: str, **values: Any) -> Step:
        """Append a step (numbered in order) and tell the ``on_step`` listener."""
        step = Step(index=len(self.steps) + 1, kind=kind, **values)
        self.steps.append(step)
        if self.on_step is not None:
            self.on_step(step)
        return step

    def adopt(self, step: Step, **meta: Any) -> Step:
        """Append a sub-run's step (renumbered, tagged with ``meta``); use as its ``on_step``."""
        values = {k: getattr(step, k) for k in Step.__slots__ if k not in ("index", "meta")}
        return self.add(meta={**step.meta, **meta}, **values)

    def finish(
        self,
        status: RunStatus,
        answer: str | None = None,
        *,
        error: str | None = None,
        stop_reason: str | None = None,
    ) -> Trace:
        self.status = status
        if answer is not None:
            self.answer = answer
        if error is not None:
            self.error = error
        if stop_reason is not None:
            self.stop_reason = stop_reason
        self.elapsed_s = time.perf_counter() - self.started
        return self

    @property
    def tool_calls(self) -> list[Step]:
        return [s for s in self.steps if s.tool is not None]

    def to_dict(self) -> dict[str, Any]:
        return {
            "paradigm": self.paradigm,
            "task": self.task,
            "status": self.status.value,
            "answer": self.answer,
            "error": self.error,
            "stop_reason": self.stop_reason,
            "steps": [s.to_dict() for s in self.steps],
            "usage": self.usage.as_dict(),
            "elapsed_s": round(self.elapsed_s, 6),
            "settings": self.settings,
        }
