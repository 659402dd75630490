"""Ordered map over Ray tasks: a function run per item elsewhere, results taken back in order.

Used by ``ingest --engine ray``: each file is read, cleaned, chunked (and embedded) in a Ray task
while the caller, which keeps the store, takes the results back in the order of the files, so
the store sees what a local run would show it. A task whose worker dies is run again by Ray
(``max_retries``); an exception raised by the function comes back as that item's result, so one
bad item never stops the rest.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from colmeia.executors.ray_pool import check_address, connect_ray

__all__ = ["ray_map_ordered"]

T = TypeVar("T")
R = TypeVar("R")


def ray_map_ordered(
    fn: Callable[..., R],
    items: Sequence[T],
    *args: Any,
    workers: int,
    address: str | None = None,
) -> Iterator[tuple[T, R | Exception]]:
    """``(item, fn(item, *args))`` for every item, in order, ``2 × workers`` tasks in flight.

    ``address``: ``None``/``local`` start a one-machine Ray on 127.0.0.1 for the call (stopped
    after), ``auto``/``HOST:PORT``/``ray://…`` join a cluster; an initialised Ray is reused.
    An exception raised by ``fn`` (or a task Ray gave up on) is yielded in place of the result.
    """
    check_address(address)
    ray, started = connect_ray(address)
    task: Any = ray.remote(num_cpus=1, max_retries=3)(fn)
    try:
        window: collections.deque[tuple[T, Any]] = collections.deque()
        pending = iter(items)
        for item in pending:
            window.append((item, task.remote(item, *args)))
            if len(window) >= 2 * workers:
                break
        while window:
            item, ref = window.popleft()
            # a None item is an item: only the iterator's end stops the refill
            for nxt in pending:
                window.append((nxt, task.remote(nxt, *args)))
                break
            try:
                result: R | Exception = ray.get(ref)
            except Exception as exc:  # the function raised, or Ray gave up on the task
                result = exc
            yield item, result
    finally:
        if started:
            ray.shutdown()
