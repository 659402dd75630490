"""Plan-and-Solve: plan first, then carry the plan out step by step, replanning when needed.

A planner returns a validated :class:`Plan` (structured output). Each step is carried out by a
small ReAct run that sees the task, the plan and the earlier results. When a step fails (its
run ended without an answer) or its result says the plan is wrong (an answer starting with
``REPLAN:``), the planner is asked for a new plan of the remaining work, at most
``max_replans`` times. With ``hierarchical=True`` a step may list sub-steps, carried out in
order as steps of their own. A final call turns the step results into the answer.

A run always ends with the best answer it has: when a limit, the deadline or a failed step
stops it, the answer is written from the step results so far (or, without time for that call,
is the last result). A planner that cannot produce a valid plan (small models) gets a
one-step plan — the task itself — instead of ending the run.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field, create_model

from colmeia.agents.grouping import broken_grouping, is_computation, task_groups
from colmeia.agents.numbers import TaskNumbers
from colmeia.agents.react import ReActAgent, ToolMode
from colmeia.agents.running import run_blocking, run_bounded
from colmeia.agents.trace import RunStatus, StepCallback, Trace
from colmeia.errors import ConfigurationError, ModelError, ModelOutputError, ToolError
from colmeia.llm.base import ChatModel, Message
from colmeia.llm.prompts import render_prompt
from colmeia.tools.registry import Tool, ToolRegistry

__all__ = ["Plan", "PlanAndSolveAgent", "PlanStep", "PlanSubstep", "StepResult"]

log = logging.getLogger(__name__)
_PKG = "colmeia.agents"
_REPLAN = "REPLAN:"


class PlanSubstep(BaseModel):
    """A smaller step inside a complex step."""

    description: str = Field(min_length=1, max_length=600, description="What to do, concretely.")
    tool: str | None = Field(default=None, description="The tool this sub-step needs, if any.")


class PlanStep(BaseModel):
    """One step of a plan."""

    description: str = Field(min_length=1, max_length=600, description="What to do, concretely.")
    tool: str | None = Field(default=None, description="The tool this step needs, if any.")
    substeps: list[PlanSubstep] = Field(
        default_factory=list, max_length=6, description="Smaller steps, only for a complex step."
    )


class Plan(BaseModel):
    """The steps that solve the task, in order."""

    steps: list[PlanStep] = Field(min_length=1, max_length=12)

    def render(self) -> str:
        lines: list[str] = []
        for i, step in enumerate(self.steps, start=1):
            lines.append(f"{i}. {step.description}")
            lines.extend(f"   {i}.{j}. {sub.description}" for j, sub in enumerate(step.substeps, 1))
        return "\n".join(lines)


@functools.cache
def _plan_type(max_steps: int) -> type[Plan]:
    """:class:`Plan` with at most ``max_steps`` steps *in its schema*: a server that enforces
    the schema with a grammar (llama.cpp) then closes the list there. A small model otherwise
    writes the same step over and over until ``max_tokens`` cuts it."""
    model: type[Plan] = create_model(
        "Plan",
        __base__=Plan,
        __doc__=Plan.__doc__,
        steps=(list[PlanStep], Field(min_length=1, max_length=max_steps)),
    )
    return model


@dataclass(slots=True)
class StepResult:
    """What one executed step produced."""

    label: str
    description: str
    result: str


@dataclass(slots=True)
class _Failure:
    label: str
    reason: str
    status: RunStatus
    #: the step had to call a tool and the model answered in prose (replanned once)
    prose: bool = False


def _last_result(results: Sequence[StepResult], trace: Trace) -> str:
    """The best answer without a model call: the last step result, else the last thing a
    step's tools returned."""
    return results[-1].result if results else _last_found(trace)


def _last_found(trace: Trace) -> str:
    """What a step's tools returned last. (A step's own answer that is no result is a
    ``REPLAN:`` request, which is no answer to the task.)"""
    for step in reversed(trace.steps):
        if step.ok and step.kind == "tool" and step.observation.strip():
            return step.observation.strip()
    return ""


class _Stop(Exception):
    def __init__(self, status: RunStatus, reason: str, error: str) -> None:
        super().__init__(error)
        self.status = status
        self.reason = reason
        self.error = error


class PlanAndSolveAgent:
    """Plan, execute step by step with ReAct, replan on failure or contradiction.

    Args:
        model: the executor's model (and the planner's, unless ``planner_model`` is given).
        tools: tools the executor may use.
        max_steps: executed steps at most, over all plans (sub-steps count one each).
        max_replans: new plans at most after the first.
        max_steps_per_step: ReAct turns for one step.
        hierarchical: let the planner split complex steps into sub-steps.
        deadline: seconds for the whole run.
        calculator_by_default: a step that computes a number uses the calculator (a tool
            tagged ``math``) even when the planner named no tool, and a calculator expression
            that drops a grouping the task wrote in parentheses is refused with the grouping
            to keep (see :mod:`colmeia.agents.grouping`).
    """

    paradigm = "plan"

    def __init__(
        self,
        model: ChatModel,
        tools: ToolRegistry | Iterable[Tool] | None = None,
        *,
        planner_model: ChatModel | None = None,
        max_steps: int = 12,
        max_plan_steps: int = 6,
        max_replans: int = 2,
        max_steps_per_step: int = 5,
        hierarchical: bool = False,
        tool_mode: ToolMode = "auto",
        deadline: float = 600.0,
        instructions: str = "",
        max_tokens: int | None = 800,
        temperature: float | None = 0.0,
        calculator_by_default: bool = True,
        role: str = "",
        few_shot: str = "",
    ) -> None:
        if max_steps < 1 or max_replans < 0 or max_steps_per_step < 1:
            raise ConfigurationError("max_steps and max_steps_per_step ≥ 1, max_replans ≥ 0")
        self.model = model
        self.planner_model = planner_model or model
        self.registry = tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools or ())
        self.max_steps = max_steps
        self.max_plan_steps = max_plan_steps
        self.max_replans = max_replans
        self.max_steps_per_step = max_steps_per_step
        self.hierarchical = hierarchical
        self.tool_mode: ToolMode = tool_mode
        self.deadline = deadline
        self.instructions = instructions
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.calculator_by_default = calculator_by_default
        self.role = role
        self.few_shot = few_shot

    async def run(
        self, task: str, *, on_step: StepCallback | None = None, max_steps: int | None = None
    ) -> Trace:
        """Plan and solve ``task``; always returns a :class:`Trace`."""
        trace = Trace(paradigm=self.paradigm, task=task, on_step=on_step)
        trace.settings["temperature"] = self.temperature
        budget = max_steps or self.max_steps
        results: list[StepResult] = []
        started = time.perf_counter()

        async def solve() -> None:
            try:
                await self._solve(task, trace, budget, results)
            except _Stop as stop:
                left = self.deadline - (time.perf_counter() - started)
                await self._answer_partial(task, results, trace, left)
                trace.finish(stop.status, error=stop.error, stop_reason=stop.reason)

        await run_bounded(trace, self.deadline, solve)
        if not trace.answer:
            # Stopped by the deadline or a model error: no time or model for a last call.
            trace.answer = _last_result(results, trace)
        return trace

    def run_sync(
        self, task: str, *, on_step: StepCallback | None = None, max_steps: int | None = None
    ) -> Trace:
        """Blocking :meth:`run`."""
        return run_blocking(
            lambda: self.run(task, on_step=on_step, max_steps=max_steps),
            [self.model, self.planner_model],
        )

    # ------------------------------------------------------------------ planning

    def _tool_views(self) -> list[dict[str, str]]:
        return [{"name": t.name, "description": t.description} for t in self.registry]

    async def _plan(self, task: str, trace: Trace) -> Plan:
        started = time.perf_counter()
        prompt = render_prompt(
            _PKG,
            "plan_planner.j2",
            task=task,
            tools=self._tool_views(),
            hierarchical=self.hierarchical,
            max_steps=self.max_plan_steps,
            calculator=calc.name if (calc := self._calculator()) else "",
            number_notes=(numbers := TaskNumbers.of(task)).notes,
            rate_notes=list(numbers.rates),
        )
        try:
            result = await self.planner_model.structured_result(
                [Message.user(prompt)],
                _plan_type(self.max_plan_steps),
                temperature=self.temperature,
            )
        except ModelOutputError as exc:
            # A planner that cannot write a valid plan should not sink the task: solve it as
            # one step, which is ReAct with the plan's framing.
            plan = Plan(steps=[PlanStep(description=task[:600])])
            trace.add(
                "plan",
                thought=plan.render(),
                ok=False,
                latency_s=time.perf_counter() - started,
                meta={"plan": plan.model_dump(), "fallback": str(exc)[:300]},
            )
            return plan
        plan = self._trim(result.value)
        trace.add(
            "plan",
            thought=plan.render(),
            prompt_tokens=result.usage.prompt_tokens,
            completion_tokens=result.usage.completion_tokens,
            latency_s=time.perf_counter() - started,
            meta={"plan": plan.model_dump()},
        )
        return plan

    async def _replan(
        self, task: str, plan: Plan, results: Sequence[StepResult], failure: _Failure, trace: Trace
    ) -> Plan:
        started = time.perf_counter()
        prompt = render_prompt(
            _PKG,
            "plan_replan.j2",
            task=task,
            plan=plan.render(),
            results=results,
            failed_step=failure.label,
            reason=failure.reason,
            tools=self._tool_views(),
            hierarchical=self.hierarchical,
            max_steps=self.max_plan_steps,
        )
        result = await self.planner_model.structured_result(
            [Message.user(prompt)], _plan_type(self.max_plan_steps), temperature=self.temperature
        )
        new_plan = self._trim(result.value)
        trace.add(
            "replan",
            thought=f"step {failure.label} failed: {failure.reason}",
            observation=new_plan.render(),
            prompt_tokens=result.usage.prompt_tokens,
            completion_tokens=result.usage.completion_tokens,
            latency_s=time.perf_counter() - started,
            meta={"plan": new_plan.model_dump(), "failed_step": failure.label},
        )
        return new_plan

    def _trim(self, plan: Plan) -> Plan:
        # the plan's schema (_plan_type) already bounds its length to max_plan_steps
        steps = plan.steps
        if not self.hierarchical:
            steps = [s.model_copy(update={"substeps": []}) for s in steps]
        return Plan(steps=steps)

    # ------------------------------------------------------------------ solving

    async def _solve(self, task: str, trace: Trace, budget: int, results: list[StepResult]) -> None:
        plan = await self._plan(task, trace)
        replans = 0
        prose_replanned = False
        executed = 0
        prefix = ""
        while True:
            failure: _Failure | None = None
            for i, step in enumerate(plan.steps, start=1):
                leaves = (
                    [
                        (f"{prefix}{i}.{j}", s.description, s.tool)
                        for j, s in enumerate(step.substeps, 1)
                    ]
                    if step.substeps
                    else [(f"{prefix}{i}", step.description, step.tool)]
                )
                for label, description, tool in leaves:
                    if executed >= budget:
                        raise _Stop(
                            RunStatus.MAX_STEPS,
                            "max_steps",
                            f"the plan needed more than {budget} steps",
                        )
                    executed += 1
                    outcome = await self._execute(
                        task, plan, results, label, description, tool, trace
                    )
                    if isinstance(outcome, _Failure):
                        failure = outcome
                        break
                    results.append(outcome)
                if failure is not None:
                    break
            if failure is None:
                break
            if failure.prose and prose_replanned:
                raise _Stop(RunStatus.MODEL_ERROR, "model_output", failure.reason)
            prose_replanned = prose_replanned or failure.prose
            if replans >= self.max_replans:
                status = (
                    failure.status
                    if failure.status is not RunStatus.FINISHED
                    else RunStatus.MAX_STEPS
                )
                raise _Stop(
                    status,
                    "replans_exhausted",
                    f"step {failure.label} failed after {replans} replans: {failure.reason}",
                )
            replans += 1
            plan = await self._replan(task, plan, results, failure, trace)
            prefix = f"r{replans}."
        await self._answer(task, results, trace)

    async def _execute(
        self,
        task: str,
        plan: Plan,
        results: Sequence[StepResult],
        label: str,
        description: str,
        tool: str | None,
        trace: Trace,
    ) -> StepResult | _Failure:
        # A step the plan gave a tool must use it before answering: small models otherwise
        # "do" a calculation step in their heads, or declare it impossible without trying.
        needs = tool if tool is not None and self.registry.get(tool) is not None else None
        calculator = self._calculator()
        if needs is None and calculator is not None and is_computation(description):
            needs = calculator.name
        worker = ReActAgent(
            self.model,
            self._registry_for(task, calculator),
            tool_mode=self.tool_mode,
            max_steps=self.max_steps_per_step,
            answer_on_limit=False,
            require_tool_first=needs is not None,
            instructions=self.instructions,
            max_tokens=self.max_tokens,
            temperature=self.temperature,
            role=self.role,
            few_shot=self.few_shot,
        )
        prompt = render_prompt(
            _PKG,
            "plan_step.j2",
            task=task,
            plan=plan.render(),
            results=results,
            label=label,
            step=description,
            tool=needs,
        )
        sub = await worker.run(
            prompt, on_step=lambda s: trace.adopt(s, plan_step=label), numbers_from=task
        )
        if sub.status is RunStatus.MODEL_ERROR and sub.stop_reason == "model_output":
            # The model answered, not in the form the step needs (prose where a tool call was
            # required): a new plan may phrase the work so it can; a second time ends the run.
            reason = f"the step's answer was unusable: {sub.error}"
            trace.add(
                "step_result",
                thought=description,
                observation=reason,
                ok=False,
                meta={"plan_step": label},
            )
            return _Failure(label, reason, RunStatus.MODEL_ERROR, prose=True)
        if sub.status is RunStatus.MODEL_ERROR:
            raise ModelError(sub.error or "the model failed during a plan step")
        answer = sub.answer.strip()
        if sub.status is not RunStatus.FINISHED:
            reason = f"the step ended with {sub.status.value}: {sub.error or 'no answer'}"
            trace.add(
                "step_result",
                thought=description,
                observation=reason,
                ok=False,
                meta={"plan_step": label},
            )
            return _Failure(label, reason, sub.status)
        if answer.upper().startswith(_REPLAN):
            reason = answer[len(_REPLAN) :].strip() or "the step's result contradicts the plan"
            trace.add(
                "step_result",
                thought=description,
                observation=answer,
                ok=False,
                meta={"plan_step": label},
            )
            return _Failure(label, reason, RunStatus.FINISHED)
        trace.add("step_result", thought=description, observation=answer, meta={"plan_step": label})
        return StepResult(label, description, answer)

    def _calculator(self) -> Tool | None:
        if not self.calculator_by_default:
            return None
        tagged = [t for t in self.registry if "math" in t.tags]
        return tagged[0] if tagged else self.registry.get("calculator")

    def _registry_for(self, task: str, calculator: Tool | None) -> ToolRegistry:
        """The tools of a step's worker: the calculator refuses expressions that drop the
        task's parentheses."""
        groups = task_groups(task)
        if calculator is None or not groups:
            return self.registry
        inner = calculator.func

        def keeps_grouping(**kwargs: object) -> object:
            expression = kwargs.get("expression")
            if isinstance(expression, str):
                problem = broken_grouping(expression, groups)
                if problem is not None:
                    raise ToolError(problem)
            return inner(**kwargs)

        guarded = dataclasses.replace(calculator, func=keeps_grouping)
        return ToolRegistry([guarded if t.name == calculator.name else t for t in self.registry])

    async def _answer_partial(
        self, task: str, results: Sequence[StepResult], trace: Trace, left: float
    ) -> None:
        """After a stop: with no results, what the steps' tools found last; else the answer
        written from the results so far when there is time for one more call (with nothing
        found, the model's own answer, said to be unchecked); otherwise run() answers with the
        last result. A run never ends with an empty answer while the model can give one."""
        if not results and _last_found(trace):
            return  # run() answers with what the tools found
        try:
            async with asyncio.timeout(max(0.1, left - 0.5)):
                await self._answer(task, results, trace, partial=True)
        except (TimeoutError, ModelError) as exc:
            # run() answers with the last result
            log.info("no answer from the partial results: %s", exc)

    async def _answer(
        self, task: str, results: Sequence[StepResult], trace: Trace, *, partial: bool = False
    ) -> None:
        started = time.perf_counter()
        prompt = render_prompt(_PKG, "plan_final.j2", task=task, results=results, partial=partial)
        result = await self.model.chat(
            [Message.user(prompt)], max_tokens=self.max_tokens, temperature=self.temperature
        )
        answer = result.content.strip()
        trace.add(
            "answer",
            observation=answer,
            prompt_tokens=result.usage.prompt_tokens,
            completion_tokens=result.usage.completion_tokens,
            latency_s=time.perf_counter() - started,
            meta={"partial": partial} if partial else {},
        )
        if partial:
            trace.answer = answer  # an empty one: run() falls back to the last result
            return
        trace.finish(RunStatus.FINISHED, answer, stop_reason="answer")
