"""Reading files in a child process whose memory is bounded, so one file cannot exhaust the
process that ingests (a server, say): the file that needs too much fails with a reason naming
it, the child is replaced, and the other files go on.

The bound is the child's address space (``RLIMIT_AS``): an allocation past it fails inside the
child. A reader that fails while the child's peak address space was at the bound, or with a
``MemoryError``, is reported as "too much memory"; a child that dies (killed, crashed) fails
only the file it was reading. Children come from a fork server that has the readers imported
once, so a new child costs a fork, not an interpreter start.
"""

from __future__ import annotations

import logging
import logging.handlers
import multiprocessing
import resource
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

__all__ = ["BoundedReader", "FileFailed"]

log = logging.getLogger(__name__)

T = TypeVar("T")
Opts = TypeVar("Opts")

# "__main__" too: a child then need not import the main script again (as the CLI's)
_PRELOAD = ["colmeia.rag.reader_child", "__main__", "colmeia.rag.pipeline", "colmeia.rag.ingest"]
# a reader that failed with its peak address space this close to the bound ran out of memory
_NEAR_BOUND = 0.9


@dataclass(frozen=True, slots=True)
class FileFailed:
    """A file the child could not read: the reason, ready for the ingestion report."""

    reason: str


def _limit(memory_bytes: int, logs: multiprocessing.Queue[logging.LogRecord], level: int) -> None:
    """Pool initializer: bound this child's address space, and send its log records to the
    parent, whose handlers (the CLI's ``-v`` lines, the service's JSON logs) print them."""
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    root.addHandler(logging.handlers.QueueHandler(logs))
    root.setLevel(logging.WARNING)  # libraries as the CLI leaves them
    logging.getLogger("colmeia").setLevel(level)


class _ToParentLoggers(logging.Handler):
    """Hands a child's record to the parent's logger of the same name (its levels, its
    handlers), as if the parent had logged it."""

    def emit(self, record: logging.LogRecord) -> None:
        logger = logging.getLogger(record.name)
        if logger.isEnabledFor(record.levelno):
            logger.handle(record)


def _peak_bytes() -> int:
    """This process's peak address space (``VmPeak``), 0 when unknown."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmPeak:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        return 0
    return 0


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _too_much(memory_mb: int) -> str:
    return (
        f"too much memory: reading the file needed more than {memory_mb} MB "
        "(COLMEIA_INGEST_MEMORY_MB); split it, or raise the limit if the machine has the room"
    )


def _run(
    read: Callable[[Path, Opts], T], path: Path, options: Opts, memory_mb: int
) -> T | FileFailed:
    """Runs in the child: what ``read`` made of the file, or why it could not."""
    try:
        return read(path, options)
    except Exception as exc:  # every failure (MemoryError too) becomes this file's reason
        bound = memory_mb * 1024 * 1024
        if any(isinstance(e, MemoryError) for e in _chain(exc)) or (
            _peak_bytes() >= _NEAR_BOUND * bound
        ):
            return FileFailed(_too_much(memory_mb))
        first = (str(exc).splitlines() or [""])[0]
        return FileFailed(f"the reader failed: {type(exc).__name__}: {first}")


class BoundedReader:
    """Reads one file at a time in a child bounded to ``memory_mb`` MB (use as a context
    manager; the child is stopped on exit)."""

    def __init__(self, memory_mb: int) -> None:
        if memory_mb < 64:
            raise ValueError(f"memory_mb={memory_mb}: a reader needs at least 64 MB")
        self.memory_mb = memory_mb
        self._pool: ProcessPoolExecutor | None = None
        self._listener: logging.handlers.QueueListener | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(_PRELOAD)
            logs: multiprocessing.Queue[logging.LogRecord] = context.Queue()
            self._listener = logging.handlers.QueueListener(logs, _ToParentLoggers())
            self._listener.start()
            level = logging.getLogger("colmeia").getEffectiveLevel()
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=context,
                initializer=_limit,
                initargs=(self.memory_mb * 1024 * 1024, logs, level),
            )
        return self._pool

    def read(self, read: Callable[[Path, Opts], T], path: Path, options: Opts) -> T | FileFailed:
        """``read(path, options)`` run in the bounded child (``read`` a module-level function,
        as pickle names it), or why it could not be."""
        try:
            return self._executor().submit(_run, read, path, options, self.memory_mb).result()
        except BrokenProcessPool:
            # the child died reading this file (the kernel's OOM killer, a crash in a C
            # parser); the next file gets a new child
            log.warning("the process reading %s died; starting another", path)
            self.close()
            return FileFailed(
                "the process reading the file died (killed or crashed; too much memory is "
                f"the usual cause, the limit is {self.memory_mb} MB: COLMEIA_INGEST_MEMORY_MB)"
            )

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._listener is not None:
            self._listener.stop()  # after the child is gone: its last records are printed
            self._listener = None

    def __enter__(self) -> BoundedReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
