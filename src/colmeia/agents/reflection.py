"""Reflection: execute → reflect → refine, with a short-term memory of the trajectory.

The executor answers (with tools through ReAct, or a plain chat). One or more critics — each
with its own focus (correctness, efficiency, language…) and possibly its own model — return a
structured :class:`Critique` (problems, suggestions, a 0–1 score). The answer is refined with
the critiques and the memory of earlier attempts, until one of:

* the score reaches ``threshold`` → ``finished`` (``stop_reason="score"``) — the only way
  to finish: a low score with no problems listed is not acceptance (the answer is refined
  with "check it again" instead);
* the score stops improving → ``max_steps`` with the best answer so far (``"no_improvement"``);
* ``max_iterations`` critiques were made → ``max_steps`` with the best answer so far.

Critics see the evidence the executor gathered (each tool call and its result), so a wrong
number is caught against the calculator's, not judged by how confident the answer sounds. An
answer that states none of the numbers its last tool call returned cannot pass on score alone.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import orjson
from pydantic import BaseModel, Field

from colmeia.agents.memory import TrajectoryMemory
from colmeia.agents.numbers import read_numbers
from colmeia.agents.react import ReActAgent, ToolMode
from colmeia.agents.running import run_blocking, run_bounded
from colmeia.agents.trace import RunStatus, StepCallback, Trace
from colmeia.errors import ConfigurationError, ModelError
from colmeia.llm.base import ChatModel, Message
from colmeia.llm.prompts import render_prompt
from colmeia.tools.registry import Tool, ToolRegistry

__all__ = [
    "CRITICS",
    "Critic",
    "Critique",
    "ReflectionAgent",
    "critic_from_text",
    "states_result",
]

log = logging.getLogger(__name__)
_PKG = "colmeia.agents"


class Critique(BaseModel):
    """A reviewer's judgement of an answer."""

    problems: list[str] = Field(
        default_factory=list, max_length=12, description="Concrete problems; empty if none."
    )
    suggestions: list[str] = Field(
        default_factory=list, max_length=12, description="How to fix each problem."
    )
    score: float = Field(ge=0.0, le=1.0, description="Quality from 0 (useless) to 1 (perfect).")


@dataclass(frozen=True, slots=True)
class Critic:
    """One reviewer: what it looks at, and optionally its own model."""

    name: str
    focus: str
    model: ChatModel | None = None
    weight: float = 1.0


CRITICS: dict[str, Critic] = {
    "correctness": Critic(
        "correctness",
        "correctness: are the facts, numbers and reasoning right, and is the task fully answered",
    ),
    "efficiency": Critic(
        "efficiency",
        "efficiency: is the answer direct and concise, without needless steps or repetition",
    ),
    "language": Critic(
        "language",
        "language: is it clear, well written, polite and in the same language as the task",
    ),
    # Code review as the chapter's Reflection case does it: "efficiency" above is about the
    # answer's words, this one about the algorithm's running time.
    "complexity": Critic(
        "complexity",
        "time complexity: is the stated big-O running time of the code right (count the nested "
        "loops and the cost of each operation inside them), and is a faster algorithm proposed "
        "when one exists",
    ),
}


def critic_from_text(text: str, model: ChatModel | None = None) -> Critic:
    """A critic from a name in :data:`CRITICS` or a custom focus, ``"focus: what to check"``
    (``"security: is user input ever executed"`` → a critic named ``security``).

    Raises :class:`~colmeia.errors.ConfigurationError` naming the choices when ``text`` is
    neither.
    """
    name, sep, focus = text.partition(":")
    name = name.strip()
    if not sep:
        if name in CRITICS:
            known = CRITICS[name]
            return Critic(known.name, known.focus, model, known.weight)
        raise ConfigurationError(
            f"unknown critic {name!r}: use one of {', '.join(CRITICS)}, or write your own "
            "focus as 'name: what to check'"
        )
    if not name or not focus.strip():
        raise ConfigurationError(
            f"critic {text!r} needs a name and a focus, as in 'complexity: is the big-O right'"
        )
    return Critic(name, f"{name}: {focus.strip()}", model)


@dataclass(slots=True)
class _Review:
    score: float
    problems: list[str]
    suggestions: list[str]


def states_result(answer: str, result: str) -> bool:
    """Whether ``answer`` states the number ``result`` (rounded to 2 decimals or not)."""
    wanted = read_numbers(result)
    if not wanted:
        return True  # not a number: nothing to check
    found = read_numbers(answer)
    return any(abs(f - w) <= max(0.0051, 5e-5 * abs(w)) for w in wanted for f in found)


class ReflectionAgent:
    """Execute, critique and refine until good enough, not improving, or out of iterations.

    Args:
        model: the executor's model (critics use it unless they have their own).
        tools: tools for the executor (through ReAct); none means a plain answer.
        critics: reviewers; names from :data:`CRITICS` or :class:`Critic` objects.
        threshold: stop when the weighted mean score reaches it.
        max_iterations: critiques at most.
        min_improvement: a refined answer must beat the best score by more than this.
    """

    paradigm = "reflect"

    def __init__(
        self,
        model: ChatModel,
        tools: ToolRegistry | Iterable[Tool] | None = None,
        *,
        critics: Sequence[Critic | str] = ("correctness",),
        threshold: float = 0.8,
        max_iterations: int = 3,
        min_improvement: float = 0.0,
        executor_max_steps: int = 6,
        tool_mode: ToolMode = "auto",
        deadline: float = 600.0,
        memory_size: int = 20,
        instructions: str = "",
        temperature: float | None = 0.0,
        role: str = "",
        few_shot: str = "",
    ) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ConfigurationError("threshold must be between 0 and 1")
        if max_iterations < 1:
            raise ConfigurationError("max_iterations must be at least 1")
        resolved: list[Critic] = []
        for c in critics:
            if isinstance(c, Critic):
                resolved.append(c)
            elif c in CRITICS:
                resolved.append(CRITICS[c])
            else:
                raise ConfigurationError(
                    f"Unknown critic {c!r}; choose from: {', '.join(CRITICS)}."
                )
        if not resolved:
            raise ConfigurationError("ReflectionAgent needs at least one critic")
        self.model = model
        self.registry = tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools or ())
        self.critics = resolved
        self.threshold = threshold
        self.max_iterations = max_iterations
        self.min_improvement = min_improvement
        self.executor_max_steps = executor_max_steps
        self.tool_mode: ToolMode = tool_mode
        self.deadline = deadline
        self.memory_size = memory_size
        self.instructions = instructions
        self.temperature = temperature
        self.role = role
        self.few_shot = few_shot

    async def run(
        self,
        task: str,
        *,
        initial_answer: str | None = None,
        on_step: StepCallback | None = None,
    ) -> Trace:
        """Answer ``task`` (or start from ``initial_answer``) and improve it by reflection."""
        trace = Trace(paradigm=self.paradigm, task=task, on_step=on_step)
        trace.settings["temperature"] = self.temperature
        memory = TrajectoryMemory(max_entries=self.memory_size)
        return await run_bounded(
            trace, self.deadline, lambda: self._loop(task, initial_answer, trace, memory)
        )

    def run_sync(
        self, task: str, *, initial_answer: str | None = None, on_step: StepCallback | None = None
    ) -> Trace:
        """Blocking :meth:`run`."""
        models = [self.model, *(c.model for c in self.critics if c.model is not None)]
        return run_blocking(
            lambda: self.run(task, initial_answer=initial_answer, on_step=on_step), models
        )

    # ------------------------------------------------------------------ steps

    async def _produce(
        self, prompt: str, trace: Trace, kind: str, iteration: int, task: str
    ) -> tuple[str, list[str]]:
        """An answer to ``prompt`` and its evidence (``tool(input) → result`` lines)."""
        if self.registry:
            worker = ReActAgent(
                self.model,
                self.registry,
                tool_mode=self.tool_mode,
                max_steps=self.executor_max_steps,
                instructions=self.instructions,
                temperature=self.temperature,
                role=self.role,
                few_shot=self.few_shot,
            )
            sub = await worker.run(
                prompt,
                on_step=lambda s: trace.adopt(s, phase=kind, iteration=iteration),
                numbers_from=task,
            )
            if sub.status is RunStatus.MODEL_ERROR:
                raise ModelError(sub.error or "the model failed while answering")
            evidence = [
                f"{s.tool}({orjson.dumps(s.input or {}).decode()}) → {s.observation[:300]}"
                for s in sub.tool_calls
                if s.ok
            ]
            return sub.answer.strip(), evidence
        started = time.perf_counter()
        system = render_prompt(
            _PKG,
            "reflect_execute.j2",
            instructions=self.instructions,
            role=self.role,
            few_shot=self.few_shot,
        )
        result = await self.model.chat(
            [Message.system(system), Message.user(prompt)], temperature=self.temperature
        )
        answer = result.content.strip()
        trace.add(
            kind,
            observation=answer,
            prompt_tokens=result.usage.prompt_tokens,
            completion_tokens=result.usage.completion_tokens,
            latency_s=time.perf_counter() - started,
            meta={"iteration": iteration},
        )
        return answer, []

    async def _review(
        self,
        task: str,
        answer: str,
        evidence: Sequence[str],
        memory: TrajectoryMemory,
        trace: Trace,
        iteration: int,
    ) -> _Review:
        started = time.perf_counter()
        history = memory.render()

        async def one(critic: Critic) -> tuple[Critic, Critique, int, int]:
            prompt = render_prompt(
                _PKG,
                "reflect_critic.j2",
                task=task,
                answer=answer,
                focus=critic.focus,
                memory=history,
                evidence=evidence,
            )
            result = await (critic.model or self.model).structured_result(
                [Message.user(prompt)], Critique, temperature=self.temperature
            )
            return critic, result.value, result.usage.prompt_tokens, result.usage.completion_tokens

        outcomes = await asyncio.gather(*(one(c) for c in self.critics))
        total_weight = sum(c.weight for c, *_ in outcomes) or 1.0
        score = sum(c.weight * q.score for c, q, *_ in outcomes) / total_weight
        problems = [f"[{c.name}] {p}" for c, q, *_ in outcomes for p in q.problems]
        suggestions = [s for _, q, *_ in outcomes for s in q.suggestions]
        last_result = evidence[-1].rpartition(" → ")[2] if evidence else ""
        if last_result and not states_result(answer, last_result):
            # Checked here, not left to the critic: small critics score a confident wrong
            # number highly.
            problems.append(
                f"[evidence] the answer does not state the result of the last tool call "
                f"({last_result[:80]}); use it"
            )
            score = min(score, max(0.0, self.threshold - 0.01))
        trace.add(
            "critique",
            thought="; ".join(f"{c.name}: {q.score:.2f}" for c, q, *_ in outcomes),
            observation="\n".join(problems) or "no problems found",
            prompt_tokens=sum(o[2] for o in outcomes),
            completion_tokens=sum(o[3] for o in outcomes),
            latency_s=time.perf_counter() - started,
            meta={
                "iteration": iteration,
                "score": round(score, 4),
                "scores": {c.name: q.score for c, q, *_ in outcomes},
            },
        )
        return _Review(score, problems, suggestions)

    async def _loop(
        self, task: str, initial: str | None, trace: Trace, memory: TrajectoryMemory
    ) -> None:
        evidence: list[str] = []
        if initial is not None:
            answer = initial.strip()
            trace.add("attempt", observation=answer, meta={"iteration": 0, "given": True})
        else:
            answer, evidence = await self._produce(task, trace, "attempt", 0, task)
        memory.add("attempt", answer, iteration=0)
        best_answer, best_score = answer, -1.0
        # Whatever stops the run from here (deadline, model error), it keeps the best answer.
        trace.answer = answer
        for iteration in range(1, self.max_iterations + 1):
            review = await self._review(task, answer, evidence, memory, trace, iteration)
            memory.add(
                "critique",
                "\n".join(review.problems) or "no problems",
                iteration=iteration,
                score=review.score,
            )
            improved = review.score > best_score + self.min_improvement
            if review.score > best_score:
                best_answer, best_score = answer, review.score
                trace.answer = best_answer
            if review.score >= self.threshold:
                trace.finish(RunStatus.FINISHED, answer, stop_reason="score")
                return
            if iteration > 1 and not improved:
                trace.finish(
                    RunStatus.MAX_STEPS,
                    best_answer,
                    error=f"the score stopped improving at {best_score:.2f} (below "
                    f"{self.threshold})",
                    stop_reason="no_improvement",
                )
                return
            if iteration == self.max_iterations:
                break
            problems = review.problems or [
                f"the reviewer scored the answer {review.score:.2f}, below {self.threshold}, "
                "without naming a problem: check every fact and number again"
            ]
            prompt = render_prompt(
                _PKG,
                "reflect_refine.j2",
                task=task,
                answer=answer,
                problems=problems,
                suggestions=review.suggestions,
                memory=memory.render(),
            )
            refined, new_evidence = await self._produce(prompt, trace, "refine", iteration, task)
            if refined:
                answer = refined
                evidence = new_evidence or evidence
            memory.add("attempt", answer, iteration=iteration)
        trace.finish(
            RunStatus.MAX_STEPS,
            best_answer,
            error=f"the score {best_score:.2f} stayed below {self.threshold} after "
            f"{self.max_iterations} critiques",
            stop_reason="max_iterations",
        )
