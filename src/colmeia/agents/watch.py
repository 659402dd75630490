"""See what the model saw: every prompt an agent sends and every raw reply it gets back.

:class:`WatchedModel` wraps any :class:`~colmeia.llm.base.ChatModel` and hands each exchange
— the rendered messages, the tools offered and the reply exactly as the model wrote it, before
any parsing — to a callback. ``colmeia agent run --show-prompts`` prints them; a script can
log or store them. The wrapped model is used unchanged, so what is shown is what was sent.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from colmeia.llm.base import (
    NOT_GIVEN,
    ChatModel,
    ChatResult,
    Message,
    NotGiven,
    StreamEvent,
    StructuredResult,
    ToolChoice,
    ToolSpec,
)

__all__ = ["Exchange", "WatchedModel"]

T = TypeVar("T", bound=BaseModel)


@dataclass(slots=True)
class Exchange:
    """One call: what was sent and what came back (``reply`` is the raw text)."""

    kind: str
    messages: list[Message]
    tools: list[str] = field(default_factory=list)
    output_type: str | None = None
    reply: str = ""
    tool_calls: list[str] = field(default_factory=list)
    error: str | None = None
    latency_s: float = 0.0


class WatchedModel:
    """A :class:`ChatModel` that reports every exchange to ``on_exchange``."""

    def __init__(self, model: ChatModel, on_exchange: Callable[[Exchange], object]) -> None:
        self.inner = model
        self.on_exchange = on_exchange

    @property
    def model(self) -> str:
        return self.inner.model

    def __getattr__(self, name: str) -> Any:
        # base_url, provider, aclose… of the wrapped model
        return getattr(self.inner, name)

    def _report(self, exchange: Exchange, started: float) -> None:
        exchange.latency_s = time.perf_counter() - started
        self.on_exchange(exchange)

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
        exchange = Exchange("chat", list(messages), [t.name for t in tools or ()])
        started = time.perf_counter()
        try:
            result = await self.inner.chat(
                messages,
                tools=tools,
                tool_choice=tool_choice,
                require_tool=require_tool,
                temperature=temperature,
                max_tokens=max_tokens,
                deadline=deadline,
            )
        except Exception as exc:
            exchange.error = str(exc)
            self._report(exchange, started)
            raise
        exchange.reply = result.raw_content or result.content
        exchange.tool_calls = [
            f"{c.name}({c.raw_arguments or c.arguments})" for c in result.tool_calls
        ]
        if result.tool_calls_recovered:
            exchange.tool_calls = [f"{c} (recovered from the text)" for c in exchange.tool_calls]
        self._report(exchange, started)
        return result

    def stream(
        self,
        messages: Sequence[Message],
        *,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> AsyncIterator[StreamEvent]:
        return self._stream(messages, temperature, max_tokens, deadline)

    async def _stream(
        self,
        messages: Sequence[Message],
        temperature: float | None | NotGiven,
        max_tokens: int | None | NotGiven,
        deadline: float | NotGiven,
    ) -> AsyncIterator[StreamEvent]:
        exchange = Exchange("stream", list(messages))
        started = time.perf_counter()
        async for event in self.inner.stream(
            messages, temperature=temperature, max_tokens=max_tokens, deadline=deadline
        ):
            if event.result is not None:
                exchange.reply = event.result.raw_content or event.result.content
                self._report(exchange, started)
            yield event

    async def structured(
        self,
        messages: Sequence[Message],
        output_type: type[T],
        *,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> T:
        result = await self.structured_result(
            messages, output_type, temperature=temperature, max_tokens=max_tokens, deadline=deadline
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
        exchange = Exchange("structured", list(messages), output_type=output_type.__name__)
        started = time.perf_counter()
        try:
            result = await self.inner.structured_result(
                messages,
                output_type,
                temperature=temperature,
                max_tokens=max_tokens,
                deadline=deadline,
            )
        except Exception as exc:
            exchange.error = str(exc)
            last = getattr(exc, "last_output", None)
            exchange.reply = last if isinstance(last, str) else ""
            self._report(exchange, started)
            raise
        exchange.reply = result.raw
        self._report(exchange, started)
        return result
