"""The vocabulary of the model layer: messages, tool calls, usage and the ChatModel protocol.

Everything above ``colmeia.llm`` speaks these types, never a vendor SDK's.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from colmeia.usage import Usage

__all__ = [
    "NOT_GIVEN",
    "SIMULATED_FINGERPRINT",
    "ChatModel",
    "ChatResult",
    "Message",
    "NotGiven",
    "Role",
    "StreamEvent",
    "StreamSink",
    "StructuredResult",
    "ToolCall",
    "ToolChoice",
    "ToolSpec",
    "Usage",
    "UsageTracker",
    "current_sink",
    "current_tracker",
    "stream_to",
    "track_usage",
]

# The ``system_fingerprint`` colmeia's simulated server puts on every answer, so that whatever used
# it can say its text is placeholder, not a real model's.
SIMULATED_FINGERPRINT = "colmeia-simulated"

Role = Literal["system", "user", "assistant", "tool"]
T = TypeVar("T", bound=BaseModel)


class NotGiven:
    """Sentinel for "use the model's default" (``None`` may be a real value, e.g. no limit)."""

    _instance: NotGiven | None = None

    def __new__(cls) -> NotGiven:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NOT_GIVEN"

    def __bool__(self) -> bool:
        return False


NOT_GIVEN = NotGiven()


@dataclass(slots=True)
class ToolCall:
    """A request from the model to run one tool with JSON arguments."""

    id: str
    name: str
    arguments: dict[str, Any]
    raw_arguments: str = ""


@dataclass(slots=True)
class ToolSpec:
    """A tool as offered to the model: name, description and JSON Schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]

    def to_openai(self) -> dict[str, Any]:
        """The ``tools=[…]`` entry of the OpenAI chat API."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


@dataclass(slots=True)
class Message:
    """One chat message."""

    role: Role
    content: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None

    @classmethod
    def system(cls, content: str) -> Message:
        return cls("system", content)

    @classmethod
    def user(cls, content: str) -> Message:
        return cls("user", content)

    @classmethod
    def assistant(cls, content: str | None, tool_calls: Sequence[ToolCall] = ()) -> Message:
        return cls("assistant", content, list(tool_calls))

    @classmethod
    def tool(cls, tool_call_id: str, content: str, name: str | None = None) -> Message:
        return cls("tool", content, tool_call_id=tool_call_id, name=name)


@dataclass(slots=True)
class ChatResult:
    """A model's answer: cleaned text (``<think>`` removed), tool calls and what it cost."""

    content: str
    tool_calls: list[ToolCall]
    model: str
    usage: Usage
    finish_reason: str | None = None
    reasoning: str | None = None
    raw_content: str | None = None
    #: the tool calls were written as text by the model and recovered from it
    tool_calls_recovered: bool = False
    #: how the tools were offered: named, required, required_one, auto, omit, prompt ("" = none)
    tool_form: str = ""

    def to_message(self) -> Message:
        """The assistant message to append to the conversation."""
        return Message.assistant(self.content or None, self.tool_calls)


@dataclass(slots=True)
class StructuredResult(Generic[T]):
    """A validated structured answer and what it cost."""

    value: T
    model: str
    usage: Usage
    raw: str = ""
    #: how the format was asked for: json_schema, json_object, tool or prompt
    mode: str = ""


@dataclass(slots=True)
class StreamEvent:
    """One piece of a streamed answer: a text delta, or the final result (``done``)."""

    delta: str = ""
    result: ChatResult | None = None

    @property
    def done(self) -> bool:
        return self.result is not None


ToolChoice = Literal["auto", "required", "none"] | str


class StreamSink(Protocol):
    """Receives a model call's output while it is generated (see :func:`stream_to`).

    Deltas are provisional: the call's return value is what counts. A call that repairs or
    retries sends a second request, announced by :meth:`begin`; what came before it is void.
    """

    def begin(self) -> None:
        """A request of the call starts; deltas received before it no longer count."""

    def delta(self, text: str, part: Literal["content", "arguments"]) -> None:
        """Visible answer text (``content``, reasoning removed) or tool-call ``arguments``."""


_SINK: contextvars.ContextVar[StreamSink | None] = contextvars.ContextVar(
    "colmeia_stream_sink", default=None
)


def current_sink() -> StreamSink | None:
    """The sink that model calls made here stream into, or ``None`` (no streaming)."""
    return _SINK.get()


@contextmanager
def stream_to(sink: StreamSink | None) -> Iterator[None]:
    """Model calls made inside the block stream their output into ``sink``.

    ``chat`` and ``structured`` keep their behaviour (tool forms, repairs, validation) and
    return the same result; a model that can stream also feeds ``sink`` as tokens arrive, one
    that cannot (offline rules, scripted stand-ins) feeds nothing. Keep the block around the one
    call whose output a person watches: every call inside it streams into ``sink``.
    """
    token = _SINK.set(sink)
    try:
        yield
    finally:
        _SINK.reset(token)


@runtime_checkable
class ChatModel(Protocol):
    """Anything that turns messages into answers. Every method returns or raises ModelError."""

    @property
    def model(self) -> str: ...

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
    ) -> ChatResult: ...

    def stream(
        self,
        messages: Sequence[Message],
        *,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> AsyncIterator[StreamEvent]: ...

    async def structured(
        self,
        messages: Sequence[Message],
        output_type: type[T],
        *,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> T: ...

    async def structured_result(
        self,
        messages: Sequence[Message],
        output_type: type[T],
        *,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> StructuredResult[T]: ...


class UsageTracker:
    """Sums the usage of every call made while it is active (see :func:`track_usage`)."""

    def __init__(self) -> None:
        self.usage = Usage()
        self.by_model: dict[str, Usage] = {}
        self.started = time.perf_counter()

    def record(self, model: str, usage: Usage) -> None:
        self.usage.add(usage)
        self.by_model.setdefault(model, Usage()).add(usage)


_TRACKERS: contextvars.ContextVar[tuple[UsageTracker, ...]] = contextvars.ContextVar(
    "colmeia_usage_trackers", default=()
)


def current_tracker() -> tuple[UsageTracker, ...]:
    """The trackers active in this context (innermost last)."""
    return _TRACKERS.get()


@contextmanager
def track_usage() -> Iterator[UsageTracker]:
    """Collect the usage of all model calls made inside the block (tasks started inside too).

    Trackers nest: a call is recorded in every active tracker, so a run total and a
    per-step figure can be taken at once.
    """
    tracker = UsageTracker()
    token = _TRACKERS.set((*_TRACKERS.get(), tracker))
    try:
        yield tracker
    finally:
        _TRACKERS.reset(token)
