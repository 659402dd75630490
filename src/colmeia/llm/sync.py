"""Blocking twins of the async model methods, for scripts and the CLI.

One implementation underneath: each call runs the async method on a private event loop in a
daemon thread, so the sync API works even when called from inside another event loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Iterator, Sequence
from typing import TypeVar

from pydantic import BaseModel

from colmeia.llm.base import (
    NOT_GIVEN,
    ChatResult,
    Message,
    NotGiven,
    StreamEvent,
    StructuredResult,
    ToolChoice,
    ToolSpec,
)
from colmeia.llm.openai_compat import OpenAIChatModel

__all__ = ["SyncChatModel"]

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")


class SyncChatModel:
    """Wraps an async model; same method names and signatures, blocking."""

    def __init__(self, model: OpenAIChatModel) -> None:
        self.async_model = model
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    @property
    def model(self) -> str:
        return self.async_model.model

    def _run(self, aw: Awaitable[R]) -> R:
        async def _await() -> R:
            return await aw

        return asyncio.run_coroutine_threadsafe(_await(), self._loop).result()

    def chat(
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
        """Blocking :meth:`OpenAIChatModel.chat`."""
        return self._run(
            self.async_model.chat(
                messages,
                tools=tools,
                tool_choice=tool_choice,
                require_tool=require_tool,
                temperature=temperature,
                max_tokens=max_tokens,
                deadline=deadline,
            )
        )

    def structured(
        self,
        messages: Sequence[Message],
        output_type: type[T],
        *,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> T:
        """Blocking :meth:`OpenAIChatModel.structured`."""
        return self._run(
            self.async_model.structured(
                messages,
                output_type,
                temperature=temperature,
                max_tokens=max_tokens,
                deadline=deadline,
            )
        )

    def structured_result(
        self,
        messages: Sequence[Message],
        output_type: type[T],
        *,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> StructuredResult[T]:
        """Blocking :meth:`OpenAIChatModel.structured_result`."""
        return self._run(
            self.async_model.structured_result(
                messages,
                output_type,
                temperature=temperature,
                max_tokens=max_tokens,
                deadline=deadline,
            )
        )

    def stream(
        self,
        messages: Sequence[Message],
        *,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> Iterator[StreamEvent]:
        """Blocking :meth:`OpenAIChatModel.stream`: an iterator of events."""
        agen = self.async_model.stream(
            messages, temperature=temperature, max_tokens=max_tokens, deadline=deadline
        )
        while True:
            try:
                yield self._run(agen.__anext__())
            except StopAsyncIteration:
                return

    def close(self) -> None:
        """Close connections and stop the private loop."""
        if self._loop.is_running():
            self._run(self.async_model.aclose())
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)
        if not self._loop.is_running() and not self._loop.is_closed():
            self._loop.close()

    def __enter__(self) -> SyncChatModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
