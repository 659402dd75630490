"""A ChatModel for any OpenAI-compatible server (OpenAI, Azure OpenAI, Ollama, vLLM, llama.cpp…).

The wire format is spoken directly over :mod:`colmeia.llm.transport` (aiohttp), through the
shared :class:`~colmeia.llm.http.EndpointClient` (retries, deadline, per-server concurrency).

Reliability lives here, once, for everything above:

* transport: retries with exponential backoff and jitter on 5xx, connection errors and
  timeouts; 429s wait as long as ``Retry-After`` says, on a budget of their own; one deadline
  bounds the whole call; a concurrency limit per server;
* compatibility: what the endpoint honours (tool choice in each form, JSON Schema or JSON object
  output) is learned from its answers and shared by every client of it
  (:mod:`colmeia.llm.capabilities`); each call picks the best form still believed to work and
  falls back when the server refuses or ignores it — no single error switches a mode for good;
* output: ``<think>`` blocks and reasoning fields are stripped, tool calls written as text are
  recovered, structured answers are validated with Pydantic and repaired by feeding the error
  back; prose where JSON or a tool call was required is retried with reasoning turned off;
* accounting: every call's tokens, requests, retries, repairs, latency and cost; the endpoint's
  measured speed (``model.profile.speed``).

A call returns a valid result or raises a :class:`~colmeia.errors.ModelError`; never ``None``.
The error's ``usage`` says what the failed call cost (requests, retries, repairs, tokens), so a
caller's audit trail can count the work a failure took. Every rendered prompt and raw answer is
logged at INFO on ``colmeia.llm.trace`` (``colmeia -v …`` shows them).
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import orjson
from pydantic import BaseModel, ValidationError

from colmeia.config import LLMSettings
from colmeia.errors import (
    ConfigurationError,
    ModelError,
    ModelOutputError,
    ModelUnsupportedError,
)
from colmeia.llm.base import (
    NOT_GIVEN,
    SIMULATED_FINGERPRINT,
    ChatResult,
    Message,
    NotGiven,
    StreamEvent,
    StreamSink,
    StructuredResult,
    ToolCall,
    ToolChoice,
    ToolSpec,
    Usage,
    current_sink,
    current_tracker,
)
from colmeia.llm.capabilities import EndpointProfile, Speed, endpoint_profile
from colmeia.llm.http import EndpointClient, FeatureRefused
from colmeia.llm.json_schema import inline_refs
from colmeia.llm.notice import NO_MODEL_HINT
from colmeia.llm.prompts import render_prompt
from colmeia.llm.providers import ProviderPreset, StructuredMode, preset_for
from colmeia.llm.refusals import Feature
from colmeia.llm.textparse import find_json, recover_tool_calls, split_reasoning
from colmeia.tracing import record_span

__all__ = ["TRACE_LOGGER", "OpenAIChatModel"]

log = logging.getLogger(__name__)
#: Logger of every rendered prompt and raw answer (INFO); ``colmeia -v`` shows it.
TRACE_LOGGER = "colmeia.llm.trace"
trace = logging.getLogger(TRACE_LOGGER)
T = TypeVar("T", bound=BaseModel)
Thinking = Literal["auto", "off", "on"]
_PROMPTS = "colmeia.llm"
_ERROR_SNIPPET = 300
_MAX_REFUSALS = 6
# How a call asks for a tool: by name, "required" (with all tools, or only the named one),
# "auto", no tool_choice at all, or tools described in the prompt (no native tools).
ToolForm = Literal["named", "required_one", "required", "auto", "omit", "prompt"]
_FORM_FEATURE: dict[str, Feature] = {
    "named": "tool_choice_named",
    "required_one": "tool_choice_required",
    "required": "tool_choice_required",
    "auto": "tool_choice_auto",
}
_FORMS: dict[str, tuple[ToolForm, ...]] = {
    "named": ("named", "required_one", "auto", "prompt"),
    "required": ("required", "auto", "prompt"),
    "auto": ("auto", "omit", "prompt"),
}
_STRUCTURED_AUTO: tuple[StructuredMode, ...] = ("json_schema", "json_object", "prompt")
_MODE_FEATURE: dict[str, Feature] = {"json_schema": "json_schema", "json_object": "json_object"}


def _wire_message(m: Message) -> dict[str, Any]:
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.tool_calls:
        out["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {
                    "name": c.name,
                    "arguments": c.raw_arguments or orjson.dumps(c.arguments).decode(),
                },
            }
            for c in m.tool_calls
        ]
    if m.tool_call_id is not None:
        out["tool_call_id"] = m.tool_call_id
    if m.name is not None and m.role == "tool":
        out["name"] = m.name
    return out


class _OutputProblem(Exception):
    """An answer that arrived but cannot be used; ``kind`` decides the repair."""

    def __init__(self, kind: Literal["prose", "truncated", "invalid"], error: str, raw: str):
        super().__init__(error)
        self.kind = kind
        self.error = error
        self.raw = raw


@dataclass(slots=True)
class _Attempt:
    """One parsed response."""

    content: str
    reasoning: str | None
    raw_content: str
    tool_calls: list[ToolCall]
    bad_tool_calls: list[str]
    finish_reason: str | None
    recovered: bool = False


@dataclass(slots=True)
class _CallState:
    usage: Usage = field(default_factory=Usage)
    started: float = field(default_factory=time.perf_counter)
    deadline_at: float = 0.0
    deadline_s: float = 0.0
    reasoning_off: bool = False
    refusals: int = 0


class OpenAIChatModel:
    """Async :class:`~colmeia.llm.base.ChatModel` for any OpenAI-compatible server.

    Per-call arguments left as ``NOT_GIVEN`` fall back to this object's defaults.
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str = "",
        provider: str = "generic",
        api_version: str = "2024-10-21",
        timeout: float = 60.0,
        deadline: float = 300.0,
        max_retries: int = 3,
        max_rate_limit_retries: int = 8,
        max_repairs: int = 4,
        max_concurrency: int = 64,
        temperature: float | None = None,
        max_tokens: int | None = None,
        structured_mode: StructuredMode | Literal["auto"] = "auto",
        thinking: Thinking = "auto",
        backoff_base: float = 0.25,
        price_input_per_mtok: float = 0.0,
        price_output_per_mtok: float = 0.0,
    ) -> None:
        if not base_url:
            raise ConfigurationError(NO_MODEL_HINT)
        if not base_url.startswith(("http://", "https://")):
            raise ConfigurationError(
                f"COLMEIA_LLM_BASE_URL must start with http:// or https://, got {base_url!r}."
            )
        if not model:
            raise ConfigurationError(
                f"No model name for {base_url}: set COLMEIA_LLM_MODEL to a model the server has."
            )
        self._base_url = base_url.rstrip("/")
        self._model = model
        self._api_key = api_key or "not-needed"
        self._preset: ProviderPreset = preset_for(provider)
        self._provider = provider
        self._api_version = api_version
        self.timeout = timeout
        self.deadline = deadline
        self.max_retries = max_retries
        self.max_rate_limit_retries = max_rate_limit_retries
        self.max_repairs = max_repairs
        self.max_concurrency = max_concurrency
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.thinking: Thinking = thinking
        self.backoff_base = backoff_base
        self.price_input_per_mtok = price_input_per_mtok
        self.price_output_per_mtok = price_output_per_mtok
        self._structured_config: StructuredMode | Literal["auto"] = structured_mode
        if provider == "azure":
            # Azure: the model is the deployment name, the key goes in `api-key`.
            endpoint = self._base_url.removesuffix("/openai")
            url = f"{endpoint}/openai/deployments/{model}"
            headers = {"api-key": self._api_key}
            query: dict[str, str] | None = {"api-version": api_version}
        else:
            url, headers, query = self._base_url, {"authorization": f"Bearer {self._api_key}"}, None
        self._path = "/chat/completions"
        self._http = EndpointClient(
            url,
            headers,
            model=model,
            query=query,
            timeout=timeout,
            max_retries=max_retries,
            max_rate_limit_retries=max_rate_limit_retries,
            max_concurrency=max_concurrency,
            backoff_base=backoff_base,
        )
        self._profile = endpoint_profile(self._base_url, model)
        self.usage = Usage()

    @classmethod
    def from_settings(cls, settings: LLMSettings, **overrides: Any) -> OpenAIChatModel:
        """A model from ``COLMEIA_LLM_*`` settings; keyword overrides win."""
        kwargs: dict[str, Any] = {
            "base_url": settings.base_url or "",
            "model": settings.model,
            "api_key": settings.api_key.get_secret_value(),
            "provider": settings.provider,
            "api_version": settings.api_version,
            "timeout": settings.timeout,
            "deadline": settings.deadline,
            "max_retries": settings.max_retries,
            "max_rate_limit_retries": settings.max_rate_limit_retries,
            "max_repairs": settings.max_repairs,
            "max_concurrency": settings.max_concurrency,
            "temperature": settings.temperature,
            "max_tokens": settings.max_tokens,
            "structured_mode": settings.structured_mode,
            "price_input_per_mtok": settings.price_input_per_mtok,
            "price_output_per_mtok": settings.price_output_per_mtok,
        }
        kwargs.update(overrides)
        return cls(**kwargs)

    # ------------------------------------------------------------------ properties

    @property
    def model(self) -> str:
        """The model name sent to the server."""
        return self._model

    @property
    def base_url(self) -> str:
        return self._base_url

    @property
    def provider(self) -> str:
        return self._provider

    @property
    def structured_mode(self) -> StructuredMode:
        """The mode the next structured call starts with (configured, or learned per endpoint)."""
        return self._structured_modes()[0]

    @property
    def profile(self) -> EndpointProfile:
        """What this endpoint honours and how fast it is, learned so far (shared per endpoint)."""
        return self._profile

    @property
    def speed(self) -> Speed:
        """The endpoint's measured speed (``gen_tps`` is ``None`` until a call was timed)."""
        return self._profile.speed

    def __repr__(self) -> str:
        return f"OpenAIChatModel(model={self._model!r}, base_url={self._base_url!r})"

    # ------------------------------------------------------------------ transport

    async def aclose(self) -> None:
        """Close the HTTP connections opened from the running event loop."""
        await self._http.aclose()

    async def __aenter__(self) -> OpenAIChatModel:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def _request_timeout(self, params: dict[str, Any]) -> float:
        """The per-request timeout, raised for an endpoint measured too slow to answer in it."""
        limit = params.get("max_tokens") or 512
        prompt = sum(len(str(m.get("content") or "")) for m in params["messages"]) // 4
        expected = self._profile.speed.seconds_for(prompt, int(limit))
        return self.timeout if expected is None else max(self.timeout, 3.0 * expected)

    async def _send(
        self, params: dict[str, Any], state: _CallState, *, stream: bool = True
    ) -> dict[str, Any]:
        """One logical request with transport retries; returns the decoded completion.

        Inside :func:`~colmeia.llm.base.stream_to` (and with ``stream``) the request is
        streamed: deltas go to the sink as they arrive and the chunks are put back together
        into the completion a plain request returns, so everything after this is the same.
        Raises :class:`FeatureRefused` when the server's error says it refuses a feature.
        """
        number = state.usage.requests + 1
        if trace.isEnabledFor(logging.INFO):
            trace.info(
                "prompt #%d to %s at %s:\n%s", number, self._model, self._base_url, _show(params)
            )
        sink = current_sink() if stream else None
        if sink is not None:
            completion = await self._send_streamed(params, state, sink)
            if trace.isEnabledFor(logging.INFO):
                trace.info("reply #%d (streamed):\n%s", number, _show_reply(completion))
            return completion
        reply = await self._http.post(
            self._path,
            params,
            usage=state.usage,
            deadline_at=state.deadline_at,
            deadline_s=state.deadline_s,
            timeout=self._request_timeout(params),
        )
        completion = reply.data
        usage = completion.get("usage") or {}
        self._profile.observe_speed(
            completion,
            reply.elapsed_s,
            int(usage.get("prompt_tokens") or 0),
            int(usage.get("completion_tokens") or 0),
        )
        if trace.isEnabledFor(logging.INFO):
            trace.info("reply #%d (%.1fs):\n%s", number, reply.elapsed_s, _show_reply(completion))
        return completion

    async def _send_streamed(
        self, params: dict[str, Any], state: _CallState, sink: StreamSink
    ) -> dict[str, Any]:
        """Stream one request into ``sink``; the chunks joined into one completion.

        Content deltas reach the sink with ``<think>`` blocks held back; tool-call deltas
        (``index``, then ``id``/``name`` and pieces of ``arguments``) are joined per index, their
        arguments also sent on as they come.
        """
        body = {**params, "stream": True, "stream_options": {"include_usage": True}}
        sink.begin()
        shown = _ReasoningFilter()
        content: list[str] = []
        reasoning: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        out: dict[str, Any] = {"model": self._model}
        usage = {"prompt_tokens": 0, "completion_tokens": 0}
        finish: str | None = None
        started = time.perf_counter()
        async for event in self._http.stream(
            self._path,
            body,
            usage=state.usage,
            deadline_at=state.deadline_at,
            deadline_s=state.deadline_s,
            timeout=self._request_timeout(params),
        ):
            for key in ("model", "system_fingerprint", "timings"):
                if event.get(key):
                    out[key] = event[key]
            for key, value in (event.get("usage") or {}).items():
                if key in usage and isinstance(value, int):
                    usage[key] = value
            for choice in event.get("choices") or []:
                delta = choice.get("delta") or {}
                text = delta.get("content") or ""
                if isinstance(text, str) and text:
                    content.append(text)
                    visible = shown.feed(text)
                    if visible:
                        sink.delta(visible, "content")
                thought = delta.get("reasoning_content") or delta.get("reasoning") or ""
                if isinstance(thought, str) and thought:
                    reasoning.append(thought)
                for tc in delta.get("tool_calls") or []:
                    if not isinstance(tc, dict):
                        continue
                    slot = calls.setdefault(
                        int(tc.get("index") or 0),
                        {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
                    )
                    if tc.get("id"):
                        slot["id"] = str(tc["id"])
                    fn = tc.get("function") or {}
                    if fn.get("name"):
                        slot["function"]["name"] += str(fn["name"])
                    piece = fn.get("arguments")
                    if isinstance(piece, dict):  # some servers send an object, not a string
                        piece = orjson.dumps(piece).decode()
                    if isinstance(piece, str) and piece:
                        slot["function"]["arguments"] += piece
                        sink.delta(piece, "arguments")
                finish = choice.get("finish_reason") or finish
        elapsed = time.perf_counter() - started
        message: dict[str, Any] = {"role": "assistant", "content": "".join(content)}
        if reasoning:
            message["reasoning_content"] = "".join(reasoning)
        if calls:
            message["tool_calls"] = [
                {**slot, "id": slot["id"] or f"call_{i}"} for i, slot in sorted(calls.items())
            ]
        out["choices"] = [{"index": 0, "message": message, "finish_reason": finish}]
        out["usage"] = usage
        self._profile.observe_speed(
            out, elapsed, usage["prompt_tokens"], usage["completion_tokens"]
        )
        return out

    # ------------------------------------------------------------------ request building

    def _params(
        self,
        messages: Sequence[Message],
        state: _CallState,
        temperature: float | None | NotGiven,
        max_tokens: int | None | NotGiven,
    ) -> dict[str, Any]:
        wire = [_wire_message(m) for m in messages]
        params: dict[str, Any] = {"model": self._model, "messages": wire}
        temp = self.temperature if isinstance(temperature, NotGiven) else temperature
        if temp is not None:
            params["temperature"] = temp
        limit = self.max_tokens if isinstance(max_tokens, NotGiven) else max_tokens
        if limit is not None:
            params["max_tokens"] = limit
        if state.reasoning_off or self.thinking == "off":
            body, effort, no_think = self._preset.reasoning_off(self._model)
            params.update(body)
            if effort:
                params["reasoning_effort"] = effort
            if no_think:
                for msg in reversed(wire):
                    if msg["role"] == "user" and isinstance(msg["content"], str):
                        msg["content"] = msg["content"] + " /no_think"
                        break
        return params

    def _start(self, deadline: float | NotGiven) -> _CallState:
        state = _CallState()
        span = self.deadline if isinstance(deadline, NotGiven) else deadline
        state.deadline_at = state.started + span
        state.deadline_s = span
        return state

    def _finish(self, state: _CallState, *, failed: bool = False) -> Usage:
        usage = state.usage
        usage.calls = 1
        usage.errors = int(failed)
        usage.latency_s = time.perf_counter() - state.started
        usage.cost = (
            usage.prompt_tokens * self.price_input_per_mtok
            + usage.completion_tokens * self.price_output_per_mtok
        ) / 1_000_000
        self.usage.add(usage)
        for tracker in current_tracker():
            tracker.record(self._model, usage)
        record_span(
            "llm.call",
            usage.latency_s,
            error="model error" if failed else "",
            model=self._model,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            requests=usage.requests,
            simulated=bool(usage.simulated),
        )
        return usage

    def _read(
        self, completion: dict[str, Any], state: _CallState, allowed_tools: set[str]
    ) -> _Attempt:
        usage = completion.get("usage") or {}
        if completion.get("system_fingerprint") == SIMULATED_FINGERPRINT:
            state.usage.simulated = 1
        state.usage.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        state.usage.completion_tokens += int(usage.get("completion_tokens") or 0)
        choices = completion.get("choices") or []
        if not choices:
            raise _OutputProblem("prose", "the server returned no choices", "")
        choice = choices[0]
        message = choice.get("message") or {}
        raw = message.get("content") or ""
        if not isinstance(raw, str):  # content parts: keep the text ones
            raw = "".join(p.get("text", "") for p in raw if isinstance(p, dict))
        content, reasoning = split_reasoning(raw)
        field_reasoning = message.get("reasoning_content") or message.get("reasoning")
        if isinstance(field_reasoning, str) and field_reasoning:
            reasoning = f"{field_reasoning}\n{reasoning}" if reasoning else field_reasoning
        calls: list[ToolCall] = []
        bad: list[str] = []
        for tc in message.get("tool_calls") or []:
            fn = tc.get("function") if isinstance(tc, dict) else None
            if not isinstance(fn, dict):
                continue
            name = str(fn.get("name") or "")
            args_text = fn.get("arguments") or "{}"
            if isinstance(args_text, dict):  # some servers send an object, not a string
                args_text = orjson.dumps(args_text).decode()
            found = find_json(args_text)
            if found.kind != "ok" or not isinstance(found.value, dict):
                bad.append(f"{name}: {found.error or 'arguments are not a JSON object'}")
                continue
            call_id = str(tc.get("id") or f"call_{len(calls)}")
            calls.append(ToolCall(call_id, name, found.value, args_text))
        recovered = False
        if not calls and not bad and allowed_tools and content:
            calls = recover_tool_calls(content, allowed_tools)
            if calls:
                content, recovered = "", True
        finish = choice.get("finish_reason")
        return _Attempt(content, reasoning, raw, calls, bad, finish, recovered)

    def _repair_messages(
        self, messages: list[Message], problem: _OutputProblem, state: _CallState
    ) -> None:
        """Extend the conversation so the next attempt fixes ``problem``."""
        if problem.kind == "prose":
            state.reasoning_off = True  # a model thinking instead of acting: make it act
        if problem.kind == "invalid" and problem.raw:
            # The model sees its own mistake next to the validation error.
            messages.append(Message.assistant(problem.raw[:4000]))
        messages.append(
            Message.user(
                render_prompt(_PROMPTS, "repair.j2", kind=problem.kind, error=problem.error)
            )
        )

    # ------------------------------------------------------------------ chat

    async def chat(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        tool_choice: ToolChoice | None = None,
        require_tool: bool = False,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> ChatResult:
        """Send ``messages``; with ``require_tool`` (or ``tool_choice`` naming a tool or
        ``"required"``) the answer must be a tool call.

        How the tools are offered is chosen per call from what the endpoint is known to honour:
        a named or ``"required"`` tool choice when it works, ``"auto"`` plus an instruction when
        it does not, and tools described in the prompt (calls read from the text) when the
        server refuses native tools altogether.
        """
        if require_tool and not tools:
            raise ConfigurationError("require_tool=True needs at least one tool in `tools`.")
        state = self._start(deadline)
        convo = list(messages)
        specs = list(tools or ())
        allowed = {t.name for t in specs}
        named = tool_choice if tool_choice not in (None, "auto", "required", "none") else None
        if named is not None and named not in allowed:
            raise ConfigurationError(f"tool_choice names {named!r}, which is not in `tools`.")
        wants = (
            "named"
            if named
            else "required"
            if (require_tool or tool_choice == "required")
            else "auto"
        )
        forced = wants != "auto"
        try:
            while True:
                form = self._tool_form(wants) if specs and tool_choice != "none" else None
                params = self._params(convo, state, temperature, max_tokens)
                if specs:
                    self._offer_tools(params, specs, form, named, tool_choice)
                try:
                    # tools described in the prompt come back as text: not for a person's eyes
                    completion = await self._send(params, state, stream=form != "prompt")
                except FeatureRefused as refusal:
                    state.refusals += 1
                    self._refused(refusal, form if state.refusals < _MAX_REFUSALS else None)
                    continue
                try:
                    attempt = self._read(completion, state, allowed)
                    native = bool(attempt.tool_calls) and not attempt.recovered
                    if form is not None:
                        self._learn_tools(form, native, attempt, named, forced)
                    if attempt.bad_tool_calls:
                        raise _OutputProblem(
                            "invalid",
                            "invalid tool-call arguments: " + "; ".join(attempt.bad_tool_calls),
                            attempt.raw_content,
                        )
                    if forced and named and attempt.tool_calls:
                        attempt.tool_calls = [c for c in attempt.tool_calls if c.name == named]
                    if forced and not attempt.tool_calls:
                        raise _OutputProblem(
                            "prose",
                            "a tool call was required but the model answered in prose",
                            attempt.raw_content,
                        )
                    if not attempt.tool_calls and not attempt.content:
                        raise _OutputProblem("prose", "the model's answer was empty", "")
                except _OutputProblem as problem:
                    if state.usage.repairs >= self.max_repairs:
                        raise self._output_error(problem, state) from None
                    state.usage.repairs += 1
                    if problem.kind == "prose" and specs:
                        state.reasoning_off = True
                        targets = [named] if named else sorted(allowed)
                        convo.append(
                            Message.user(render_prompt(_PROMPTS, "tool_required.j2", tools=targets))
                        )
                    else:
                        self._repair_messages(convo, problem, state)
                    continue
                usage = self._finish(state)
                return ChatResult(
                    content=attempt.content,
                    tool_calls=attempt.tool_calls,
                    model=str(completion.get("model") or self._model),
                    usage=usage,
                    finish_reason=attempt.finish_reason,
                    reasoning=attempt.reasoning,
                    raw_content=attempt.raw_content,
                    tool_calls_recovered=attempt.recovered,
                    tool_form=form or "",
                )
        except ModelError as exc:
            exc.usage = self._finish(state, failed=True)
            raise

    def _tool_form(self, wants: str) -> ToolForm:
        """The first way of offering tools this endpoint is not known to refuse or ignore."""
        if not self._profile.usable("tools"):
            return "prompt"
        for form in _FORMS[wants]:
            feature = _FORM_FEATURE.get(form)
            if feature is None or self._profile.usable(feature):
                return form
        return "prompt"

    def _offer_tools(
        self,
        params: dict[str, Any],
        specs: list[ToolSpec],
        form: ToolForm | None,
        named: str | None,
        tool_choice: ToolChoice | None,
    ) -> None:
        if form is None:  # tool_choice="none": the tools are context, not to be called
            params["tools"] = [t.to_openai() for t in specs]
            params["tool_choice"] = "none"
            return
        if form == "prompt":
            offered = [t for t in specs if t.name == named] if named else specs
            text = render_prompt(
                _PROMPTS,
                "tools_in_prompt.j2",
                tools=[
                    {
                        "name": t.name,
                        "description": t.description,
                        "parameters": _json(t.parameters),
                    }
                    for t in offered
                ],
            )
            params["messages"] = [{"role": "system", "content": text}, *params["messages"]]
            return
        offered = [t for t in specs if t.name == named] if form == "required_one" else specs
        params["tools"] = [t.to_openai() for t in offered]
        if form == "named":
            params["tool_choice"] = {"type": "function", "function": {"name": named}}
        elif form in ("required", "required_one"):
            params["tool_choice"] = "required"
        elif form == "auto":
            params["tool_choice"] = "auto"

    def _refused(self, refusal: FeatureRefused, form: ToolForm | None) -> None:
        """Remember a refused feature; raise when no other way of asking is left."""
        log.warning(
            "%s at %s refused %s (HTTP %d: %s); trying another way",
            self._model,
            self._base_url,
            refusal.feature,
            refusal.status,
            refusal.message[:200],
        )
        self._profile.refused(refusal.feature, refusal.message)
        if form == "omit" and refusal.feature != "tools":
            self._profile.refused("tools", refusal.message)  # nothing native left to try
        if form is None or form == "prompt":
            raise self._unsupported(refusal)

    def _unsupported(self, refusal: FeatureRefused, hint: str = "") -> ModelUnsupportedError:
        return ModelUnsupportedError(
            f"The model server {self._base_url} refuses {refusal.feature} for {self._model!r} "
            f"(HTTP {refusal.status}: {refusal.message[:_ERROR_SNIPPET]}) and no other way of "
            "asking is left; "
            + (hint or "check how the server was started (chat template, tool-call parser)."),
            status=refusal.status,
            feature=refusal.feature,
            model=self._model,
            base_url=self._base_url,
        )

    def _learn_tools(
        self, form: ToolForm, native: bool, attempt: _Attempt, named: str | None, forced: bool
    ) -> None:
        """Record what this answer shows about the tool form used."""
        if native:
            self._profile.honoured("tools")
        feature = _FORM_FEATURE.get(form)
        if feature is None:
            return
        if not forced or form == "auto":
            self._profile.honoured(feature)  # accepted; "auto" promises no call, proves no more
        elif native and (form != "named" or all(c.name == named for c in attempt.tool_calls)):
            self._profile.honoured(feature)
        elif attempt.finish_reason != "length":
            why = "answered without a native call" if not native else "called another tool"
            self._profile.ignored(feature, f"{why} under tool_choice ({form})")

    def _output_error(self, problem: _OutputProblem, state: _CallState) -> ModelOutputError:
        return ModelOutputError(
            f"The model {self._model!r} gave no valid answer after {state.usage.repairs} "
            f"repair attempts (last problem: {problem.error[:_ERROR_SNIPPET]}). Try a stronger "
            "model, raise COLMEIA_LLM_MAX_REPAIRS, or set COLMEIA_LLM_STRUCTURED_MODE=tool/prompt.",
            last_output=problem.raw[:2000],
            model=self._model,
            base_url=self._base_url,
        )

    # ------------------------------------------------------------------ structured

    async def structured(
        self,
        messages: Sequence[Message],
        output_type: type[T],
        *,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> T:
        """A validated ``output_type`` instance built from the model's answer."""
        result = await self.structured_result(
            messages,
            output_type,
            temperature=temperature,
            max_tokens=max_tokens,
            deadline=deadline,
        )
        return result.value

    async def structured_result(
        self,
        messages: Sequence[Message],
        output_type: type[T],
        *,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> StructuredResult[T]:
        """Like :meth:`structured`, with the usage of the call and the mode that produced it.

        With ``structured_mode="auto"`` the mode is chosen per call: JSON Schema output when the
        endpoint honours it, else JSON object output with the schema in the prompt, else the
        schema in the prompt alone. A refused or ignored mode is left for the next one, in this
        call and (for a while) in later ones; any other error — a prompt too long for the
        context window, say — changes nothing.
        """
        state = self._start(deadline)
        schema = _schema_of(output_type)
        name = output_type.__name__
        mode = self._structured_modes()[0]
        convo = self._structured_convo(messages, mode, schema)
        limit = max_tokens
        try:
            while True:
                params = self._params(convo, state, temperature, limit)
                self._ask_for_format(params, mode, output_type, schema)
                try:
                    completion = await self._send(params, state)
                except FeatureRefused as refusal:
                    state.refusals += 1
                    if state.refusals >= _MAX_REFUSALS:
                        raise self._unsupported(refusal) from None
                    mode = self._next_mode(mode, refusal, None)
                    convo = self._structured_convo(messages, mode, schema)
                    continue
                attempt: _Attempt | None = None
                try:
                    attempt = self._read(completion, state, {name} if mode == "tool" else set())
                    value, raw = self._validate(attempt, output_type, name)
                except _OutputProblem as problem:
                    if state.usage.repairs >= self.max_repairs:
                        raise self._output_error(problem, state) from None
                    state.usage.repairs += 1
                    ignored = (
                        mode in _MODE_FEATURE
                        and problem.kind == "prose"
                        and attempt is not None
                        and attempt.finish_reason != "length"
                    )
                    if ignored:
                        # HTTP 200 but no JSON at all: the server ignored the format.
                        switched = self._next_mode(mode, None, "answered without any JSON")
                        if switched != mode:
                            state.reasoning_off = True  # a model thinking aloud: make it answer
                            mode = switched
                            convo = self._structured_convo(messages, mode, schema)
                            continue
                    if problem.kind == "truncated" and isinstance(limit, int):
                        limit = limit * 2  # cut by the token limit: give it room
                    self._repair_messages(convo, problem, state)
                    continue
                if mode in _MODE_FEATURE:
                    self._profile.honoured(_MODE_FEATURE[mode])
                usage = self._finish(state)
                return StructuredResult(
                    value=value,
                    model=str(completion.get("model") or self._model),
                    usage=usage,
                    raw=raw,
                    mode=mode,
                )
        except ModelError as exc:
            exc.usage = self._finish(state, failed=True)
            raise

    def _structured_modes(self) -> list[StructuredMode]:
        """Modes in the order to try them: the configured one alone, or the usable auto ones."""
        if self._structured_config != "auto":
            return [self._structured_config]
        preferred = self._preset.structured_mode
        order = [preferred, *(m for m in _STRUCTURED_AUTO if m != preferred)]
        usable = [
            m for m in order if m not in _MODE_FEATURE or self._profile.usable(_MODE_FEATURE[m])
        ]
        return usable or ["prompt"]

    def _next_mode(
        self, mode: StructuredMode, refusal: FeatureRefused | None, ignored: str | None
    ) -> StructuredMode:
        """Record why ``mode`` failed on this endpoint and pick the next one (or raise)."""
        feature = refusal.feature if refusal is not None else _MODE_FEATURE.get(mode)
        if feature is None:
            feature = "tools"
        if refusal is not None:
            log.warning(
                "%s at %s refused %s (HTTP %d: %s); trying another output mode",
                self._model,
                self._base_url,
                refusal.feature,
                refusal.status,
                refusal.message[:200],
            )
            self._profile.refused(feature, refusal.message)
        else:
            self._profile.ignored(feature, ignored or "ignored")
        remaining = [m for m in self._structured_modes() if m != mode]
        if not remaining or self._structured_config != "auto":
            if refusal is None:
                return mode  # nothing else to try: keep repairing in this mode
            raise self._unsupported(
                refusal,
                "set COLMEIA_LLM_STRUCTURED_MODE=auto (or prompt) to let colmeia ask another way.",
            )
        return remaining[0]

    def _structured_convo(
        self, messages: Sequence[Message], mode: StructuredMode, schema: dict[str, Any]
    ) -> list[Message]:
        convo = list(messages)
        if mode in ("prompt", "json_object"):
            convo = self._with_schema_prompt(convo, schema)
        return convo

    @staticmethod
    def _ask_for_format(
        params: dict[str, Any],
        mode: StructuredMode,
        output_type: type[BaseModel],
        schema: dict[str, Any],
    ) -> None:
        name = output_type.__name__
        if mode == "json_schema":
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": False},
            }
        elif mode == "json_object":
            params["response_format"] = {"type": "json_object"}
        elif mode == "tool":
            params["tools"] = [ToolSpec(name, _describe(output_type), schema).to_openai()]
            params["tool_choice"] = {"type": "function", "function": {"name": name}}

    @staticmethod
    def _with_schema_prompt(convo: list[Message], schema: dict[str, Any]) -> list[Message]:
        text = render_prompt(
            _PROMPTS,
            "schema_instructions.j2",
            schema=orjson.dumps(schema, option=orjson.OPT_INDENT_2).decode(),
        )
        return [Message.system(text), *convo]

    @staticmethod
    def _validate(attempt: _Attempt, output_type: type[T], name: str) -> tuple[T, str]:
        if attempt.tool_calls:
            call = next((c for c in attempt.tool_calls if c.name == name), attempt.tool_calls[0])
            payload: Any = call.arguments
            raw = call.raw_arguments
        else:
            if attempt.bad_tool_calls:
                raise _OutputProblem(
                    "truncated" if attempt.finish_reason == "length" else "invalid",
                    "; ".join(attempt.bad_tool_calls),
                    attempt.raw_content,
                )
            found = find_json(attempt.content)
            if found.kind == "none":
                raise _OutputProblem("prose", found.error, attempt.raw_content)
            if found.kind == "truncated" or (
                found.kind == "invalid" and attempt.finish_reason == "length"
            ):
                raise _OutputProblem("truncated", found.error, attempt.raw_content)
            if found.kind == "invalid":
                raise _OutputProblem("invalid", f"not valid JSON: {found.error}", found.text)
            payload = found.value
            raw = found.text
        try:
            return output_type.model_validate(payload), raw
        except ValidationError as exc:
            errors = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}"
                for e in exc.errors()[:10]
            )
            raise _OutputProblem("invalid", errors, raw) from None

    # ------------------------------------------------------------------ streaming

    async def stream(
        self,
        messages: Sequence[Message],
        *,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> AsyncIterator[StreamEvent]:
        """Yield text deltas (reasoning filtered out) and finally the whole result.

        Transport retries happen only before the first token: a stream cut later raises, and a
        streamed line that is not JSON raises :class:`~colmeia.errors.ModelProtocolError`.
        """
        state = self._start(deadline)
        params = self._params(list(messages), state, temperature, max_tokens)
        params["stream"] = True
        params["stream_options"] = {"include_usage": True}
        parts: list[str] = []
        shown = _ReasoningFilter()
        finish: str | None = None
        model_name = self._model
        if trace.isEnabledFor(logging.INFO):
            trace.info(
                "prompt (streamed) to %s at %s:\n%s", self._model, self._base_url, _show(params)
            )
        try:
            async for event in self._http.stream(
                self._path,
                params,
                usage=state.usage,
                deadline_at=state.deadline_at,
                deadline_s=state.deadline_s,
            ):
                model_name = str(event.get("model") or model_name)
                if event.get("system_fingerprint") == SIMULATED_FINGERPRINT:
                    state.usage.simulated = 1
                usage = event.get("usage") or {}
                state.usage.prompt_tokens += int(usage.get("prompt_tokens") or 0)
                state.usage.completion_tokens += int(usage.get("completion_tokens") or 0)
                if isinstance(event.get("timings"), dict):
                    self._profile.observe_speed(event, 0.0, 0, 0)
                for choice in event.get("choices") or []:
                    text = (choice.get("delta") or {}).get("content") or ""
                    if text:
                        parts.append(text)
                        visible = shown.feed(text)
                        if visible:
                            yield StreamEvent(delta=visible)
                    finish = choice.get("finish_reason") or finish
        except FeatureRefused as refusal:
            exc = self._unsupported(refusal)
            exc.usage = self._finish(state, failed=True)
            raise exc from None
        except ModelError as exc:
            exc.usage = self._finish(state, failed=True)
            raise
        raw = "".join(parts)
        if trace.isEnabledFor(logging.INFO):
            trace.info("reply (streamed):\n%s", raw)
        content, reasoning = split_reasoning(raw)
        usage = self._finish(state)
        yield StreamEvent(result=ChatResult(content, [], model_name, usage, finish, reasoning, raw))


class _ReasoningFilter:
    """Hides ``<think>…</think>`` from a stream of deltas without waiting for the end."""

    def __init__(self) -> None:
        self._buffer = ""
        self._inside = False

    def feed(self, text: str) -> str:
        self._buffer += text
        out: list[str] = []
        while self._buffer:
            if self._inside:
                end = self._buffer.find("</think>")
                if end < 0:
                    self._buffer = self._buffer[-len("</think>") :]
                    break
                self._buffer = self._buffer[end + len("</think>") :]
                self._inside = False
            else:
                start = self._buffer.find("<think>")
                if start < 0:
                    # keep a tail that could be the start of a tag split across deltas
                    cut = self._buffer.rfind("<")
                    if cut >= 0 and "<think>".startswith(self._buffer[cut:]):
                        out.append(self._buffer[:cut])
                        self._buffer = self._buffer[cut:]
                    else:
                        out.append(self._buffer)
                        self._buffer = ""
                    break
                out.append(self._buffer[:start])
                self._buffer = self._buffer[start + len("<think>") :]
                self._inside = True
        return "".join(out)


@functools.lru_cache(maxsize=256)
def _schema_of(output_type: type[BaseModel]) -> dict[str, Any]:
    """JSON Schema of an output type as a grammar-guided server enforces it (``$ref`` inlined:
    see colmeia.llm.json_schema)."""
    return inline_refs(output_type.model_json_schema())


def _describe(output_type: type[BaseModel]) -> str:
    doc = (output_type.__doc__ or "").strip()
    return doc.splitlines()[0] if doc else f"Return the {output_type.__name__} object."


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


def _show(params: dict[str, Any]) -> str:
    """A request as a person reads it: each message with its role, then what else was asked."""
    lines = []
    for m in params.get("messages") or []:
        text = m.get("content")
        if m.get("tool_calls"):
            calls = ", ".join(
                f"{c['function']['name']}({c['function']['arguments']})" for c in m["tool_calls"]
            )
            text = f"{text or ''}\n[calls] {calls}".strip()
        lines.append(f"[{m.get('role')}] {text}")
    extras = {k: v for k, v in params.items() if k not in ("messages", "model", "tools")}
    if params.get("tools"):
        names = [t.get("function", {}).get("name") for t in params["tools"]]
        extras["tools"] = names
    if extras:
        lines.append(f"[request] {_json(extras)[:2000]}")
    return "\n".join(lines)


def _show_reply(completion: dict[str, Any]) -> str:
    choices = completion.get("choices") or [{}]
    message = choices[0].get("message") or {}
    out = [str(message.get("content") or "")]
    for c in message.get("tool_calls") or []:
        fn = c.get("function") or {}
        out.append(f"[call] {fn.get('name')}({fn.get('arguments')})")
    out.append(f"[finish] {choices[0].get('finish_reason')}")
    return "\n".join(out)
