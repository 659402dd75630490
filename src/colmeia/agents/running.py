"""Running an agent: within its deadline, into a finished trace, and from synchronous code."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

from colmeia.agents.trace import RunStatus, Trace
from colmeia.errors import ModelError
from colmeia.llm import run_sync, track_usage

__all__ = ["run_blocking", "run_bounded"]

T = TypeVar("T")


def run_blocking(run: Callable[[], Awaitable[T]], models: Iterable[object]) -> T:
    """Run ``run()`` to the end from sync code (also inside a running loop, e.g. Jupyter, via
    :func:`colmeia.llm.run_sync`), then close the connections ``models`` opened on that loop.

    Model clients pool connections per event loop; a loop that ends with them open leaks
    sockets, so each distinct model is closed before the loop goes away.
    """

    async def _run() -> T:
        try:
            return await run()
        finally:
            for model in {id(m): m for m in models}.values():
                aclose = getattr(model, "aclose", None)
                if aclose is not None:
                    await aclose()

    return run_sync(_run())


async def run_bounded(trace: Trace, deadline: float, work: Callable[[], Awaitable[None]]) -> Trace:
    """Run ``work`` under a hard ``deadline``; a passed deadline or a model error ends the trace
    with its status instead of raising. Usage and elapsed time are recorded on the trace."""
    with track_usage() as tracker:
        try:
            async with asyncio.timeout(deadline):
                await work()
        except TimeoutError:
            trace.finish(
                RunStatus.MAX_STEPS,
                error=f"the run deadline of {deadline:g}s passed",
                stop_reason="deadline",
            )
        except ModelError as exc:
            trace.finish(RunStatus.MODEL_ERROR, error=str(exc), stop_reason="model_error")
    trace.usage = tracker.usage
    trace.elapsed_s = time.perf_counter() - trace.started
    return trace
