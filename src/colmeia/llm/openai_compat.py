"""A ChatModel for any OpenAI-compatible server (OpenAI, Azure OpenAI, Ollama, vLLM, LM Studio…).

The wire format is spoken directly over :mod:`colmeia.llm.transport` (aiohttp).

Reliability lives here, once, for everything above:

* transport: retries with exponential backoff and jitter on 5xx, connection errors and
  timeouts; 429s wait as long as ``Retry-After`` says, on a budget of their own; one deadline
  bounds the whole call; a concurrency limit per endpoint;
* output: ``<think>`` blocks and reasoning fields are stripped, tool calls written as text are
  recovered, structured answers are validated with Pydantic and repaired by feeding the error
  back; prose where JSON or a tool call was required is retried with reasoning turned off;
* accounting: every call's tokens, requests, retries, repairs, latency and cost.

A call returns a valid result or raises a :class:`~colmeia.errors.ModelError`; never ``None``.
The error's ``usage`` says what the failed call cost (requests, retries, repairs, tokens), so a
caller's audit trail can count the work a failure took.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
import weakref
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import orjson
from pydantic import BaseModel, ValidationError

from colmeia.config import LLMSettings
from colmeia.errors import (
    ConfigurationError,
    ModelError,
    ModelHTTPError,
    ModelOutputError,
    ModelTimeoutError,
    ModelUnreachableError,
)
from colmeia.llm.base import (
    NOT_GIVEN,
    SIMULATED_FINGERPRINT,
    ChatResult,
    Message,
    NotGiven,
    StreamEvent,
    StructuredResult,
    ToolCall,
    ToolChoice,
    ToolSpec,
    Usage,
    current_tracker,
)
from colmeia.llm.notice import NO_MODEL_HINT
from colmeia.llm.prompts import render_prompt
from colmeia.llm.providers import ProviderPreset, StructuredMode, preset_for
from colmeia.llm.retry import RETRYABLE_STATUS, backoff_delay, retry_after_seconds
from colmeia.llm.textparse import find_json, recover_tool_calls, split_reasoning
from colmeia.llm.transport import (
    HTTPStatusError,
    HTTPTransport,
    TransportConnectionError,
    TransportTimeout,
)
from colmeia.tracing import record_span

__all__ = ["OpenAIChatModel"]

log = logging.getLogger(__name__)
T = TypeVar("T", bound=BaseModel)
Thinking = Literal["auto", "off", "on"]
_PROMPTS = "colmeia.llm"
_ERROR_SNIPPET = 300

# One semaphore per (event loop, endpoint): requests from every model object pointed at the
# same server share its limit.
_LIMITS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = (
    weakref.WeakKeyDictionary()
)


def _endpoint_limit(base_url: str, size: int) -> asyncio.Semaphore:
    loop = asyncio.get_running_loop()
    per_loop = _LIMITS.setdefault(loop, {})
    sem = per_loop.get(base_url)
    if sem is None:
        sem = per_loop[base_url] = asyncio.Semaphore(size)
    return sem


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
    reasoning_off: bool = False


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
        self._structured_mode: StructuredMode = (
            self._preset.structured_mode if structured_mode == "auto" else structured_mode
        )
        if provider == "azure":
            # Azure: the model is the deployment name, the key goes in `api-key`.
            endpoint = self._base_url.removesuffix("/openai")
            self._path = "/chat/completions"
            self._transport = HTTPTransport(
                f"{endpoint}/openai/deployments/{model}",
                {"api-key": self._api_key},
                query={"api-version": api_version},
                pool_size=max_concurrency,
            )
        else:
            self._path = "/chat/completions"
            self._transport = HTTPTransport(
                self._base_url,
                {"authorization": f"Bearer {self._api_key}"},
                pool_size=max_concurrency,
            )
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
        return self._structured_mode

    def __repr__(self) -> str:
        return f"OpenAIChatModel(model={self._model!r}, base_url={self._base_url!r})"

    # ------------------------------------------------------------------ transport

    async def aclose(self) -> None:
        """Close the HTTP connections opened from the running event loop."""
        await self._transport.aclose()

    async def __aenter__(self) -> OpenAIChatModel:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def _unreachable(self, exc: BaseException) -> ModelUnreachableError:
        return ModelUnreachableError(
            f"Could not reach the model server at {self._base_url} ({exc.__class__.__name__}: "
            f"{exc}). Check COLMEIA_LLM_BASE_URL, that the server is running, and "
            "`colmeia llm check`.",
            model=self._model,
            base_url=self._base_url,
        )

    def _timed_out(self, state: _CallState) -> ModelTimeoutError:
        return ModelTimeoutError(
            f"The model {self._model!r} at {self._base_url} gave no usable answer within the "
            f"{self.deadline:.0f}s deadline ({state.usage.requests} requests, "
            f"{state.usage.retries} retries). Raise COLMEIA_LLM_DEADLINE or check the server load.",
            model=self._model,
            base_url=self._base_url,
        )

    def _http_error(self, exc: HTTPStatusError) -> ModelHTTPError:
        hint = {
            400: "the server rejected the request; check the model name and parameters",
            401: "check COLMEIA_LLM_API_KEY",
            403: "the key may lack access to this model; check COLMEIA_LLM_API_KEY",
            404: "check COLMEIA_LLM_BASE_URL (it usually ends in /v1) and COLMEIA_LLM_MODEL",
            429: "the server kept rate-limiting; lower --concurrency or COLMEIA_LLM_MAX_CONCURRENCY",
        }.get(exc.status, "the server kept failing; check its logs")
        return ModelHTTPError(
            f"Model server {self._base_url} answered HTTP {exc.status} for model "
            f"{self._model!r}: {exc.message[:_ERROR_SNIPPET]} — {hint}.",
            status=exc.status,
            model=self._model,
            base_url=self._base_url,
        )

    def _retry_delay(self, exc: Exception, counts: dict[str, int], state: _CallState) -> float:
        """Seconds to wait before retrying after ``exc``; raises when retrying is over."""
        if isinstance(exc, HTTPStatusError) and exc.status == 429:
            if counts["rate"] >= self.max_rate_limit_retries:
                raise self._http_error(exc) from exc
            delay = retry_after_seconds(exc.headers)
            if delay is None:
                delay = backoff_delay(counts["rate"], base=self.backoff_base)
            counts["rate"] += 1
        else:
            exhausted = counts["server"] >= self.max_retries
            if isinstance(exc, HTTPStatusError):
                if exc.status not in RETRYABLE_STATUS or exhausted:
                    raise self._http_error(exc) from exc
            elif isinstance(exc, TransportTimeout):
                if exhausted:
                    raise self._timed_out(state) from exc
            elif exhausted:
                raise self._unreachable(exc) from exc
            delay = backoff_delay(counts["server"], base=self.backoff_base)
            counts["server"] += 1
        state.usage.retries += 1
        if delay >= state.deadline_at - time.perf_counter():
            raise self._timed_out(state) from exc
        log.debug("retrying %s in %.2fs after %s", self._model, delay, exc)
        return delay

    async def _send(self, params: dict[str, Any], state: _CallState) -> dict[str, Any]:
        """One logical request with transport retries; returns the decoded completion."""
        limit = _endpoint_limit(self._base_url, self.max_concurrency)
        counts = {"server": 0, "rate": 0}
        while True:
            remaining = state.deadline_at - time.perf_counter()
            if remaining <= 0:
                raise self._timed_out(state)
            try:
                async with limit:
                    state.usage.requests += 1
                    return await self._transport.post_json(
                        self._path, params, min(self.timeout, remaining)
                    )
            except (HTTPStatusError, TransportTimeout, TransportConnectionError) as exc:
                await asyncio.sleep(self._retry_delay(exc, counts, state))

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
        """Send ``messages``; with ``require_tool`` the answer must be a tool call."""
        if require_tool and not tools:
            raise ConfigurationError("require_tool=True needs at least one tool in `tools`.")
        state = self._start(deadline)
        convo = list(messages)
        allowed = {t.name for t in tools or ()}
        try:
            while True:
                params = self._params(convo, state, temperature, max_tokens)
                if tools:
                    params["tools"] = [t.to_openai() for t in tools]
                    choice = tool_choice or ("required" if require_tool else None)
                    if choice in ("auto", "required", "none"):
                        params["tool_choice"] = choice
                    elif choice:
                        params["tool_choice"] = {"type": "function", "function": {"name": choice}}
                completion = await self._send(params, state)
                try:
                    attempt = self._read(completion, state, allowed)
                    if attempt.bad_tool_calls:
                        raise _OutputProblem(
                            "invalid",
                            "invalid tool-call arguments: " + "; ".join(attempt.bad_tool_calls),
                            attempt.raw_content,
                        )
                    if require_tool and not attempt.tool_calls:
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
                    if problem.kind == "prose" and tools:
                        state.reasoning_off = True
                        convo.append(
                            Message.user(
                                render_prompt(_PROMPTS, "tool_required.j2", tools=sorted(allowed))
                            )
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
                )
        except ModelError as exc:
            exc.usage = self._finish(state, failed=True)
            raise

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
        """Like :meth:`structured`, with the usage of the call."""
        state = self._start(deadline)
        schema = _schema_of(output_type)
        name = output_type.__name__
        convo = list(messages)
        mode = self._structured_mode
        if mode == "prompt":
            convo = self._with_schema_prompt(convo, schema)
        limit = max_tokens
        try:
            while True:
                params = self._params(convo, state, temperature, limit)
                if mode == "json_schema":
                    params["response_format"] = {
                        "type": "json_schema",
                        "json_schema": {"name": name, "schema": schema, "strict": False},
                    }
                elif mode == "tool":
                    params["tools"] = [ToolSpec(name, _describe(output_type), schema).to_openai()]
                    params["tool_choice"] = {"type": "function", "function": {"name": name}}
                try:
                    completion = await self._send(params, state)
                except ModelHTTPError as exc:
                    if mode == "json_schema" and exc.status in (400, 422):
                        # Servers without JSON-schema output reject the field: ask in the prompt.
                        log.warning(
                            "%s rejected response_format (%s); using prompt mode", self, exc.status
                        )
                        self._structured_mode = mode = "prompt"
                        convo = self._with_schema_prompt(convo, schema)
                        continue
                    raise
                try:
                    attempt = self._read(completion, state, {name} if mode == "tool" else set())
                    value, raw = self._validate(attempt, output_type, name)
                except _OutputProblem as problem:
                    if state.usage.repairs >= self.max_repairs:
                        raise self._output_error(problem, state) from None
                    state.usage.repairs += 1
                    if problem.kind == "truncated" and isinstance(limit, int):
                        limit = limit * 2  # cut by the token limit: give it room
                    self._repair_messages(convo, problem, state)
                    continue
                usage = self._finish(state)
                return StructuredResult(
                    value=value,
                    model=str(completion.get("model") or self._model),
                    usage=usage,
                    raw=raw,
                )
        except ModelError as exc:
            exc.usage = self._finish(state, failed=True)
            raise

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

        Transport retries happen only before the first token: a stream cut later raises.
        """
        state = self._start(deadline)
        params = self._params(list(messages), state, temperature, max_tokens)
        params["stream"] = True
        params["stream_options"] = {"include_usage": True}
        parts: list[str] = []
        shown = _ReasoningFilter()
        finish: str | None = None
        model_name = self._model
        counts = {"server": 0, "rate": 0}
        try:
            while True:
                remaining = state.deadline_at - time.perf_counter()
                if remaining <= 0:
                    raise self._timed_out(state)
                state.usage.requests += 1
                try:
                    async for event in self._transport.stream_events(
                        self._path, params, min(self.timeout, remaining)
                    ):
                        model_name = str(event.get("model") or model_name)
                        if event.get("system_fingerprint") == SIMULATED_FINGERPRINT:
                            state.usage.simulated = 1
                        usage = event.get("usage") or {}
                        state.usage.prompt_tokens += int(usage.get("prompt_tokens") or 0)
                        state.usage.completion_tokens += int(usage.get("completion_tokens") or 0)
                        for choice in event.get("choices") or []:
                            text = (choice.get("delta") or {}).get("content") or ""
                            if text:
                                parts.append(text)
                                visible = shown.feed(text)
                                if visible:
                                    yield StreamEvent(delta=visible)
                            finish = choice.get("finish_reason") or finish
                        if time.perf_counter() > state.deadline_at:
                            raise self._timed_out(state)
                    break
                except (HTTPStatusError, TransportTimeout, TransportConnectionError) as exc:
                    if parts:  # text was already shown: a retry would repeat it
                        raise self._unreachable(exc) from exc
                    await asyncio.sleep(self._retry_delay(exc, counts, state))
        except ModelError as exc:
            exc.usage = self._finish(state, failed=True)
            raise
        raw = "".join(parts)
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
    """JSON Schema of an output type, built once: Pydantic takes ~0.5 ms to generate one."""
    return output_type.model_json_schema()


def _describe(output_type: type[BaseModel]) -> str:
    doc = (output_type.__doc__ or "").strip()
    return doc.splitlines()[0] if doc else f"Return the {output_type.__name__} object."
