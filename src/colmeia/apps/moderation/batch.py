"""Batch runs over many records that lose nothing and duplicate nothing, even when killed.

The results file is JSONL, one line per input record, keyed by ``key`` (see
:class:`~colmeia.apps.moderation.io.LoadedRecord`). How it stays correct:

* one writer task appends finished results as they complete; each batch of lines is written
  with one ``write`` and made durable with ``fsync`` before progress is reported;
* a run killed at any moment leaves complete lines plus at most one cut-off last line; a line
  is done only when it is complete, valid JSON ending in a newline;
* ``resume`` reads the file, drops a cut-off tail (and any repeat of a key, keeping the last),
  and — only if something had to change — rewrites it through a temporary file and
  ``os.replace``, so the file on disk is always either the old or the new version;
* ``retry_errors`` removes ``ERROR`` lines in that same atomic rewrite before they are redone:
  killed before the replace, the old file stands; after it, those records simply have no line
  yet and the next resume does them.

A second run on the same file is refused while the first holds its lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from colmeia.apps.moderation.graph import OUTCOMES, Moderator
from colmeia.apps.moderation.io import LoadedRecord, load_records
from colmeia.apps.moderation.results import (
    atomic_write,
    complete_lines,
    read_results,
    scan_results,
)
from colmeia.apps.moderation.roles import ModerationConfig, build_role_models, load_config
from colmeia.config import LLMSettings
from colmeia.errors import ConfigurationError

__all__ = [
    "BatchProgress",
    "BatchSummary",
    "error_result",
    "moderate_files",
    "read_results",
    "run_batch",
]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class BatchProgress:
    """Live figures of a run, passed to the progress callback after each durable write."""

    total: int
    skipped: int = 0
    done: int = 0
    counts: Counter[str] = field(default_factory=Counter)

    @property
    def finished(self) -> int:
        return self.skipped + self.done


@dataclass(slots=True)
class BatchSummary:
    """What a run did."""

    out: Path
    total: int
    skipped: int
    done: int
    counts: dict[str, int]
    missing: list[str]
    wall_s: float
    usage: dict[str, float]

    @property
    def complete(self) -> bool:
        """Every input record has a result line."""
        return not self.missing


def error_result(record: LoadedRecord, error: str) -> dict[str, Any]:
    """The result line of a record that could not be moderated at all."""
    return {
        "outcome": "ERROR",
        "final_answer": None,
        "revisions": 0,
        "scores": {"original": None, "rewrites": []},
        "reason": "",
        "trail": [],
        "usage": {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost": 0.0},
        "error": error,
    }


def _line(record: LoadedRecord, result: dict[str, Any]) -> bytes:
    data = {"id": record.raw_id, "key": record.key, "source": record.source, **result}
    try:
        return orjson.dumps(data) + b"\n"
    except TypeError:
        # orjson refuses lone surrogates a model might have produced; json escapes them.
        return json.dumps(data, ensure_ascii=True, default=str).encode() + b"\n"


def _prepare(out: Path, *, resume: bool, retry_errors: bool, overwrite: bool) -> dict[str, str]:
    """Make ``out`` a clean file of complete lines; return ``{key: outcome}`` already done."""
    if overwrite or not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(out, [])
        return {}
    if not (resume or retry_errors):
        raise ConfigurationError(
            f"{out} already exists: pass --resume to continue it (--retry-errors to redo its "
            "errors too) or --overwrite to start again"
        )
    data = out.read_bytes()
    kept = {
        k: (obj, line)
        for k, (obj, line) in scan_results(data, out).items()
        if not (retry_errors and obj.get("outcome") == "ERROR")
    }
    lines_on_disk = sum(1 for _ in complete_lines(data))
    if data and not data.endswith(b"\n"):
        log.warning("%s: dropping a cut-off last line (the previous run was killed)", out)
    if lines_on_disk != len(kept) or (data and not data.endswith(b"\n")):
        # Exactly one complete line per key, or the old file untouched if killed meanwhile.
        atomic_write(out, [line + b"\n" for _, line in kept.values()])
        log.info("%s: rewritten with %d result lines", out, len(kept))
    return {k: str(obj.get("outcome")) for k, (obj, _) in kept.items()}


@contextlib.contextmanager
def _lock(out: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks; one run per file is up to the user
        yield
        return
    lock_path = out.with_name(f".{out.name}.lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "wb") as fh:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConfigurationError(
                f"{out} is being written by another run; wait for it or choose another --out"
            ) from None
        yield


def _write_durably(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        n = os.write(fd, view)
        view = view[n:]
    os.fsync(fd)


async def run_batch(
    records: Sequence[LoadedRecord],
    moderator: Moderator,
    out: Path,
    *,
    concurrency: int = 16,
    resume: bool = False,
    retry_errors: bool = False,
    overwrite: bool = False,
    on_progress: Callable[[BatchProgress], None] | None = None,
) -> BatchSummary:
    """Moderate every record not yet in ``out``, appending one line per record as it finishes."""
    if concurrency < 1:
        raise ConfigurationError("concurrency must be at least 1")
    started = time.perf_counter()
    with _lock(out):
        done_before = _prepare(out, resume=resume, retry_errors=retry_errors, overwrite=overwrite)
        progress = BatchProgress(total=len(records))
        todo: list[LoadedRecord] = []
        for rec in records:
            if rec.key in done_before:
                progress.skipped += 1
                progress.counts[done_before[rec.key]] += 1
            else:
                todo.append(rec)
        if on_progress:
            on_progress(progress)
        usage: Counter[str] = Counter()
        queue: asyncio.Queue[tuple[str, bytes] | None] = asyncio.Queue()

        async def writer(fd: int) -> None:
            stop = False
            while not stop:
                batch = [await queue.get()]
                while not queue.empty():
                    batch.append(queue.get_nowait())
                if batch[-1] is None:
                    stop = True
                items = [b for b in batch if b is not None]
                if not items:
                    continue
                await asyncio.to_thread(_write_durably, fd, b"".join(line for _, line in items))
                for outcome, _ in items:
                    progress.done += 1
                    progress.counts[outcome] += 1
                if on_progress:
                    on_progress(progress)

        pending = iter(todo)

        async def worker() -> None:
            for rec in pending:  # a shared iterator: each record goes to exactly one worker
                if rec.item is None or rec.error:
                    result = error_result(rec, rec.error or "record could not be read")
                else:
                    result = await moderator.moderate(rec.item)
                u = result["usage"]
                usage.update(
                    calls=u["calls"],
                    prompt_tokens=u["prompt_tokens"],
                    completion_tokens=u["completion_tokens"],
                )
                await queue.put((result["outcome"], _line(rec, result)))

        fd = os.open(out, os.O_WRONLY | os.O_APPEND)
        try:
            writing = asyncio.create_task(writer(fd))
            try:
                async with asyncio.TaskGroup() as tg:
                    for _ in range(min(concurrency, max(len(todo), 1))):
                        tg.create_task(worker())
            finally:
                # Whatever happened to the workers, what finished gets written.
                await queue.put(None)
                await writing
        finally:
            os.close(fd)
        present = read_results(out)
    missing = [r.key for r in records if r.key not in present]
    counts: dict[str, int] = {o: progress.counts.get(o, 0) for o in OUTCOMES}
    return BatchSummary(
        out=out,
        total=len(records),
        skipped=progress.skipped,
        done=progress.done,
        counts=counts,
        missing=missing,
        wall_s=time.perf_counter() - started,
        usage=dict(usage),
    )


async def moderate_files(
    inputs: Sequence[str | Path],
    out: Path,
    *,
    config: ModerationConfig | None = None,
    llm: LLMSettings | None = None,
    concurrency: int = 16,
    resume: bool = False,
    retry_errors: bool = False,
    overwrite: bool = False,
    on_progress: Callable[[BatchProgress], None] | None = None,
) -> BatchSummary:
    """Read records from files/folders, moderate them with the configured models into ``out``."""
    config = config or load_config()
    records = load_records(inputs)
    models = build_role_models(config, llm)
    moderator = Moderator(models, threshold=config.threshold, max_rewrites=config.max_rewrites)
    try:
        return await run_batch(
            records,
            moderator,
            out,
            concurrency=concurrency,
            resume=resume,
            retry_errors=retry_errors,
            overwrite=overwrite,
            on_progress=on_progress,
        )
    finally:
        for client in {id(m.model): m.model for m in models.values()}.values():
            close = getattr(client, "aclose", None)
            if close is not None:
                await close()
