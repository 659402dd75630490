"""Batch runs over many records that lose nothing, duplicate nothing and say how they ended.

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

Every run is recorded in the file's manifest (:mod:`~colmeia.apps.moderation.manifest`); a
resume with other settings is refused before the file is touched, unless ``allow_mixed``.

A dead model server does not turn a whole batch into ``ERROR`` lines: after ``stop_after``
items in a row fail because the server cannot be used (unreachable, key refused, model not
found), the run stops taking new items, writes what finished and ends ``stopped`` with the
reason; ``retry_errors`` then picks up from there. A second run on the same file is refused
while the first holds its lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

import orjson

from colmeia.apps.moderation.graph import ENDPOINT_ERRORS, OUTCOMES, Moderator
from colmeia.apps.moderation.io import LoadedRecord, RecordStream
from colmeia.apps.moderation.manifest import (
    Manifest,
    RunRecord,
    differences,
    now,
    read_manifest,
    run_settings,
    write_manifest,
)
from colmeia.apps.moderation.policy import NO_POLICY, PolicySet, load_policy
from colmeia.apps.moderation.records import ModerationItem
from colmeia.apps.moderation.results import atomic_write, read_results
from colmeia.apps.moderation.roles import ModerationConfig, RoleModel, build_role_models
from colmeia.config import LLMSettings
from colmeia.errors import ConfigurationError

__all__ = [
    "BatchProgress",
    "BatchSummary",
    "PreparedBatch",
    "RunStatus",
    "error_result",
    "moderate_files",
    "moderator_from_config",
    "open_batch",
    "prepare_batch",
    "read_results",
    "run_batch",
]

log = logging.getLogger(__name__)

RunStatus = Literal["complete", "complete_with_errors", "stopped", "interrupted"]


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
    """What a run did, and how it ended.

    ``status``: ``complete`` (a line per record, none ``ERROR``), ``complete_with_errors``
    (a line per record, some ``ERROR``), ``stopped`` (the model server could not be used:
    ``stop_reason`` says why; records without a line remain) or ``interrupted``.
    """

    out: Path
    total: int
    skipped: int
    done: int
    counts: dict[str, int]
    missing: list[str]
    wall_s: float
    usage: dict[str, float]
    status: RunStatus = "complete"
    stop_reason: str | None = None
    run_index: int = 0

    @property
    def complete(self) -> bool:
        """Every input record has a result line."""
        return not self.missing


def error_result(record: LoadedRecord, error: str) -> dict[str, Any]:
    """The result line of a record that could not be moderated at all."""
    return {
        "outcome": "ERROR",
        "reason_code": None,
        "final_answer": None,
        "revisions": 0,
        "scores": {"original": None, "rewrites": []},
        "reason": "",
        "policy": None,
        "trail": [],
        "usage": {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost": 0.0},
        "error": error,
        "error_kind": "input",
    }


def _line(record: LoadedRecord, run: int, result: dict[str, Any]) -> bytes:
    item = record.item
    data = {
        "id": record.raw_id,
        "key": record.key,
        "source": record.source,
        "run": run,
        "locale": item.locale if item else None,
        "category": item.category if item else None,
        "intent": item.intent.name if item and item.intent else None,
        "question": item.question if item else None,
        "original_answer": item.answer if item else None,
        # The merchant's feedback (often the corrected answer) is for the people who review the
        # results; it never reaches an agent (see records.agent_view).
        "feedback": item.feedback if item else None,
        **result,
    }
    try:
        return orjson.dumps(data) + b"\n"
    except TypeError:
        # orjson refuses lone surrogates a model might have produced; json escapes them.
        return json.dumps(data, ensure_ascii=True, default=str).encode() + b"\n"


def _file_lines(out: Path) -> Iterator[tuple[int, bytes, bool]]:
    """``(number, line, complete)`` per line of a results file, read one at a time; a line is
    complete when it ends in a newline (a cut-off last line is not)."""
    with out.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            complete = raw.endswith(b"\n")
            yield number, raw[:-1] if complete else raw, complete


def _outcome(line: bytes, out: Path, number: int, *, warn: bool) -> tuple[str, str] | None:
    """``(key, outcome)`` of a result line, or None for a line that is not one."""
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError:
        try:  # written by the json fallback (escaped surrogates)
            obj = json.loads(line)
        except json.JSONDecodeError:
            if warn:
                log.warning("%s:%d: not a valid result line; ignored", out, number)
            return None
    if not isinstance(obj, dict) or not isinstance(obj.get("key"), str):
        if warn:
            log.warning("%s:%d: result line without a key; ignored", out, number)
        return None
    return obj["key"], str(obj.get("outcome"))


def _scan(out: Path, *, warn: bool = False) -> tuple[dict[str, tuple[int, str]], int, bool]:
    """What a results file holds, read a line at a time (never the whole file): ``{key: (line
    number of its last line, outcome)}``, how many complete lines it has, and whether its
    last line is cut off."""
    kept: dict[str, tuple[int, str]] = {}
    complete_count = 0
    cut = False
    for number, line, complete in _file_lines(out):
        cut = not complete
        if not complete or not line.strip():
            continue
        complete_count += 1
        found = _outcome(line, out, number, warn=warn)
        if found is not None:
            kept.pop(found[0], None)  # a repeated key keeps its last line, at its place
            kept[found[0]] = (number, found[1])
    return kept, complete_count, cut


def _prepare(out: Path, *, resume: bool, retry_errors: bool, overwrite: bool) -> dict[str, str]:
    """Make ``out`` a clean file of complete lines; return ``{key: outcome}`` already done."""
    if overwrite or not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(out, [])
        return {}
    scanned, lines_on_disk, cut = _scan(out, warn=True)
    kept = {
        k: (n, outcome)
        for k, (n, outcome) in scanned.items()
        if not (retry_errors and outcome == "ERROR")
    }
    if cut:
        log.warning("%s: dropping a cut-off last line (the previous run was killed)", out)
    if lines_on_disk != len(kept) or cut:
        # Exactly one complete line per key, or the old file untouched if killed meanwhile.
        wanted = {n for n, _ in kept.values()}
        atomic_write(
            out,
            (line + b"\n" for n, line, complete in _file_lines(out) if complete and n in wanted),
        )
        log.info("%s: rewritten with %d result lines", out, len(kept))
    return {k: outcome for k, (_, outcome) in kept.items()}


@contextlib.contextmanager
def _lock(out: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks; one run per file is up to the user
        yield
        return
    lock_path = out.with_name(f".{out.name}.lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fh: IO[bytes] = open(lock_path, "wb")  # noqa: SIM115 - held for the whole run
    try:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConfigurationError(
                f"{out} is being written by another run; wait for it or choose another --out"
            ) from None
        yield
    finally:
        fh.close()


def _write_durably(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        n = os.write(fd, view)
        view = view[n:]
    os.fsync(fd)


def _check_settings(
    out: Path, settings: dict[str, Any], *, fresh: bool, allow_mixed: bool
) -> tuple[Manifest | None, list[str]]:
    """The file's manifest (None for a new file) and how this run's settings differ from it.

    Raises before anything is written when they differ and mixing was not allowed.
    """
    if fresh:
        return None, []
    manifest = read_manifest(out)
    has_lines = out.stat().st_size > 0
    if manifest is None:
        if has_lines and not allow_mixed:
            raise ConfigurationError(
                f"{out} has no run manifest (written by an older colmeia), so its settings are "
                "unknown; pass --allow-mixed to continue it anyway, or --overwrite to start again"
            )
        return None, ["the earlier lines have no manifest: their settings are unknown"]
    diff = differences(manifest.settings, settings)
    if diff and not allow_mixed:
        raise ConfigurationError(
            f"{out} was started with other settings ({'; '.join(diff)}); rerun with the same "
            "settings, pass --allow-mixed to mix them in one file (the report will say so), or "
            "write to another --out"
        )
    return manifest, diff


class PreparedBatch:
    """A results file checked, locked and ready: :meth:`run` moderates what is missing.

    Everything that can be wrong with the settings or the file is found while preparing (see
    :func:`prepare_batch`), so a command can report it before drawing any progress.
    """

    def __init__(
        self,
        records: Sequence[LoadedRecord] | RecordStream,
        moderator: Moderator,
        out: Path,
        *,
        resume: bool = False,
        retry_errors: bool = False,
        overwrite: bool = False,
        allow_mixed: bool = False,
        inputs: Sequence[str | Path] = (),
        owned_models: Sequence[RoleModel] = (),
    ) -> None:
        # a stream is read from disk when the records are run, one at a time
        self.records = records if isinstance(records, RecordStream) else list(records)
        self.moderator = moderator
        self.out = out
        self._owned = list(owned_models)
        if out.exists() and not (resume or retry_errors or overwrite):
            raise ConfigurationError(
                f"{out} already exists: pass --resume to continue it (--retry-errors to redo its "
                "errors too) or --overwrite to start again"
            )
        self._locked = contextlib.ExitStack()
        self._locked.enter_context(_lock(out))
        try:
            settings = run_settings(moderator)
            fresh = overwrite or not out.exists()
            manifest, diff = _check_settings(out, settings, fresh=fresh, allow_mixed=allow_mixed)
            done_before = _prepare(
                out, resume=resume, retry_errors=retry_errors, overwrite=overwrite
            )
        except BaseException:
            self._locked.close()
            raise
        started = now()
        if manifest is None:
            manifest = Manifest(
                results=out.name,
                created_at=started,
                updated_at=started,
                settings=settings,
                mixed=bool(diff),
            )
        self.run_index = len(manifest.runs)
        manifest.runs.append(
            RunRecord(
                index=self.run_index,
                started_at=started,
                resume=resume,
                retry_errors=retry_errors,
                mixed=bool(diff),
                differences=diff,
                # a run records its settings when any differ (an endpoint too, never refused)
                settings=settings if settings != manifest.settings else {},
                inputs=[str(p) for p in inputs],
                records=len(self.records),
            )
        )
        manifest.mixed = manifest.mixed or bool(diff)
        self.manifest = manifest
        write_manifest(out, manifest)
        self.progress = BatchProgress(total=len(self.records))
        self._done_before = done_before
        self.todo_count = 0
        for key in self._keys():
            if key in done_before:
                self.progress.skipped += 1
                self.progress.counts[done_before[key]] += 1
            else:
                self.todo_count += 1

    def _keys(self) -> list[str]:
        if isinstance(self.records, RecordStream):
            return self.records.keys()
        return [r.key for r in self.records]

    def _pending(self) -> Iterator[LoadedRecord]:
        """The records without a line yet, as they are read."""
        return (rec for rec in self.records if rec.key not in self._done_before)

    @property
    def todo(self) -> list[LoadedRecord]:
        """The records this run will moderate (read them all: for tests and small batches)."""
        return list(self._pending())

    def close(self) -> None:
        """Release the lock on the results file (and the documents' store, when owned)."""
        self._locked.close()
        if self._owned and self.moderator.documents is not None:
            self.moderator.documents.close()

    def __enter__(self) -> PreparedBatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def run(
        self,
        *,
        concurrency: int = 16,
        stop_after: int = 5,
        on_progress: Callable[[BatchProgress], None] | None = None,
        moderate: Callable[[ModerationItem], Awaitable[dict[str, Any]]] | None = None,
        engine: dict[str, Any] | None = None,
    ) -> BatchSummary:
        """Moderate every record not yet in the file, appending one line per record.

        ``stop_after``: stop after this many items in a row failed because the model server
        cannot be used (0: never stop). ``moderate``: the function run per record (default:
        this batch's moderator in this process; :mod:`colmeia.apps.moderation.distributed`
        passes one that runs it in Ray workers); ``engine`` is recorded in the run's manifest.
        Whoever runs the function, this process alone writes the results file.
        """
        moderate_one = moderate or self.moderator.moderate
        if engine:
            self.manifest.last.engine = engine  # type: ignore[attr-defined]  # extra field
        if concurrency < 1:
            raise ConfigurationError("concurrency must be at least 1")
        if stop_after < 0:
            raise ConfigurationError("stop_after must be 0 (never stop) or more")
        started = time.perf_counter()
        status: str = "failed"
        usage: Counter[str] = Counter()
        stop = asyncio.Event()
        streak = 0
        stop_reason: str | None = None
        progress = self.progress
        if on_progress:
            on_progress(progress)
        queue: asyncio.Queue[tuple[str, bytes] | None] = asyncio.Queue()

        async def writer(fd: int) -> None:
            done = False
            while not done:
                batch = [await queue.get()]
                while not queue.empty():
                    batch.append(queue.get_nowait())
                done = batch[-1] is None
                items = [b for b in batch if b is not None]
                if not items:
                    continue
                await asyncio.to_thread(_write_durably, fd, b"".join(line for _, line in items))
                for outcome, _ in items:
                    progress.done += 1
                    progress.counts[outcome] += 1
                if on_progress:
                    on_progress(progress)

        pending = self._pending()

        async def worker() -> None:
            nonlocal streak, stop_reason
            while not stop.is_set():
                rec = next(pending, None)  # a shared iterator: each record goes to one worker
                if rec is None:
                    return
                if rec.item is None or rec.error:
                    result = error_result(rec, rec.error or "record could not be read")
                else:
                    result = await moderate_one(rec.item)
                    if result.get("error_kind") in ENDPOINT_ERRORS:
                        streak += 1
                        if stop_after and streak >= stop_after and not stop.is_set():
                            stop_reason = (
                                f"stopped after {streak} items in a row failed because the model "
                                f"server cannot be used — {result['error']}"
                            )
                            log.error("%s", stop_reason)
                            stop.set()
                    else:
                        streak = 0
                usage.update(
                    {k: v for k, v in result["usage"].items() if isinstance(v, int | float)}
                )
                await queue.put((result["outcome"], _line(rec, self.run_index, result)))

        fd = os.open(self.out, os.O_WRONLY | os.O_APPEND)
        try:
            writing = asyncio.create_task(writer(fd))
            try:
                async with asyncio.TaskGroup() as tg:
                    for _ in range(min(concurrency, max(self.todo_count, 1))):
                        tg.create_task(worker())
                status = "complete"
            except (asyncio.CancelledError, KeyboardInterrupt):
                status = "interrupted"  # Ctrl-C: what finished is written below
                raise
            finally:
                # Whatever happened to the workers, what finished gets written.
                await queue.put(None)
                await writing
                os.close(fd)
                present = {k: outcome for k, (_, outcome) in _scan(self.out)[0].items()}
                missing = [k for k in self._keys() if k not in present]
                failed = any(outcome == "ERROR" for outcome in present.values())
                if stop.is_set() and missing:
                    status = "stopped"
                elif status == "complete" and failed:
                    status = "complete_with_errors"
                self._finish(status, stop_reason, present, usage, time.perf_counter() - started)
        finally:
            await self._close_models()
        assert status in ("complete", "complete_with_errors", "stopped")
        return BatchSummary(
            out=self.out,
            total=len(self.records),
            skipped=progress.skipped,
            done=progress.done,
            counts={o: progress.counts.get(o, 0) for o in OUTCOMES},
            missing=missing,
            wall_s=time.perf_counter() - started,
            usage=dict(usage),
            status=status,  # type: ignore[arg-type]
            stop_reason=stop_reason,
            run_index=self.run_index,
        )

    def _finish(
        self,
        status: str,
        stop_reason: str | None,
        present: dict[str, str],
        usage: Counter[str],
        wall_s: float,
    ) -> None:
        manifest = self.manifest
        run = manifest.last
        run.ended_at = now()
        run.status = status  # type: ignore[assignment]
        run.stop_reason = stop_reason
        run.skipped = self.progress.skipped
        run.written = self.progress.done
        run.counts = {o: self.progress.counts.get(o, 0) for o in OUTCOMES}
        run.usage = {k: round(float(v), 8) for k, v in usage.items()}
        run.simulated_answers = int(usage.get("simulated", 0))
        run.wall_s = round(wall_s, 3)
        run.items_per_min = round(run.written / wall_s * 60, 1) if wall_s > 0 else None
        manifest.simulated = manifest.simulated or run.simulated_answers > 0
        manifest.counts = dict(Counter(present.values()))
        write_manifest(self.out, manifest)

    async def _close_models(self) -> None:
        for client in {id(m.model): m.model for m in self._owned}.values():
            close = getattr(client, "aclose", None)
            if close is not None:
                await close()


def prepare_batch(
    records: Sequence[LoadedRecord] | RecordStream,
    moderator: Moderator,
    out: Path,
    *,
    resume: bool = False,
    retry_errors: bool = False,
    overwrite: bool = False,
    allow_mixed: bool = False,
    inputs: Sequence[str | Path] = (),
) -> PreparedBatch:
    """Check and lock ``out`` for a run of ``moderator`` over ``records`` (see the module doc)."""
    return PreparedBatch(
        records,
        moderator,
        out,
        resume=resume,
        retry_errors=retry_errors,
        overwrite=overwrite,
        allow_mixed=allow_mixed,
        inputs=inputs,
    )


async def run_batch(
    records: Sequence[LoadedRecord] | RecordStream,
    moderator: Moderator,
    out: Path,
    *,
    concurrency: int = 16,
    resume: bool = False,
    retry_errors: bool = False,
    overwrite: bool = False,
    allow_mixed: bool = False,
    stop_after: int = 5,
    on_progress: Callable[[BatchProgress], None] | None = None,
) -> BatchSummary:
    """Moderate every record not yet in ``out``, appending one line per record as it finishes."""
    with prepare_batch(
        records,
        moderator,
        out,
        resume=resume,
        retry_errors=retry_errors,
        overwrite=overwrite,
        allow_mixed=allow_mixed,
    ) as batch:
        return await batch.run(
            concurrency=concurrency, stop_after=stop_after, on_progress=on_progress
        )


def moderator_from_config(config: ModerationConfig, llm: LLMSettings | None = None) -> Moderator:
    """A moderator with the configured models per role, policy and audit language."""
    policy: PolicySet | None = None
    if config.policy is not None:
        none = str(config.policy) == NO_POLICY and not config.policy.exists()
        policy = PolicySet.none() if none else load_policy(config.policy)
    documents = None
    if config.context_collection:
        from colmeia.apps.moderation.documents import ProductDocuments
        from colmeia.config import get_settings

        documents = ProductDocuments.open(
            config.context_store or get_settings().store_url(),
            config.context_collection,
            passages=config.context_passages,
        )
    return Moderator(
        build_role_models(config, llm),
        threshold=config.threshold,
        max_rewrites=config.max_rewrites,
        policy=policy,
        audit_language=config.audit_language,
        documents=documents,
    )


def open_batch(
    inputs: Sequence[str | Path],
    out: Path,
    *,
    config: ModerationConfig,
    llm: LLMSettings | None = None,
    resume: bool = False,
    retry_errors: bool = False,
    overwrite: bool = False,
    allow_mixed: bool = False,
) -> PreparedBatch:
    """Index the records, build the configured models and check the results file; nothing is
    sent. The records stay on disk: the run reads them one at a time (see
    :class:`~colmeia.apps.moderation.io.RecordStream`).

    The returned batch owns its model clients: :meth:`PreparedBatch.run` closes them.
    """
    moderator = moderator_from_config(config, llm)
    records = RecordStream(inputs)
    batch = PreparedBatch(
        records,
        moderator,
        out,
        resume=resume,
        retry_errors=retry_errors,
        overwrite=overwrite,
        allow_mixed=allow_mixed,
        inputs=inputs,
        owned_models=list(moderator.models.values()),
    )
    return batch


async def moderate_files(
    inputs: Sequence[str | Path],
    out: Path,
    *,
    config: ModerationConfig,
    llm: LLMSettings | None = None,
    concurrency: int = 16,
    resume: bool = False,
    retry_errors: bool = False,
    overwrite: bool = False,
    allow_mixed: bool = False,
    stop_after: int = 5,
    on_progress: Callable[[BatchProgress], None] | None = None,
) -> BatchSummary:
    """Read records from files/folders and moderate them into ``out`` in one call
    (:func:`open_batch` then :meth:`PreparedBatch.run`)."""
    # Indexing reads every record once: off the event loop, which in the service also answers
    # requests (a 200 MB batch takes seconds to read).
    prepared = await asyncio.to_thread(
        open_batch,
        inputs,
        out,
        config=config,
        llm=llm,
        resume=resume or retry_errors,
        retry_errors=retry_errors,
        overwrite=overwrite,
        allow_mixed=allow_mixed,
    )
    with prepared as batch:
        return await batch.run(
            concurrency=concurrency, stop_after=stop_after, on_progress=on_progress
        )
