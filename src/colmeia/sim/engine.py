"""A simulated OpenAI-compatible chat model, for tests, demos and load measurements.

The engine decides what a real server would have answered to one ``/chat/completions`` body;
:mod:`colmeia.sim.server` serves it over HTTP so tests cross the real client code. Answers
come from, in order of precedence:

1. the ``script`` queue (``Reply``, ``str``, ``dict``/``list`` sent as JSON content, or a
   callable ``(SimRequest) -> Reply | str | dict | None``), consumed one item per request;
2. the ``responder`` function, for every request once the script is used up;
3. when a ``script`` was given and both are used up: HTTP 400 "script exhausted";
4. otherwise the automatic answer: with ``schema_mode=True`` JSON valid for the requested schema
   or a tool call with valid arguments (see :meth:`SimulatedModel.auto_reply`); without it a
   short Portuguese sentence.

Faults are drawn once per request, in arrival order, from ``random.Random(seed)``; they are
mutually exclusive, so their probabilities add up to at most 1 and each request has exactly one
outcome in :meth:`SimulatedModel.stats`. Transport faults (500, 429) replace the answer without
consuming a script item; a stall delays it; content faults (prose, truncated JSON, ``<think>``,
tool call written as text) alter the answer that would have been sent, scripted or not.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import hashlib
import inspect
import logging
import math
import random
import re
import struct
import time
import unicodedata
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

import orjson

from colmeia.errors import ConfigurationError
from colmeia.llm.base import SIMULATED_FINGERPRINT
from colmeia.sim.quirks import Quirks
from colmeia.sim.schema_data import generate, portuguese_text

__all__ = [
    "CONTENT_FAULTS",
    "Completion",
    "Faults",
    "Latency",
    "Reply",
    "ScriptItem",
    "SimRequest",
    "SimResponse",
    "SimulatedModel",
    "approx_tokens",
    "encode_base64",
    "hashed_embedding",
]

log = logging.getLogger(__name__)

FaultKind = Literal["prose", "truncated_json", "think", "tool_call_as_text"]
CONTENT_FAULTS: tuple[str, ...] = ("prose", "truncated_json", "think", "tool_call_as_text")
_OUTCOMES = (
    "ok",
    "http_500",
    "http_429",
    "http_other",
    "stall",
    "prose",
    "truncated_json",
    "think",
    "tool_call_as_text",
    "script_exhausted",
    "responder_error",
    "refused",
    "context_overflow",
)
_PROSE = (
    "Vou analisar a solicitação com cuidado antes de responder.",
    "Deixe-me pensar sobre isso: primeiro preciso entender o que foi pedido.",
    "Certo. A resposta depende de alguns fatores que vou considerar agora.",
    "Boa pergunta! Antes de decidir, vale revisar o contexto com atenção.",
)
_THINK = (
    "Preciso entender o pedido e responder no formato certo.",
    "O usuário quer uma resposta objetiva; vou verificar os dados primeiro.",
    "Vamos ver: quais informações são relevantes aqui?",
)
_SCHEMA_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)\n\s*```", re.DOTALL)


def approx_tokens(text: str) -> int:
    """Roughly how many tokens ``text`` is (four characters per token, at least one)."""
    return max(1, round(len(text) / 4))


# -- configuration ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Faults:
    """Probability, per request, of each injected fault (mutually exclusive; sum ≤ 1).

    ``retry_after_s`` is what 429 answers tell the client to wait; ``stall_s`` how long a
    stalled request hangs before answering (long enough for client timeouts to fire).
    """

    http_500: float = 0.0
    http_429: float = 0.0
    prose: float = 0.0
    truncated_json: float = 0.0
    stall: float = 0.0
    think: float = 0.0
    tool_call_as_text: float = 0.0
    retry_after_s: float = 0.05
    stall_s: float = 30.0

    def __post_init__(self) -> None:
        total = 0.0
        for name, p in self.rates():
            if not 0.0 <= p <= 1.0:
                raise ConfigurationError(f"fault rate {name}={p} must be between 0 and 1")
            total += p
        if total > 1.0 + 1e-9:
            raise ConfigurationError(
                f"fault rates add up to {total:.3f}; each request gets at most one fault, "
                "so keep their sum at or below 1"
            )
        if self.retry_after_s < 0 or self.stall_s < 0:
            raise ConfigurationError("retry_after_s and stall_s must not be negative")

    def rates(self) -> list[tuple[str, float]]:
        """The fault probabilities in the order the per-request draw checks them."""
        return [
            ("http_500", self.http_500),
            ("http_429", self.http_429),
            ("stall", self.stall),
            ("prose", self.prose),
            ("truncated_json", self.truncated_json),
            ("think", self.think),
            ("tool_call_as_text", self.tool_call_as_text),
        ]


@dataclass(frozen=True, slots=True)
class Latency:
    """Time a request takes: ``fixed_s`` plus ``per_token_s`` per completion token."""

    fixed_s: float = 0.0
    per_token_s: float = 0.0

    def __post_init__(self) -> None:
        if self.fixed_s < 0 or self.per_token_s < 0:
            raise ConfigurationError("latency must not be negative")

    def seconds(self, completion_tokens: int) -> float:
        """Total delay for an answer of ``completion_tokens`` tokens."""
        return self.fixed_s + self.per_token_s * completion_tokens


# -- requests and replies --------------------------------------------------------------------


@dataclass(slots=True)
class Reply:
    """One scripted answer: content and/or tool calls, or an HTTP error, a stall, a fault.

    ``tool_calls`` items are ``{"name": str, "arguments": dict | str}`` (optionally ``"id"``).
    ``reasoning`` is sent as the message's ``reasoning_content`` field, as vLLM does.
    """

    content: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    finish_reason: str | None = None
    reasoning: str | None = None
    status: int = 200
    error_message: str | None = None
    retry_after_s: float | None = None
    stall_s: float = 0.0
    inject: str | None = None
    then: Reply | None = None

    @classmethod
    def http_error(
        cls, status: int = 500, message: str | None = None, *, retry_after_s: float | None = None
    ) -> Reply:
        """Answer with HTTP ``status`` (429s send ``Retry-After`` of ``retry_after_s``)."""
        if status < 400:
            raise ConfigurationError(f"Reply.http_error needs an error status, not {status}")
        return cls(status=status, error_message=message, retry_after_s=retry_after_s)

    @classmethod
    def stall(cls, seconds: float, then: Reply | str | dict[str, Any] | None = None) -> Reply:
        """Hang for ``seconds`` (or until the client goes away), then answer ``then``.

        Without ``then`` the answer is the automatic one, so a stall does not use up the
        next script item: a client that times out and retries gets that item.
        """
        return cls(stall_s=seconds, then=_as_reply(then) if then is not None else None)

    @classmethod
    def fault(cls, kind: str, then: Reply | str | dict[str, Any] | None = None) -> Reply:
        """Apply content fault ``kind`` (see :data:`CONTENT_FAULTS`) to ``then`` or the auto answer."""
        if kind not in CONTENT_FAULTS:
            raise ConfigurationError(f"unknown fault {kind!r}; use one of {CONTENT_FAULTS}")
        return cls(inject=kind, then=_as_reply(then) if then is not None else None)

    @property
    def is_error(self) -> bool:
        """Whether this reply is an HTTP error."""
        return self.status >= 400


ReplyLike: TypeAlias = Reply | str | dict[str, Any] | list[Any]
ScriptItem: TypeAlias = ReplyLike | Callable[["SimRequest"], Any]


@dataclass(slots=True)
class SimRequest:
    """One request the simulated model received, kept for assertions in tests."""

    index: int
    body: dict[str, Any]
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    tool_choice: Any
    response_format: dict[str, Any] | None
    schema: dict[str, Any] | None
    model: str
    stream: bool
    prompt_tokens: int
    received_at: float = field(default_factory=time.time)
    #: set when the server ignored a forced tool choice: how the model answers instead
    ignored_choice: str | None = None
    #: tools described in a system message (no native tools), in the OpenAI ``tools`` format
    prompt_tools: list[dict[str, Any]] = field(default_factory=list)

    @property
    def tool_names(self) -> list[str]:
        """Names of the tools offered."""
        return [_tool_name(t) for t in self.tools]

    @property
    def tool_results(self) -> int:
        """How many tool results the conversation already holds."""
        return sum(1 for m in self.messages if m.get("role") == "tool")

    def text(self, roles: Sequence[str] = ("system", "user")) -> str:
        """All text of the messages with these roles, joined by blank lines."""
        return "\n\n".join(_message_text(m) for m in self.messages if m.get("role") in roles)

    @property
    def last_user_text(self) -> str:
        """Text of the last user message ("" if there is none)."""
        for m in reversed(self.messages):
            if m.get("role") == "user":
                return _message_text(m)
        return ""


@dataclass(slots=True)
class Completion:
    """The assistant message the server will send, before rendering as JSON or SSE."""

    content: str | None
    tool_calls: list[dict[str, Any]]
    finish_reason: str
    reasoning: str | None
    prompt_tokens: int
    completion_tokens: int
    model: str
    id: str
    created: int

    def message(self) -> dict[str, Any]:
        """The ``choices[0].message`` object of a ``chat.completion``."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            msg["tool_calls"] = self.tool_calls
        if self.reasoning is not None:
            msg["reasoning_content"] = self.reasoning
        return msg

    def usage(self) -> dict[str, int]:
        """The ``usage`` object."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
        }

    def to_json(self) -> dict[str, Any]:
        """The full ``chat.completion`` response body."""
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "system_fingerprint": SIMULATED_FINGERPRINT,
            "choices": [
                {
                    "index": 0,
                    "message": self.message(),
                    "logprobs": None,
                    "finish_reason": self.finish_reason,
                }
            ],
            "usage": self.usage(),
        }

    def chunks(self, include_usage: bool) -> Iterator[tuple[dict[str, Any], int]]:
        """``chat.completion.chunk`` objects for streaming, each with its token count."""
        head = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "system_fingerprint": SIMULATED_FINGERPRINT,
        }

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            return {**head, "choices": [choice]}

        yield chunk({"role": "assistant", "content": ""}), 0
        if self.reasoning:
            yield chunk({"reasoning_content": self.reasoning}), approx_tokens(self.reasoning)
        if self.content:
            for piece in _pieces(self.content):
                yield chunk({"content": piece}), approx_tokens(piece)
        for i, call in enumerate(self.tool_calls):
            fn = call["function"]
            start = {
                "index": i,
                "id": call["id"],
                "type": "function",
                "function": {"name": fn["name"], "arguments": ""},
            }
            yield chunk({"tool_calls": [start]}), 1
            args: str = fn["arguments"]
            half = len(args) // 2
            for part in (args[:half], args[half:]):
                if part:
                    delta = {"tool_calls": [{"index": i, "function": {"arguments": part}}]}
                    yield chunk(delta), approx_tokens(part)
        yield chunk({}, self.finish_reason), 0
        if include_usage:
            yield {**head, "choices": [], "usage": self.usage()}, 0


@dataclass(slots=True)
class SimResponse:
    """What the server sends: an error body with status/headers, or a completion."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    error: dict[str, Any] | None = None
    completion: Completion | None = None
    stream: bool = False
    include_usage: bool = False

    def body(self) -> dict[str, Any]:
        """The JSON body of a non-streaming answer."""
        if self.error is not None:
            return self.error
        assert self.completion is not None
        return self.completion.to_json()


# -- the engine ------------------------------------------------------------------------------


class SimulatedModel:
    """An OpenAI-compatible chat model that answers from a script, a function or a schema.

    Args:
        script: answers consumed one per request, in order (see the module docstring).
        responder: a function of the :class:`SimRequest` answering every request after the
            script; it may be ``async`` and may return ``None`` for the automatic answer.
        schema_mode: answer with data valid for the requested JSON Schema / tool parameters.
        faults: probabilities of injected faults.
        latency: delay per request (non-blocking).
        seed: makes fault draws and generated data reproducible (in arrival order).
        per_request_seed: generated data depends only on the seed and the request body, not
            on when the request arrived, so runs with concurrent requests (a batch, a demo)
            give the same answers every time; faults are still drawn in arrival order.
        capacity: at most this many requests are worked on at once; others queue.
        embedding_dim: length of ``/embeddings`` vectors.
        keep_requests: how many recent requests ``requests`` keeps.
        rerank_scorer: ``(query, document) -> score`` for ``/rerank`` (Cohere/Jina/TEI
            format); by default the share of the query's words the document contains.
        quirks: how this server departs from OpenAI's behaviour (see :class:`Quirks`: llama.cpp,
            Ollama, vLLM presets); refusals and context errors do not use up script items.
    """

    def __init__(
        self,
        script: Sequence[ScriptItem] | None = None,
        responder: Callable[[SimRequest], Any] | None = None,
        schema_mode: bool = False,
        faults: Faults | None = None,
        latency: Latency | None = None,
        seed: int = 0,
        capacity: int | None = None,
        embedding_dim: int = 256,
        keep_requests: int = 10_000,
        model_name: str = "sim",
        per_request_seed: bool = False,
        rerank_scorer: Callable[[str, str], float] | None = None,
        quirks: Quirks | None = None,
    ) -> None:
        if capacity is not None and capacity < 1:
            raise ConfigurationError(f"capacity must be at least 1 (got {capacity})")
        if embedding_dim < 1:
            raise ConfigurationError(f"embedding_dim must be at least 1 (got {embedding_dim})")
        self.script: list[ScriptItem] | None = list(script) if script is not None else None
        self.responder = responder
        self.schema_mode = schema_mode
        self._faults = faults or Faults()
        self._thresholds = _cumulative(self._faults.rates())
        self.latency = latency or Latency()
        self.seed = seed
        self.per_request_seed = per_request_seed
        self.capacity = capacity
        self.embedding_dim = embedding_dim
        self.keep_requests = keep_requests
        self.model_name = model_name
        self.rerank_scorer = rerank_scorer
        self.quirks = quirks or Quirks()
        self.requests: list[SimRequest] = []
        self._rng = random.Random(seed)
        self._cursor = 0
        self._received = 0
        self._counts: dict[str, int] = {}
        self._in_flight = 0
        self._sem: asyncio.Semaphore | None = None
        self._sem_loop: asyncio.AbstractEventLoop | None = None
        self.reset_stats()

    @property
    def faults(self) -> Faults:
        """The fault probabilities; assign a new :class:`Faults` to change them mid-run."""
        return self._faults

    @faults.setter
    def faults(self, faults: Faults) -> None:
        self._faults = faults
        self._thresholds = _cumulative(faults.rates())

    # -- statistics ----------------------------------------------------------------------------

    def stats(self) -> dict[str, int]:
        """Counts since the last reset: requests, one outcome per request, tokens, concurrency."""
        out = dict(self._counts)
        out["in_flight"] = self._in_flight
        out["script_remaining"] = self.script_remaining
        return out

    def reset_stats(self) -> None:
        """Zero every counter (the script position and kept requests stay)."""
        self._counts = {"requests": 0, **dict.fromkeys(_OUTCOMES, 0)}
        self._counts.update(
            prompt_tokens=0,
            completion_tokens=0,
            max_in_flight=self._in_flight,
            embedding_requests=0,
            embedding_inputs=0,
            rerank_requests=0,
            rerank_documents=0,
        )

    @property
    def script_remaining(self) -> int:
        """Script items not used yet (0 without a script)."""
        return 0 if self.script is None else len(self.script) - self._cursor

    # -- chat completions ------------------------------------------------------------------------

    async def respond(
        self,
        body: dict[str, Any],
        interrupt: Callable[[], Awaitable[object]] | None = None,
    ) -> SimResponse:
        """Answer one ``/chat/completions`` body, waiting as latency, capacity and stalls say.

        ``interrupt`` returns an awaitable that completes when waiting is pointless (the
        client went away, the server is stopping); it cuts stalls short.
        """
        # Everything up to the first await runs in arrival order: that is what makes the
        # fault draws reproducible from the seed.
        req = self._record(body)
        draw = self._rng.random()
        rng = random.Random(self._rng.getrandbits(64))
        if self.per_request_seed:
            rng = random.Random(_body_seed(self.seed, body))
        fault = _pick(self._thresholds, draw)
        self._in_flight += 1
        self._counts["max_in_flight"] = max(self._counts["max_in_flight"], self._in_flight)
        try:
            if fault == "http_500":
                return self._error(req, "http_500", 500, "simulated model: injected server error")
            if fault == "http_429":
                return self._rate_limited(req, self.faults.retry_after_s)
            quirk = self._apply_quirks(req)
            if quirk is not None:
                return quirk
            source = self._take(req)
            async with self._slot():
                return await self._answer(req, rng, fault, source, interrupt)
        finally:
            self._in_flight -= 1

    async def _answer(
        self,
        req: SimRequest,
        rng: random.Random,
        fault: str | None,
        source: Any,
        interrupt: Callable[[], Awaitable[object]] | None,
    ) -> SimResponse:
        stall_s = self.faults.stall_s if fault == "stall" else 0.0
        try:
            reply = await self._reply_from(source, req, rng)
        except _ScriptExhausted as exc:
            return self._error(req, "script_exhausted", 400, str(exc), code="script_exhausted")
        except Exception as exc:
            log.exception("simulated model responder failed on request %d", req.index)
            return self._error(
                req,
                "responder_error",
                500,
                f"simulated model: the responder raised {type(exc).__name__}: {exc}",
            )
        if reply is None:
            reply = self.auto_reply(req, rng)
        # A scripted stall or error decides the outcome; a drawn content fault is dropped.
        if reply.stall_s > 0:
            stall_s, fault = reply.stall_s, "stall"
            reply = reply.then or self.auto_reply(req, rng)
        if reply.is_error:
            return self._scripted_error(req, reply)
        if reply.inject is not None:
            fault = reply.inject
            reply = reply.then or self.auto_reply(req, rng)
        outcome = "stall" if fault == "stall" else "ok"
        if fault in CONTENT_FAULTS:
            faulty = _apply_fault(fault, reply, req, rng)
            if faulty is not None:
                reply, outcome = faulty, fault
        self._counts[outcome] += 1
        completion = self._completion(req, reply, rng)
        self._counts["completion_tokens"] += completion.completion_tokens
        if stall_s > 0:
            await _sleep(stall_s, interrupt)
        delay = self.latency.fixed_s
        if not req.stream:
            delay += self.latency.per_token_s * completion.completion_tokens
        if delay > 0:
            await asyncio.sleep(delay)
        include_usage = bool((req.body.get("stream_options") or {}).get("include_usage"))
        return SimResponse(completion=completion, stream=req.stream, include_usage=include_usage)

    def _take(self, req: SimRequest) -> Any:
        """Where this request's answer comes from; script items are taken in arrival order."""
        if self.script is not None and self._cursor < len(self.script):
            item = self.script[self._cursor]
            self._cursor += 1
            return item
        if self.responder is not None:
            return self.responder
        if self.script is not None:
            return _ScriptExhausted(
                f"simulated model: script exhausted after {len(self.script)} replies "
                f"(request #{req.index + 1} has no scripted answer; add items to the script "
                "or give a responder)"
            )
        return _AUTO

    async def _reply_from(self, source: Any, req: SimRequest, rng: random.Random) -> Reply | None:
        if isinstance(source, _ScriptExhausted):
            raise source
        if source is _AUTO:
            return None if self.schema_mode else Reply(content=portuguese_text(rng))
        return await _resolve(source, req)

    def auto_reply(self, req: SimRequest, rng: random.Random) -> Reply:
        """The schema-driven answer to ``req``.

        A forced tool (``tool_choice`` naming a function, or ``"required"``) gets a call with
        valid arguments; with ``tool_choice="auto"`` a tool is called until the conversation
        holds two tool results, then the answer is text or the requested JSON (so agent loops
        end); a requested JSON Schema (``response_format`` or a fenced schema in the prompt)
        gets valid JSON; anything else a short Portuguese sentence.
        """
        tools = req.tools
        choice = req.tool_choice
        if tools and req.ignored_choice == "prose":
            return Reply(content=portuguese_text(rng))
        if tools and req.ignored_choice == "fenced_json":
            text = orjson.dumps(_generated_call(tools[0], rng), option=orjson.OPT_INDENT_2).decode()
            return Reply(content=f"Para isso, use a ferramenta:\n\n```json\n{text}\n```")
        if not tools and req.prompt_tools and req.tool_results < 2:
            call = _generated_call(rng.choice(req.prompt_tools), rng)
            return Reply(content=f"<tool_call>\n{orjson.dumps(call).decode()}\n</tool_call>")
        if tools and choice != "none":
            forced = _forced_name(choice)
            if forced is not None:
                spec = next((t for t in tools if _tool_name(t) == forced), tools[0])
                return Reply(tool_calls=[_generated_call(spec, rng)])
            if choice == "required" or req.tool_results < 2:
                return Reply(tool_calls=[_generated_call(rng.choice(tools), rng)])
            if req.schema is None:
                return Reply(content=_closing_text(req, rng))
        if req.schema is not None:
            value = generate(req.schema, rng)
            return Reply(content=orjson.dumps(value).decode())
        rf_type = (req.response_format or {}).get("type")
        if rf_type == "json_object":
            return Reply(content=orjson.dumps({"resposta": portuguese_text(rng)}).decode())
        if req.tool_results:
            return Reply(content=_closing_text(req, rng))
        return Reply(content=portuguese_text(rng))

    def _apply_quirks(self, req: SimRequest) -> SimResponse | None:
        """Refuse what this server refuses; make what it ignores have no effect on ``req``."""
        q = self.quirks
        window = q.context_window
        if window is not None and req.prompt_tokens > window:
            if q.context_overflow == "error":
                status, body = q.context_error(req.prompt_tokens, window)
                self._counts["context_overflow"] += 1
                return SimResponse(status=status, error=body)
            _truncate(req, window)
        checks: list[tuple[str, bool]] = []
        if req.tools:
            if req.tool_choice is None and q.default_tool_choice is not None:
                req.tool_choice = q.default_tool_choice
            choice = req.tool_choice
            checks.append(("tools", True))
            checks.append(("tool_choice_named", isinstance(choice, dict)))
            checks.append(("tool_choice_required", choice == "required"))
            checks.append(("tool_choice_auto", choice == "auto"))
        fmt = (req.response_format or {}).get("type")
        checks.append(("json_schema", fmt == "json_schema"))
        checks.append(("json_object", fmt == "json_object"))
        for feature, present in checks:
            handling = getattr(q, feature)
            if not present or handling == "honour":
                continue
            if handling == "refuse":
                status, body = q.refusal(feature, req.body)
                self._counts["refused"] += 1
                return SimResponse(status=status, error=body)
            if handling == "garble":
                status, body = q.garbled("Responda solo en español.")
                self._counts["refused"] += 1
                return SimResponse(status=status, error=body)
            # ignored: the field has no effect on the answer
            if feature.startswith("tool_choice"):
                req.tool_choice = "auto"
                req.ignored_choice = q.ignored_choice_answer
            else:
                req.response_format = None
                req.schema = _requested_schema(None, req.messages)
        return None

    # -- pieces --------------------------------------------------------------------------------

    def _record(self, body: dict[str, Any]) -> SimRequest:
        messages = body.get("messages")
        if not isinstance(messages, list):
            messages = []
        tools = body.get("tools")
        if not isinstance(tools, list):
            tools = []
        response_format = body.get("response_format")
        if not isinstance(response_format, dict):
            response_format = None
        schema = _requested_schema(response_format, messages)
        chars = sum(len(_message_text(m)) + _tool_call_chars(m) for m in messages)
        if tools:
            chars += len(orjson.dumps(tools))
        req = SimRequest(
            index=self._received,
            body=body,
            messages=messages,
            tools=tools,
            tool_choice=body.get("tool_choice"),
            response_format=response_format,
            schema=schema,
            model=str(body.get("model") or self.model_name),
            stream=bool(body.get("stream")),
            prompt_tokens=max(1, round(chars / 4)),
            prompt_tools=[] if tools else _tools_in_prompt(messages),
        )
        self._received += 1
        self._counts["requests"] += 1
        self._counts["prompt_tokens"] += req.prompt_tokens
        self.requests.append(req)
        if len(self.requests) > self.keep_requests + max(1, self.keep_requests // 10):
            del self.requests[: len(self.requests) - self.keep_requests]
        return req

    def _slot(self) -> asyncio.Semaphore | _NoLimit:
        if self.capacity is None:
            return _NO_LIMIT
        loop = asyncio.get_running_loop()
        if self._sem is None or self._sem_loop is not loop:
            self._sem = asyncio.Semaphore(self.capacity)
            self._sem_loop = loop
        return self._sem

    def _error(
        self, req: SimRequest, outcome: str, status: int, message: str, code: str | None = None
    ) -> SimResponse:
        self._counts[outcome] += 1
        kind = "server_error" if status >= 500 else "invalid_request_error"
        if status == 429:
            kind = "rate_limit_exceeded"
        error = {"error": {"message": message, "type": kind, "param": None, "code": code}}
        return SimResponse(status=status, error=error)

    def _rate_limited(self, req: SimRequest, retry_after_s: float) -> SimResponse:
        resp = self._error(
            req, "http_429", 429, "simulated model: rate limit reached", code="rate_limit_exceeded"
        )
        resp.headers = {
            "retry-after-ms": str(max(0, round(retry_after_s * 1000))),
            "retry-after": str(max(0, math.ceil(retry_after_s))),
        }
        return resp

    def _scripted_error(self, req: SimRequest, reply: Reply) -> SimResponse:
        status = reply.status
        if status == 429:
            wait = self.faults.retry_after_s if reply.retry_after_s is None else reply.retry_after_s
            resp = self._rate_limited(req, wait)
            if reply.error_message:
                assert resp.error is not None
                resp.error["error"]["message"] = reply.error_message
            return resp
        outcome = "http_500" if status == 500 else "http_other"
        message = reply.error_message or f"simulated model: scripted HTTP {status}"
        resp = self._error(req, outcome, status, message)
        if reply.retry_after_s is not None:
            resp.headers = {
                "retry-after-ms": str(round(reply.retry_after_s * 1000)),
                "retry-after": str(math.ceil(reply.retry_after_s)),
            }
        return resp

    def _completion(self, req: SimRequest, reply: Reply, rng: random.Random) -> Completion:
        calls = [_wire_call(c, rng) for c in reply.tool_calls or ()]
        content = reply.content
        if content is None and not calls:
            content = ""
        finish = reply.finish_reason or ("tool_calls" if calls else "stop")
        chars = len(content or "") + len(reply.reasoning or "")
        chars += sum(len(c["function"]["name"]) + len(c["function"]["arguments"]) for c in calls)
        return Completion(
            content=content,
            tool_calls=calls,
            finish_reason=finish,
            reasoning=reply.reasoning,
            prompt_tokens=req.prompt_tokens,
            completion_tokens=max(1, round(chars / 4)),
            model=req.model,
            id=f"chatcmpl-sim{req.index}",
            created=int(req.received_at),
        )

    # -- embeddings ----------------------------------------------------------------------------

    def embed(self, texts: Sequence[str], dim: int | None = None) -> list[list[float]]:
        """Deterministic hashed bag-of-words vectors (see :func:`hashed_embedding`)."""
        self._counts["embedding_requests"] += 1
        self._counts["embedding_inputs"] += len(texts)
        return [hashed_embedding(t, dim or self.embedding_dim) for t in texts]

    # -- rerank --------------------------------------------------------------------------------

    def rerank(self, query: str, documents: Sequence[str]) -> list[float]:
        """One relevance score per document (``rerank_scorer``, or word overlap)."""
        self._counts["rerank_requests"] += 1
        self._counts["rerank_documents"] += len(documents)
        if self.rerank_scorer is not None:
            return [float(self.rerank_scorer(query, d)) for d in documents]
        words = set(_WORD.findall(_fold(query)))
        return [
            len(words & set(_WORD.findall(_fold(d)))) / len(words) if words else 0.0
            for d in documents
        ]

    def __repr__(self) -> str:
        mode = "script" if self.script is not None else "responder" if self.responder else "auto"
        return f"SimulatedModel(mode={mode}, schema_mode={self.schema_mode}, seed={self.seed})"


# -- embeddings ------------------------------------------------------------------------------

_WORD = re.compile(r"\w+")


def _truncate(req: SimRequest, window: int) -> None:
    """Drop the oldest messages until the prompt fits ``window`` (what Ollama does, silently)."""
    while len(req.messages) > 1 and req.prompt_tokens > window:
        dropped = req.messages.pop(0)
        req.prompt_tokens -= approx_tokens(_message_text(dropped))
    req.schema = _requested_schema(req.response_format, req.messages)


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@functools.lru_cache(maxsize=65536)
def _feature_hash(feature: str) -> int:
    # blake2b, not hash(): the same word must land in the same place in every process.
    return int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")


def hashed_embedding(text: str, dim: int = 256) -> list[float]:
    """An L2-normalised hashed bag of words: accent- and case-insensitive, stable everywhere.

    Each word adds ±1 at a position chosen by a hash of it; words longer than five letters
    also add their five-letter prefix, so "contrato" and "contratos" land close together.
    Texts sharing words get a positive cosine; an empty text gets a fixed unit vector.
    """
    vec = [0.0] * dim
    words = _WORD.findall(_fold(text))
    features = [*words, *(f"{w[:5]}~" for w in words if len(w) > 5)] or ["<vazio>"]
    for feature in features:
        h = _feature_hash(feature)
        vec[h % dim] += 1.0 if (h >> 32) & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vec))
    if norm == 0.0:  # features cancelled out exactly; still return a unit vector
        vec[0], norm = 1.0, 1.0
    return [v / norm for v in vec]


def encode_base64(vector: Sequence[float]) -> str:
    """Little-endian float32 bytes in base64, as ``encoding_format="base64"`` asks."""
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()


# -- helpers ---------------------------------------------------------------------------------


class _ScriptExhausted(Exception):
    pass


_AUTO = object()


class _NoLimit:
    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc: object) -> None:
        return None


_NO_LIMIT = _NoLimit()


def _cumulative(rates: list[tuple[str, float]]) -> list[tuple[float, str]]:
    out: list[tuple[float, str]] = []
    total = 0.0
    for name, p in rates:
        if p > 0:
            total += p
            out.append((total, name))
    return out


def _pick(thresholds: list[tuple[float, str]], draw: float) -> str | None:
    for bound, name in thresholds:
        if draw < bound:
            return name
    return None


async def _sleep(seconds: float, interrupt: Callable[[], Awaitable[object]] | None) -> None:
    if interrupt is None:
        await asyncio.sleep(seconds)
        return
    sleeper = asyncio.ensure_future(asyncio.sleep(seconds))
    waiter = asyncio.ensure_future(interrupt())
    try:
        await asyncio.wait({sleeper, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (sleeper, waiter):
            task.cancel()


async def _resolve(item: Any, req: SimRequest) -> Reply | None:
    if callable(item) and not isinstance(item, Reply):
        item = item(req)
        if inspect.isawaitable(item):
            item = await item
        if item is None:
            return None
    return _as_reply(item)


def _as_reply(item: Any) -> Reply:
    if isinstance(item, Reply):
        return item
    if isinstance(item, str):
        return Reply(content=item)
    if isinstance(item, dict | list):
        return Reply(content=orjson.dumps(item).decode())
    raise ConfigurationError(
        f"a script item or responder result must be a Reply, str, dict or list, not "
        f"{type(item).__name__}"
    )


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _tool_call_chars(message: dict[str, Any]) -> int:
    calls = message.get("tool_calls")
    if not isinstance(calls, list):
        return 0
    total = 0
    for call in calls:
        fn = call.get("function") if isinstance(call, dict) else None
        if isinstance(fn, dict):
            total += len(str(fn.get("name", ""))) + len(str(fn.get("arguments", "")))
    return total


def _requested_schema(
    response_format: dict[str, Any] | None, messages: list[dict[str, Any]]
) -> dict[str, Any] | None:
    if response_format is not None and response_format.get("type") == "json_schema":
        spec = response_format.get("json_schema") or {}
        schema = spec.get("schema") if isinstance(spec, dict) else None
        return schema if isinstance(schema, dict) else {"type": "object"}
    # Prompt-mode structured output: the schema sits in a ```json fence after "JSON Schema".
    found: dict[str, Any] | None = None
    for message in messages:
        if message.get("role") not in ("system", "user"):
            continue
        text = _message_text(message)
        at = text.find("JSON Schema")
        if at < 0:
            continue
        match = _SCHEMA_FENCE.search(text, at)
        if match is None:
            continue
        try:
            candidate = orjson.loads(match.group(1))
        except orjson.JSONDecodeError:
            continue
        if isinstance(candidate, dict):
            found = candidate
    return found


_PROMPT_TOOL = re.compile(
    r"^- (?P<name>[\w.\-]+): .*\n\s+arguments \(JSON Schema\): (?P<schema>\{.*\})$", re.MULTILINE
)


def _tools_in_prompt(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tools a system message describes (``- name: description`` + ``arguments (JSON Schema):``),
    as colmeia does for servers that refuse native tools."""
    found: list[dict[str, Any]] = []
    for message in messages:
        if message.get("role") != "system":
            continue
        for match in _PROMPT_TOOL.finditer(_message_text(message)):
            try:
                schema = orjson.loads(match.group("schema"))
            except orjson.JSONDecodeError:
                continue
            fn = {"name": match.group("name"), "parameters": schema}
            found.append({"type": "function", "function": fn})
    return found


def _tool_name(tool: dict[str, Any]) -> str:
    fn = tool.get("function")
    if isinstance(fn, dict):
        return str(fn.get("name", ""))
    return str(tool.get("name", ""))


def _forced_name(choice: Any) -> str | None:
    if isinstance(choice, dict):
        fn = choice.get("function")
        if isinstance(fn, dict) and fn.get("name"):
            return str(fn["name"])
        if choice.get("name"):
            return str(choice["name"])
    return None


def _body_seed(seed: int, body: dict[str, Any]) -> int:
    """A seed from ``seed`` and the request body alone (key order does not matter)."""
    digest = hashlib.sha256(orjson.dumps(body, option=orjson.OPT_SORT_KEYS, default=str))
    digest.update(seed.to_bytes(8, "little", signed=True))
    return int.from_bytes(digest.digest()[:8], "little")


def _generated_call(tool: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    fn = tool.get("function") if isinstance(tool.get("function"), dict) else tool
    assert isinstance(fn, dict)
    params = fn.get("parameters") or {"type": "object", "properties": {}}
    args = generate(params, rng)
    if not isinstance(args, dict):
        args = {}
    return {"name": _tool_name(tool), "arguments": args}


def _wire_call(call: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    args = call.get("arguments", {})
    raw = args if isinstance(args, str) else orjson.dumps(args).decode()
    call_id = call.get("id") or f"call_{rng.getrandbits(96):024x}"
    return {"id": call_id, "type": "function", "function": {"name": call["name"], "arguments": raw}}


def _closing_text(req: SimRequest, rng: random.Random) -> str:
    last = ""
    for m in reversed(req.messages):
        if m.get("role") == "tool":
            last = _message_text(m)
            break
    if not last:
        return portuguese_text(rng)
    return f"Com base nos resultados das ferramentas: {last[:200]}"


def _looks_like_json(text: str | None) -> bool:
    return bool(text) and text.lstrip()[:1] in ("{", "[")  # type: ignore[union-attr]


def _apply_fault(kind: str, reply: Reply, req: SimRequest, rng: random.Random) -> Reply | None:
    """``reply`` altered by content fault ``kind``, or None where the fault cannot apply."""
    if kind == "think":
        thought = f"<think>{rng.choice(_THINK)}</think>\n"
        return Reply(
            content=thought + (reply.content or ""),
            tool_calls=reply.tool_calls,
            finish_reason=reply.finish_reason,
            reasoning=reply.reasoning,
        )
    if kind == "prose":
        structured = bool(reply.tool_calls) or req.schema is not None
        if not (structured or _looks_like_json(reply.content)):
            return None
        return Reply(content=rng.choice(_PROSE))
    if kind == "truncated_json":
        if reply.tool_calls:
            calls = [dict(c) for c in reply.tool_calls]
            last = calls[-1]
            raw = last.get("arguments", {})
            raw = raw if isinstance(raw, str) else orjson.dumps(raw).decode()
            last["arguments"] = raw[: rng.randint(1, max(1, len(raw) - 1))]
            return Reply(content=reply.content, tool_calls=calls, finish_reason="length")
        text = reply.content or ""
        if not _looks_like_json(text) or len(text.strip()) < 2:
            return None
        text = text.strip()
        return Reply(content=text[: rng.randint(1, len(text) - 1)], finish_reason="length")
    if kind == "tool_call_as_text":
        if not reply.tool_calls:
            return None
        parts = []
        for call in reply.tool_calls:
            args = call.get("arguments", {})
            if isinstance(args, str):
                try:
                    args = orjson.loads(args)
                except orjson.JSONDecodeError:
                    pass
            payload = orjson.dumps({"name": call["name"], "arguments": args}).decode()
            parts.append(f"<tool_call>{payload}</tool_call>")
        return Reply(content="\n".join(parts), finish_reason="stop")
    return None


def _pieces(text: str, most: int = 32) -> list[str]:
    words = re.findall(r"\S+\s*|\s+", text)
    if not words:
        return [text]
    size = max(1, math.ceil(len(words) / most))
    return ["".join(words[i : i + size]) for i in range(0, len(words), size)]
