"""Running an agent to completion from synchronous code."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

__all__ = ["run_blocking"]

T = TypeVar("T")


def run_blocking(run: Callable[[], Awaitable[T]], models: Iterable[object]) -> T:
    """Run ``run()`` on a private event loop, then close the connections ``models`` opened on it.

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

    return asyncio.run(_run())
