"""Ingestion on Ray: files read, cleaned and chunked in Ray tasks, in the order given.

:func:`colmeia.rag.pipeline.ingest` with ``ray_workers`` hands each file to
:func:`~colmeia.rag.pipeline.prepare_file` in a Ray task and takes the results back in file
order, so the store sees the same documents in the same order as in a local run (the same
duplicate-id and unchanged checks, the same chunk ids). A task whose worker dies is run again
by Ray (``max_retries``); the store is written by the calling process only.
"""

from __future__ import annotations

import collections
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from colmeia.executors.ray_pool import LOOPBACK_ENV, check_address, init_local_ray

if TYPE_CHECKING:
    from colmeia.rag.pipeline import PreparedFile, PrepareOptions

__all__ = ["prepare_on_ray"]


def prepare_on_ray(
    files: Sequence[Path],
    options: PrepareOptions,
    *,
    workers: int,
    address: str | None = None,
) -> Iterator[tuple[Path, PreparedFile]]:
    """``(path, prepared)`` for every file, in order, with ``2 × workers`` tasks in flight."""
    check_address(address)
    if address in (None, "local"):
        os.environ.update(LOOPBACK_ENV)
    import ray

    from colmeia.rag.pipeline import IngestError, PreparedFile, prepare_file

    started = False
    if not ray.is_initialized():
        if address in (None, "local"):
            init_local_ray()
        else:
            ray.init(address=address, log_to_driver=False)
        started = True
    task: Any = ray.remote(num_cpus=1, max_retries=3)(prepare_file)
    try:
        window: collections.deque[tuple[Path, Any]] = collections.deque()
        pending = iter(files)
        for path in pending:
            window.append((path, task.remote(path, options)))
            if len(window) >= 2 * workers:
                break
        while window:
            path, ref = window.popleft()
            nxt = next(pending, None)
            if nxt is not None:
                window.append((nxt, task.remote(nxt, options)))
            try:
                prepared = ray.get(ref)
            except Exception as exc:  # a bug in a worker: this file fails, the rest goes on
                reason = f"failed in a Ray worker: {type(exc).__name__}: {exc}".splitlines()[0]
                prepared = PreparedFile([], [IngestError(str(path), reason)])
            yield path, prepared
    finally:
        if started:
            ray.shutdown()
