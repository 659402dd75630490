"""ReAct: think → act → observe, until a final answer or a limit.

Native tool calling when the model supports it (``tool_mode="native"``), the text protocol
(Thought / Action / Action Input / Final Answer) otherwise (``"text"``); ``"auto"`` starts
native and falls back to text when the server refuses tools. Every way a run can go wrong ends
in a :class:`~colmeia.agents.trace.RunStatus`:

* the same tool with the same input ``loop_limit`` times → ``loop_detected`` (the first repeat
  is answered with a note, so a model can recover);
* ``max_tool_failures`` failed calls in a row, whatever the tools → ``tool_failures`` (invalid
  arguments, unknown tools and errors come back as observations first, so a model can
  correct itself; a model trying a different wrong name each step is stuck all the same);
* a :class:`~colmeia.errors.ModelError` → ``model_error`` with its message;
* ``max_steps`` model turns or the run ``deadline`` spent → ``max_steps``.

With many tools registered, a :class:`~colmeia.tools.retrieval.ToolRetriever` offers only the
few relevant to each step.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from colmeia.agents.numbers import TaskNumbers
from colmeia.agents.running import run_blocking
from colmeia.agents.text_protocol import (
    ParsedReply,
    announced_call,
    answer_from,
    coerce_arguments,
    mentioned_tools,
    parse_reply,
    thought_before_call,
)
from colmeia.agents.trace import RunStatus, Step, StepCallback, Trace
from colmeia.errors import ConfigurationError, ModelError, ModelHTTPError, ModelOutputError
from colmeia.llm.base import ChatModel, ChatResult, Message, ToolCall, ToolSpec, track_usage
from colmeia.llm.capabilities import Speed
from colmeia.llm.prompts import render_prompt
from colmeia.llm.verdicts import recall, remember
from colmeia.tools.registry import FailureCounter, Tool, ToolRegistry, ToolResult
from colmeia.tools.repair import example_call
from colmeia.tools.retrieval import ToolRetriever

__all__ = ["ReActAgent", "ToolMode", "native_calls_work", "refuses_tools"]

log = logging.getLogger(__name__)

ToolMode = Literal["native", "text", "auto"]

#: A run's deadline when none is given and the endpoint's speed is not measured (or fast).
DEFAULT_DEADLINE_S = 300.0
#: However slow the server, a turn may write this many tokens: a short thought and one call.
MIN_TURN_TOKENS = 96
#: Auto mode, an endpoint not yet seen making native calls: the first turn may write this many
#: tokens. A small model that goes to prose instead of calling a tool is cut short (it used to
#: write ~10 s of it on a 1.5B model) and the turn is asked again in the text protocol.
FIRST_NATIVE_TURN_TOKENS = 192
_CHARS_PER_TOKEN = 4
_TURN_PROMPT_TOKENS = 1500
_PKG = "colmeia.agents"


def _as_registry(tools: ToolRegistry | Iterable[Tool] | None) -> ToolRegistry:
    if tools is None:
        return ToolRegistry()
    if isinstance(tools, ToolRegistry):
        return tools
    return ToolRegistry(tools)


def _call_key(name: str, arguments: dict[str, Any] | None, raw: str | None = None) -> str:
    """What makes two calls "the same": the name and what the model sent.

    Arguments that could not be read are compared by their raw text, so two different
    unreadable calls are never taken for a repeat.
    """
    try:
        args = orjson.dumps(arguments or {}, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:
        args = repr(sorted((arguments or {}).items()))
    return f"{name}\x00{args}\x00{(raw or '').strip() if not arguments else ''}"


# An HTTP error means "this server has no tools" only when it says so: a 400 for a long
# context or a bad parameter must not switch the agent to the text protocol.
_TOOLS_WORD = re.compile(r"\btools?\b|tool_choice|function.?call", re.I)
_REFUSAL = re.compile(
    r"not (?:be )?supported|unsupported|does ?n[o']t support|not implemented|not allowed|"
    r"unrecognized|unknown (?:field|param|argument|key)|extra (?:inputs|fields)|"
    r"not permitted|no tool|cannot use tools|don't support",
    re.I,
)


# Endpoints (URL and model) whose model, offered native tools, writes its calls as text:
# learned once per process in auto mode, so later runs and sub-agents start in text.
_TEXT_CALLERS: set[tuple[str, str]] = set()


def _endpoint(model: ChatModel) -> tuple[str, str]:
    return (str(getattr(model, "base_url", id(model))), model.model)


def _kept(model: ChatModel, name: str) -> Any:
    """A verdict about ``model``'s endpoint kept by an earlier process (``None``: not known)."""
    base_url = getattr(model, "base_url", None)
    return recall(str(base_url), model.model, name) if base_url else None


def _keep(model: ChatModel, name: str, value: Any) -> None:
    base_url = getattr(model, "base_url", None)
    if base_url:
        remember(str(base_url), model.model, name, value)


def writes_calls_as_text(model: ChatModel) -> bool:
    """Whether ``model`` was seen writing its tool calls as text, in this process or in one
    that ran within the last ten minutes (so auto mode starts in the text protocol)."""
    key = _endpoint(model)
    if key in _TEXT_CALLERS:
        return True
    if _kept(model, "calls_as_text") is True:
        _TEXT_CALLERS.add(key)
        return True
    return False


_NATIVE_WORKS: dict[tuple[str, str], bool] = {}


async def native_calls_work(model: ChatModel) -> bool:
    """Whether ``model`` answers a plain request to call a tool with a native tool call.

    Asked once per endpoint and process (a short request); a model error says nothing about
    tools, so it is not remembered and counts as "works".
    """
    key = _endpoint(model)
    if key in _NATIVE_WORKS:
        return _NATIVE_WORKS[key]
    kept = _kept(model, "native_calls")
    if isinstance(kept, bool):
        _NATIVE_WORKS[key] = kept
        return kept
    word = {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}
    probe = ToolSpec("ping", "Answer a ping.", word)
    try:
        result = await model.chat(
            [Message.user('Call the tool ping with the word "colmeia".')],
            tools=[probe],
            tool_choice="auto",
            max_tokens=60,
        )
    except ModelError as exc:
        log.info("the tool-call probe failed (%s); assuming native calls work", exc)
        return True
    works = bool(result.tool_calls) and not result.tool_calls_recovered
    _NATIVE_WORKS[key] = works
    _keep(model, "native_calls", works)
    log.info("%s: native tool calls %s", key, "work" if works else "do not work")
    return works


def refuses_tools(exc: ModelHTTPError) -> bool:
    """Whether ``exc`` is a server saying it does not do native tool calls."""
    if exc.status == 501:
        return True
    if exc.status not in (400, 404, 405, 422):
        return False
    message = str(exc)
    return bool(_TOOLS_WORD.search(message) and _REFUSAL.search(message))


def _norm(text: str) -> str:
    return " ".join(text.split()).strip(" .").lower()


def _close_pending_calls(messages: Sequence[Message]) -> list[Message]:
    """The conversation with a "(not run)" result for every tool call left without one.

    APIs refuse a conversation in which an assistant's tool call has no tool message.
    """
    out: list[Message] = []
    pending: list[ToolCall] = []

    def flush() -> None:
        answered = {m.tool_call_id for m in out if m.role == "tool"}
        out.extend(Message.tool(c.id, "(not run)", c.name) for c in pending if c.id not in answered)
        pending.clear()

    for message in messages:
        if message.role != "tool":
            flush()
        out.append(message)
        if message.role == "assistant" and message.tool_calls:
            pending.extend(message.tool_calls)
    flush()
    return out


@dataclass(slots=True)
class _Stop:
    status: RunStatus
    reason: str
    error: str | None = None


@dataclass(slots=True)
class _Run:
    """The state of one run."""

    task: str
    trace: Trace
    messages: list[Message]
    mode: Literal["native", "text"]
    started: float
    calls: Counter[str] = field(default_factory=Counter)
    failures: FailureCounter = field(default_factory=FailureCounter)
    format_errors: int = 0
    phase: str = "model"
    last_text: str = ""
    offered: list[Tool] = field(default_factory=list)
    turns_left: int = 1
    deadline: float = 0.0
    timeout: asyncio.Timeout | None = None
    numbers: TaskNumbers = field(default_factory=TaskNumbers)
    numbers_checked: bool = False
    #: the first native turn was bounded by FIRST_NATIVE_TURN_TOKENS
    first_bounded: bool = False


class ReActAgent:
    """A ReAct agent over a :class:`~colmeia.llm.base.ChatModel` and a tool registry.

    Args:
        model: the chat model.
        tools: a registry or tools; none makes it a plain chat loop.
        tool_mode: ``native`` tool calls, the ``text`` protocol, or ``auto``.
        max_steps: model turns at most (each may call tools).
        deadline: seconds for the whole run, model and tools included (a hard cap). ``None``:
            :data:`DEFAULT_DEADLINE_S`, extended when the endpoint is measured too slow for
            ``max_steps`` turns.
        max_tool_failures: consecutive failures of one tool that end the run.
        loop_limit: identical calls (same tool, same input) that count as a loop.
        max_format_errors: text mode: unreadable replies tolerated; after that a reply
            without markers is taken as the final answer.
        retrieval_threshold: with more tools than this, offer only ``retrieval_k`` per step.
        answer_on_limit: when a limit stops the run, ask once (without tools) for the best
            answer so far, so the trace still carries one.
        require_tool_first: the first turn must call a tool, for tasks that cannot be answered
            without looking something up (native mode: ``tool_choice="required"``, and the
            model layer repairs a prose reply; text mode: an answer before any call is sent
            back, at most ``max_format_errors`` times).
        instructions: extra system instructions (role, tone, domain rules).
        max_tokens: tokens one model turn may write; bounds a small model that runs on. On an
            endpoint measured slow (``model.speed``) a turn gets fewer: what fits in its share
            of the time left (at least :data:`MIN_TURN_TOKENS`).
        temperature: sampling temperature of every call; 0 by default so that the same task
            runs the same way twice (``None``: the model's own default). Recorded in the trace.
        role: replaces the system prompt's first line ("You are a careful assistant…"): who
            the agent is. The protocol that follows it stays.
        few_shot: worked examples shown at the end of the system prompt (see
            :func:`colmeia.agents.few_shot.load_few_shot`).
    """

    paradigm = "react"

    def __init__(
        self,
        model: ChatModel,
        tools: ToolRegistry | Iterable[Tool] | None = None,
        *,
        tool_mode: ToolMode = "auto",
        max_steps: int = 8,
        deadline: float | None = None,
        max_tool_failures: int = 3,
        loop_limit: int = 3,
        max_format_errors: int = 2,
        retrieval_threshold: int = 20,
        retrieval_k: int = 6,
        retriever: ToolRetriever | None = None,
        always_offer: Sequence[str] = (),
        answer_on_limit: bool = True,
        require_tool_first: bool = False,
        instructions: str = "",
        max_observation_chars: int = 4000,
        max_tokens: int | None = 800,
        temperature: float | None = 0.0,
        role: str = "",
        few_shot: str = "",
    ) -> None:
        if tool_mode not in ("native", "text", "auto"):
            raise ConfigurationError(f"tool_mode must be native, text or auto, not {tool_mode!r}")
        if max_steps < 1:
            raise ConfigurationError("max_steps must be at least 1")
        if loop_limit < 2:
            raise ConfigurationError("loop_limit must be at least 2 (a loop is a repeat)")
        if deadline is not None and deadline <= 0:
            raise ConfigurationError("deadline must be positive (seconds)")
        self.model = model
        self.registry = _as_registry(tools)
        self.tool_mode: ToolMode = tool_mode
        self.max_steps = max_steps
        self.deadline = deadline
        self.max_tool_failures = max_tool_failures
        self.loop_limit = loop_limit
        self.max_format_errors = max_format_errors
        self.retrieval_threshold = retrieval_threshold
        self.retrieval_k = retrieval_k
        self.always_offer = tuple(always_offer)
        self.answer_on_limit = answer_on_limit
        self.require_tool_first = require_tool_first
        self.instructions = instructions
        self.max_observation_chars = max_observation_chars
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.role = role.strip()
        self.few_shot = few_shot.strip()
        self._retriever = retriever
        self._native_refused = False

    # ------------------------------------------------------------------ tools offered

    @property
    def retriever(self) -> ToolRetriever | None:
        if len(self.registry) <= self.retrieval_threshold:
            return None
        if self._retriever is None or len(self._retriever.tools) != len(self.registry):
            self._retriever = ToolRetriever(list(self.registry))
        return self._retriever

    def select_tools(self, query: str) -> list[Tool]:
        """The tools offered for a step: all of them, or the most relevant few."""
        retriever = self.retriever
        if retriever is None:
            return list(self.registry)
        return retriever.select(query, self.retrieval_k, always=self.always_offer)

    def _system(
        self,
        mode: Literal["native", "text"],
        offered: Sequence[Tool],
        numbers: TaskNumbers | None = None,
    ) -> Message:
        number_notes = numbers.notes if numbers else []
        rate_notes = list(numbers.rates) if numbers else []
        if mode == "native":
            text = render_prompt(
                _PKG,
                "react_native.j2",
                tools=bool(offered),
                instructions=self.instructions,
                number_notes=number_notes,
                rate_notes=rate_notes,
                role=self.role,
                few_shot=self.few_shot,
            )
        else:
            # Parameters and an example call, not the JSON Schema: small models copy a schema
            # back as their arguments, and imitate an example faithfully.
            views = [
                {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.describe_parameters(),
                    "example": example_call(t),
                }
                for t in offered
            ]
            example = views[0]["example"] if views else ""
            name, _, args = example.partition("(")
            text = render_prompt(
                _PKG,
                "react_text.j2",
                tools=views,
                example_name=name,
                example_args=args[:-1],
                instructions=self.instructions,
                number_notes=number_notes,
                rate_notes=rate_notes,
                role=self.role,
                few_shot=self.few_shot,
            )
        return Message.system(text)

    # ------------------------------------------------------------------ running

    async def run(
        self,
        task: str,
        *,
        context: Sequence[Message] = (),
        on_step: StepCallback | None = None,
        max_steps: int | None = None,
        numbers_from: str | None = None,
    ) -> Trace:
        """Work on ``task`` until an answer or a limit; always returns a :class:`Trace`.

        Numbers a Portuguese/Spanish task writes its own way ("7.893", "3,75") are spelled out
        for tool arguments in the system prompt; ``numbers_from`` is the text to read them from
        when ``task`` is a prompt built around the user's task (a plan step, a critique).
        """
        trace = Trace(paradigm=self.paradigm, task=task, on_step=on_step)
        trace.settings["temperature"] = self.temperature
        mode: Literal["native", "text"] = (
            "text"
            if self.tool_mode == "text"
            or self._native_refused
            or (self.tool_mode == "auto" and writes_calls_as_text(self.model))
            else "native"
        )
        if not self.registry:
            mode = "native"  # nothing to call: a plain chat turn
        steps = max_steps or self.max_steps
        run = _Run(task, trace, [], mode, time.perf_counter())
        run.deadline = self.deadline_for(steps)
        run.failures = FailureCounter(self.max_tool_failures)
        run.offered = self.select_tools(task)
        run.numbers = TaskNumbers.of(numbers_from if numbers_from is not None else task)
        run.messages = [
            self._system(mode, run.offered, run.numbers),
            *context,
            Message.user(task),
        ]
        with track_usage() as tracker:
            stop: _Stop | None = None
            try:
                async with asyncio.timeout(run.deadline) as run.timeout:
                    stop = await self._loop(run, steps)
            except TimeoutError:
                where = "waiting for the model" if run.phase == "model" else "running a tool"
                message = f"the run deadline of {run.deadline:g}s passed while {where}"
                stop = _Stop(RunStatus.MAX_STEPS, "deadline", message)
            except ModelOutputError as exc:
                # the model answered, but not in a usable form (prose where a call was required)
                stop = _Stop(RunStatus.MODEL_ERROR, "model_output", str(exc))
            except ModelError as exc:
                stop = _Stop(RunStatus.MODEL_ERROR, "model_error", str(exc))
            if stop.status != RunStatus.FINISHED:
                # The deadline is a hard cap: no extra call after it.
                if (
                    stop.status != RunStatus.MODEL_ERROR
                    and stop.reason != "deadline"
                    and self.answer_on_limit
                ):
                    await self._answer_on_limit(run, stop)
                trace.finish(stop.status, error=stop.error, stop_reason=stop.reason)
        trace.usage = tracker.usage
        trace.elapsed_s = time.perf_counter() - trace.started
        return trace

    def run_sync(
        self,
        task: str,
        *,
        context: Sequence[Message] = (),
        on_step: StepCallback | None = None,
        max_steps: int | None = None,
    ) -> Trace:
        """Blocking :meth:`run` (same arguments), for scripts."""
        return run_blocking(
            lambda: self.run(task, context=context, on_step=on_step, max_steps=max_steps),
            [self.model],
        )

    def _max_tokens(self, run: _Run) -> int | None:
        """Tokens this turn may write: ``max_tokens``, or fewer when the endpoint's measured
        speed says that many would not fit in this turn's share of the time left.

        A slow server (a 1.5B model on a busy laptop) then writes a shorter turn instead of
        being cut off by the run's deadline in the middle of a reply.
        """
        limit = self.max_tokens
        speed = getattr(self.model, "speed", None)
        if limit is None or not isinstance(speed, Speed):
            return limit
        prompt = sum(len(m.content or "") for m in run.messages) // _CHARS_PER_TOKEN
        share = self._remaining(run) / max(1, run.turns_left)
        fits = speed.max_tokens_within(share, prompt_tokens=prompt)
        if fits is None:  # not measured yet
            return limit
        return max(min(MIN_TURN_TOKENS, limit), min(limit, fits))

    def _remaining(self, run: _Run) -> float:
        return max(0.1, run.deadline - (time.perf_counter() - run.started))

    def deadline_for(self, steps: int) -> float:
        """``deadline`` when given; otherwise :data:`DEFAULT_DEADLINE_S`, or longer when the
        endpoint's measured speed says ``steps`` turns need it (three times the expected time
        of a turn with a 1,500-token prompt and ``max_tokens`` of answer, as for requests)."""
        if self.deadline is not None:
            return self.deadline
        speed = getattr(self.model, "speed", None)
        if not isinstance(speed, Speed):
            return DEFAULT_DEADLINE_S
        turn = speed.seconds_for(_TURN_PROMPT_TOKENS, self.max_tokens or 800)
        return DEFAULT_DEADLINE_S if turn is None else max(DEFAULT_DEADLINE_S, 3 * steps * turn)

    def _extend_deadline(self, run: _Run, steps: int) -> None:
        """No deadline given: after a turn has measured the endpoint, give a slow one time."""
        if self.deadline is not None or run.timeout is None:
            return
        wanted = self.deadline_for(steps)
        if wanted > run.deadline:
            left = wanted - (time.perf_counter() - run.started)
            run.deadline = wanted
            run.timeout.reschedule(asyncio.get_running_loop().time() + left)

    async def _chat(self, run: _Run) -> ChatResult:
        run.phase = "model"
        if run.mode == "native" and run.offered:
            first = self.require_tool_first and not run.trace.tool_calls
            limit = self._max_tokens(run)
            if self._unproven(run):
                run.first_bounded = True
                limit = min(limit or FIRST_NATIVE_TURN_TOKENS, FIRST_NATIVE_TURN_TOKENS)
            try:
                return await self.model.chat(
                    run.messages,
                    tools=[t.spec() for t in run.offered],
                    tool_choice="required" if first else "auto",
                    require_tool=first,
                    max_tokens=limit,
                    temperature=self.temperature,
                )
            except ModelHTTPError as exc:
                if self.tool_mode != "auto" or not refuses_tools(exc):
                    raise
                # The server said in words that it has no tools: remember it for this agent.
                log.warning("the model server refused native tools (%s); using text", exc)
                self._native_refused = True
                run.mode = "text"
                run.messages[0] = self._system("text", run.offered, run.numbers)
        # No per-call deadline here: the model keeps its own, the run's is enforced around it.
        return await self.model.chat(
            run.messages, max_tokens=self._max_tokens(run), temperature=self.temperature
        )

    def _unproven(self, run: _Run) -> bool:
        """Auto mode, first turn, and this endpoint not known to make native calls."""
        if self.tool_mode != "auto" or run.trace.steps or run.first_bounded:
            return False
        known = _NATIVE_WORKS.get(_endpoint(self.model))
        return known is not True and _kept(self.model, "native_calls") is not True

    async def _calls_as_text(self, run: _Run, result: ChatResult) -> bool:
        """Auto mode, first native turn: does this model fail to make native tool calls?

        Yes when it wrote its call as text, or described one in prose; and, when it answered
        without any call, when a one-off probe shows the endpoint never returns native calls
        (small models on llama.cpp often answer in prose, computing in their heads).
        """
        if self.tool_mode != "auto" or run.mode != "native" or not run.offered:
            return False
        if run.trace.tool_calls or any(s.kind == "format_error" for s in run.trace.steps):
            return False  # native calls already worked (or were already nudged) in this run
        if result.tool_calls:
            return result.tool_calls_recovered
        text = result.raw_content or result.content
        parsed = parse_reply(text, [t.name for t in run.offered])
        if parsed.is_action or mentioned_tools(result.content, run.offered):
            return True
        return not await native_calls_work(self.model)

    async def _loop(self, run: _Run, max_steps: int) -> _Stop:
        for turn in range(max_steps):
            run.turns_left = max_steps - turn
            if turn and self.retriever is not None:
                # Later steps may need other tools: search with what was learned so far.
                offered = self.select_tools(f"{run.task}\n{run.last_text}")
                if [t.name for t in offered] != [t.name for t in run.offered]:
                    run.offered = offered
                    if run.mode == "text":
                        run.messages[0] = self._system("text", offered, run.numbers)
            started = time.perf_counter()
            result = await self._chat(run)
            self._extend_deadline(run, max_steps)
            # Prose cut at the first turn's bound: no native call was coming this time. The run
            # goes on in text, but nothing is remembered (a capable model may just have had a
            # lot to say); a call written as text is a verdict about the model, kept.
            cut = (
                run.first_bounded
                and not run.trace.steps
                and not result.tool_calls
                and result.finish_reason == "length"
            )
            if cut or await self._calls_as_text(run, result):
                # The server took the tools, but the model wrote its call as text: the text
                # protocol, made for exactly that, serves it better. Ask again in it.
                if not cut:
                    _TEXT_CALLERS.add(_endpoint(self.model))
                    _keep(self.model, "calls_as_text", True)
                run.mode = "text"
                run.messages[0] = self._system("text", run.offered, run.numbers)
                run.trace.add(
                    "mode",
                    thought=result.raw_content or result.content,
                    observation="the model writes tool calls as text: using the text protocol",
                    prompt_tokens=result.usage.prompt_tokens,
                    completion_tokens=result.usage.completion_tokens,
                    latency_s=time.perf_counter() - started,
                )
                result = await self._chat(run)
            latency = time.perf_counter() - started
            tokens = {
                "prompt_tokens": result.usage.prompt_tokens,
                "completion_tokens": result.usage.completion_tokens,
            }
            if run.mode == "native" and result.tool_calls:
                run.messages.append(result.to_message())
                thought = result.content or (result.reasoning or "")
                if result.tool_calls_recovered and not thought:
                    # The call was written as text: the words before it are the thought.
                    thought = thought_before_call(result.raw_content or "")
                for call in result.tool_calls:
                    stop = await self._act(run, call, thought, tokens, latency)
                    tokens = {"prompt_tokens": 0, "completion_tokens": 0}
                    latency = 0.0
                    if stop is not None:
                        return stop
                continue
            names = self.registry.names()
            parsed = parse_reply(result.raw_content or result.content, names)
            if run.mode == "native" and not parsed.is_action:
                nudged = await self._announced(run, result, parsed, tokens, latency)
                if nudged is not False:
                    if nudged is not None:
                        return nudged
                    continue
                # A plain reply in native mode is the answer, without any protocol words in it.
                answer = answer_from(result.content, names)
                if answer is None:
                    stop = self._protocol_only(run, result.content, tokens, latency)
                    if stop is not None:
                        return stop
                    continue
                thought = result.reasoning or ""
                run.trace.add(
                    "answer", thought=thought, observation=answer, latency_s=latency, **tokens
                )
                run.trace.finish(RunStatus.FINISHED, answer, stop_reason="answer")
                return _Stop(RunStatus.FINISHED, "answer")
            # What the model imagined after its action is not part of the conversation.
            said = parsed.used_text if parsed.imagined is not None else ""
            run.messages.append(
                Message.assistant(said or result.content or result.raw_content or "(empty reply)")
            )
            stop = await self._text_turn(run, parsed, tokens, latency)
            if stop is not None:
                return stop
        return _Stop(RunStatus.MAX_STEPS, "max_steps", f"no final answer within {max_steps} steps")

    async def _announced(
        self,
        run: _Run,
        result: ChatResult,
        parsed: ParsedReply,
        tokens: dict[str, int],
        latency: float,
    ) -> _Stop | None | Literal[False]:
        """Native mode: a reply that only *describes* a tool call is not the answer.

        Runs the call when the description is complete, or asks once (per
        ``max_format_errors``) for the call itself; ``False`` means the reply is the answer.
        """
        if parsed.is_final or not run.offered:
            return False
        text = result.content
        announced = announced_call(text, run.offered)
        if announced is not None:
            name, arguments = announced
            call = ToolCall(f"said_{len(run.trace.steps) + 1}", name, arguments)
            run.messages.append(Message.assistant(text, [call]))
            return await self._act(run, call, text, tokens, latency)
        named = mentioned_tools(text, run.offered)
        if (
            not named
            or any(s.ok for s in run.trace.tool_calls)
            or run.format_errors >= (self.max_format_errors)
        ):
            return False
        run.format_errors += 1
        problem = f"the reply described a call to {named[0].name} but did not make it"
        run.trace.add(
            "format_error", thought=text, observation=problem, ok=False, latency_s=latency, **tokens
        )
        run.messages.append(Message.assistant(text))
        run.messages.append(
            Message.user(
                render_prompt(
                    _PKG, "react_call_now.j2", tool=named[0].name, example=example_call(named[0])
                )
            )
        )
        return None

    async def _text_turn(
        self, run: _Run, parsed: ParsedReply, tokens: dict[str, int], latency: float
    ) -> _Stop | None:
        if parsed.is_final and self._tool_still_required(run):
            # Text mode has no tool_choice: the rule is kept by asking again, once or twice.
            run.format_errors += 1
            reply = render_prompt(_PKG, "react_tool_first.j2", example=example_call(run.offered[0]))
            self._send_back(
                run,
                parsed.thought,
                "the reply answered before calling a tool",
                reply,
                latency,
                tokens,
            )
            return None
        if parsed.is_final:
            answer = parsed.final_answer or ""
            run.trace.add(
                "answer", thought=parsed.thought, observation=answer, latency_s=latency, **tokens
            )
            run.trace.finish(RunStatus.FINISHED, answer, stop_reason="answer")
            return _Stop(RunStatus.FINISHED, "answer")
        if parsed.is_action and parsed.action is not None:
            tool = self.registry.get(parsed.action)
            sent = parsed.arguments or ({"input": parsed.raw_input} if parsed.raw_input else {})
            if parsed.error is not None:
                problem = f"Error: {parsed.error}."
                if tool is not None:
                    problem += f" Call it like: {example_call(tool)}"
                result = ToolResult(parsed.action, sent, problem, "invalid_arguments")
                return await self._observe(run, result, parsed.thought, tokens, latency, text=True)
            # An unknown tool keeps what the model sent, so the trace shows what it tried.
            args = coerce_arguments(tool, parsed) if tool is not None else sent
            call = ToolCall(
                id=f"text_{len(run.trace.steps) + 1}",
                name=parsed.action,
                arguments=args or {},
                raw_arguments=parsed.raw_input or "",
            )
            stop = await self._act(run, call, parsed.thought, tokens, latency, text=True)
            if stop is None and parsed.imagined is not None:
                return self._imagined_answer(run, parsed.imagined)
            return stop
        run.format_errors += 1
        prose = answer_from(parsed.thought)
        if run.format_errors > self.max_format_errors and prose:
            # A model that keeps answering in prose is answering: take it (its words, not a
            # bare "Thought:" line, which is the protocol).
            run.trace.add("answer", thought="", observation=prose, latency_s=latency, **tokens)
            run.trace.finish(RunStatus.FINISHED, prose, stop_reason="prose_answer")
            return _Stop(RunStatus.FINISHED, "prose_answer")
        problem = parsed.error or "the reply was empty"
        reply = render_prompt(
            _PKG,
            "react_format.j2",
            problem=problem,
            tool_names=self.registry.names(),
            example_args=example_call(run.offered[0]).partition("(")[2][:-1] if run.offered else "",
        )
        self._send_back(run, parsed.thought, problem, reply, latency, tokens)
        return None

    def _protocol_only(
        self, run: _Run, text: str, tokens: dict[str, int], latency: float
    ) -> _Stop | None:
        """Native mode: a reply that is only protocol (a bare ``Thought:``) is not an answer;
        it is sent back like a format error, and after ``max_format_errors`` the run stops
        with no answer rather than show the protocol to the user."""
        run.format_errors += 1
        problem = "the reply had neither a tool call nor an answer"
        if run.format_errors > self.max_format_errors:
            run.trace.add(
                "no_answer",
                thought=text,
                observation=problem,
                ok=False,
                latency_s=latency,
                **tokens,
            )
            return _Stop(RunStatus.MAX_STEPS, "no_answer", f"no answer: {problem}")
        run.messages.append(Message.assistant(text))
        self._send_back(
            run,
            text,
            problem,
            render_prompt(_PKG, "react_answer_now.j2"),
            latency,
            tokens,
        )
        return None

    @staticmethod
    def _send_back(
        run: _Run, thought: str, problem: str, reply: str, latency: float, tokens: dict[str, int]
    ) -> None:
        """A text-mode reply that does not stand: a ``format_error`` step, and ``reply`` (what
        to do instead) for the model."""
        run.trace.add(
            "format_error",
            thought=thought,
            observation=problem,
            ok=False,
            latency_s=latency,
            **tokens,
        )
        run.messages.append(Message.user(reply))

    def _tool_still_required(self, run: _Run) -> bool:
        """``require_tool_first`` and no tool called yet (while asking again is allowed)."""
        return (
            self.require_tool_first
            and bool(run.offered)
            and not run.trace.tool_calls
            and run.format_errors < self.max_format_errors
        )

    def _imagined_answer(self, run: _Run, imagined: tuple[str, str | None]) -> _Stop | None:
        """The model guessed the tool's result and went on to a Final Answer. When the guess
        is exactly what the tool returned, that answer rests on the real result: take it
        (it saves a turn, which on a small local model is many seconds)."""
        observation, answer = imagined
        last = run.trace.steps[-1]
        if not answer or not last.ok or _norm(observation) != _norm(last.observation):
            return None
        run.trace.add("answer", observation=answer, meta={"from_guessed_observation": True})
        run.trace.finish(RunStatus.FINISHED, answer, stop_reason="answer")
        return _Stop(RunStatus.FINISHED, "answer")

    async def _act(
        self,
        run: _Run,
        call: ToolCall,
        thought: str,
        tokens: dict[str, int],
        latency: float,
        *,
        text: bool = False,
    ) -> _Stop | None:
        restated = _restated_call(run.trace.steps, call)
        if restated is not None:
            # The call's whole input is a result this tool already gave ("397.8" after the
            # calculator returned 397.8): the model is pointing at its answer, and that answer
            # came from the tool. Running it again would only start a loop.
            run.trace.add(
                "answer",
                thought=thought,
                observation=restated,
                latency_s=latency,
                meta={"restated_call": call.name},
                **tokens,
            )
            run.trace.finish(RunStatus.FINISHED, restated, stop_reason="restated_result")
            return _Stop(RunStatus.FINISHED, "restated_result")
        key = _call_key(call.name, call.arguments, call.raw_arguments)
        run.calls[key] += 1
        seen = run.calls[key]
        if seen >= self.loop_limit:
            run.trace.add(
                "tool",
                thought=thought,
                tool=call.name,
                input=call.arguments,
                observation=f"not run: the same call was made {seen} times",
                ok=False,
                latency_s=latency,
                meta={"loop": True},
                **tokens,
            )
            message = (
                f"loop detected: {call.name} was called {seen} times with the same input "
                f"{orjson.dumps(call.arguments, default=str).decode()[:200]}"
            )
            return _Stop(RunStatus.LOOP_DETECTED, "loop", message)
        misread = [] if run.numbers_checked else run.numbers.copied_in(call.arguments)
        if misread:
            # Asked once per run: a model that sends the same numbers again is taken at its word.
            run.numbers_checked = True
            note = render_prompt(_PKG, "react_numbers.j2", notes=misread, tool=call.name)
            result = ToolResult(call.name, call.arguments, note, "invalid_arguments")
            return await self._observe(
                run, result, thought, tokens, latency, text=text, call_id=call.id
            )
        run.phase = "tool"
        result = await self.registry.execute(call.name, call.arguments)
        run.phase = "model"
        # A repeat gets a note for the model; the trace keeps the tool's own output, which is
        # what a best-answer fallback may show the user.
        repeat_note = (
            render_prompt(_PKG, "react_repeat.j2", tool=call.name, failed=not result.ok)
            if seen > 1
            else None
        )
        return await self._observe(
            run, result, thought, tokens, latency, text=text, call_id=call.id, note=repeat_note
        )

    async def _observe(
        self,
        run: _Run,
        result: ToolResult,
        thought: str,
        tokens: dict[str, int],
        latency: float,
        *,
        text: bool = False,
        call_id: str | None = None,
        note: str | None = None,
    ) -> _Stop | None:
        observation = result.output
        if len(observation) > self.max_observation_chars:
            observation = observation[: self.max_observation_chars] + " […]"
        run.last_text = observation
        shown = observation if note is None else f"{observation}\n{note}"
        run.trace.add(
            "tool",
            thought=thought,
            tool=result.name,
            input=result.arguments,
            observation=observation,
            ok=result.ok,
            latency_s=latency + result.latency_s,
            meta={"result": result.kind}
            | ({"repaired_from": result.repaired_from} if result.repaired_from else {})
            | ({"note": note} if note else {})
            # With a retriever, which few tools the model could choose from at this step.
            | ({"offered": [t.name for t in run.offered]} if self.retriever is not None else {}),
            **tokens,
        )
        if text:
            run.messages.append(Message.user(f"Observation: {shown}"))
        else:
            run.messages.append(Message.tool(call_id or "", shown, result.name))
        if run.failures.record(result):
            names = sorted(set(run.failures.names))
            who = (
                f"tool {names[0]!r}" if len(names) == 1 else "tools " + ", ".join(map(repr, names))
            )
            return _Stop(
                RunStatus.TOOL_FAILURES,
                "tool_failures",
                f"{self.max_tool_failures} tool calls failed in a row ({who}); "
                f"last error: {observation[:300]}",
            )
        return None

    async def _answer_on_limit(self, run: _Run, stop: _Stop) -> None:
        """One last call without tools, so a stopped run still has its best answer."""
        run.turns_left = 1
        messages = [
            *_close_pending_calls(run.messages),
            Message.user(
                render_prompt(_PKG, "react_limit.j2", reason=f"The run stopped: {stop.error}.")
            ),
        ]
        try:
            async with asyncio.timeout(self._remaining(run)):
                result = await self.model.chat(
                    messages, max_tokens=self._max_tokens(run), temperature=self.temperature
                )
        except (ModelError, TimeoutError) as exc:
            log.info("no answer after the run stopped: %s", exc)
            return
        parsed = parse_reply(result.content, self.registry.names())
        # Protocol text ("Thought: …\nAction: tool[…]") is not an answer: then there is none.
        answer = answer_from(result.content, self.registry.names())
        if answer is None:
            # ...unless the call only restates a result the tool already gave (a small model
            # "calculating" 397.8 again after the calculator said 397.8): that result is what
            # it is pointing at, and it came from the tool, not from the model.
            answer = _restated_result(run.trace.steps, parsed)
        if answer is None:
            run.trace.add(
                "no_answer",
                thought=result.content,
                observation="the last reply asked for a tool instead of answering: no answer",
                ok=False,
                prompt_tokens=result.usage.prompt_tokens,
                completion_tokens=result.usage.completion_tokens,
                latency_s=result.usage.latency_s,
                meta={"after_stop": stop.reason},
            )
            return
        if answer:
            run.trace.answer = answer
            run.trace.add(
                "answer",
                thought=parsed.thought if parsed.final_answer else "",
                observation=answer,
                prompt_tokens=result.usage.prompt_tokens,
                completion_tokens=result.usage.completion_tokens,
                latency_s=result.usage.latency_s,
                meta={"after_stop": stop.reason},
            )


def _restated_result(steps: list[Step], parsed: ParsedReply) -> str | None:
    """The tool result a final tool call merely repeats as its whole input, if any."""
    if parsed.action is None:
        return None
    given = [str(v).strip() for v in (parsed.arguments or {}).values()]
    if parsed.raw_input:
        given.append(parsed.raw_input.strip().strip("\"'"))
    results = {s.observation.strip() for s in steps if s.kind == "tool" and s.ok and s.observation}
    for value in given:
        if value and value in results:
            return value
    return None


def _restated_call(steps: list[Step], call: ToolCall) -> str | None:
    """A result of ``call``'s own tool that the call repeats as its only input, if any."""
    values = [str(v).strip() for v in (call.arguments or {}).values()]
    if len(values) != 1 or not values[0]:
        return None
    for step in steps:
        restates = step.ok and step.observation.strip() == values[0]
        if step.kind == "tool" and step.tool == call.name and restates:
            return values[0]
    return None
