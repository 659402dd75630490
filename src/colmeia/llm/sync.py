"""Running async code from synchronous callers — the one way colmeia does it.

:func:`run_sync` runs a coroutine on colmeia's own event loop, in a daemon thread started on
first use, and blocks until it is done. It works the same from a plain script, from a thread,
and from inside a running event loop (a Jupyter cell, a FastAPI handler), where
``asyncio.run`` would refuse. Connections that clients pool per event loop stay open on that
one loop between calls, so repeated blocking calls reuse them.

A process forked after a call (a ``fork`` start method of multiprocessing, a pre-forking
server, a test runner's forked workers) starts without that thread, so the child makes its own
loop on its first call instead of queueing work on a loop no thread runs, where it would wait
for ever.

:class:`SyncChatModel` gives the model methods as blocking twins on top of it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import os
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

__all__ = ["SyncChatModel", "run_sync"]

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")


_LOOP: asyncio.AbstractEventLoop | None = None
_LOOP_LOCK = threading.Lock()


def _forget_loop_in_child() -> None:
    # the parent's loop thread does not exist here, and its lock may have been held at fork
    # time; the loop object itself is left alone (closing it would touch the parent's fds)
    global _LOOP, _LOOP_LOCK
    _LOOP = None
    _LOOP_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_forget_loop_in_child)


def _background_loop() -> asyncio.AbstractEventLoop:
    global _LOOP
    with _LOOP_LOCK:
        if _LOOP is None or _LOOP.is_closed():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="colmeia-async", daemon=True)
            thread.start()
            _LOOP = loop
        return _LOOP


def run_sync(aw: Awaitable[R]) -> R:
    """Run ``aw`` to completion on colmeia's background event loop and return its result.

    Safe inside a running event loop (Jupyter); exceptions propagate unchanged. Not to be called
    from a coroutine that itself runs on that background loop (it would wait for itself).
    """
    loop = _background_loop()
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        raise RuntimeError(
            "run_sync() was called from colmeia's own event loop; await the coroutine instead"
        )

    async def _await() -> R:
        return await aw

    # The caller's context goes along, so `with track_usage():` around a blocking call counts it.
    context = contextvars.copy_context()
    done: concurrent.futures.Future[R] = concurrent.futures.Future()

    def start() -> None:
        task = loop.create_task(_await(), context=context)

        def finish(t: asyncio.Task[R]) -> None:
            if t.cancelled():
                done.cancel()
            elif (error := t.exception()) is not None:
                done.set_exception(error)
            else:
                done.set_result(t.result())

        task.add_done_callback(finish)

    loop.call_soon_threadsafe(start)
    return done.result()


class SyncChatModel:
    """Wraps an async model; same method names and signatures, blocking (via :func:`run_sync`)."""

    def __init__(self, model: OpenAIChatModel) -> None:
        self.async_model = model
        self._closed = False

    @property
    def model(self) -> str:
        return self.async_model.model

    def _run(self, aw: Awaitable[R]) -> R:
        return run_sync(aw)

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
        """Close the connections this model opened (safe to call twice)."""
        if not self._closed:
            self._closed = True
            self._run(self.async_model.aclose())

    def __enter__(self) -> SyncChatModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
