"""Durable jobs: a table every process shares, and a worker that runs them under a lease.

A job is ``queued`` → ``running`` → ``succeeded`` | ``failed`` | ``cancelled``. A worker claims
a job with one conditional UPDATE (so two processes never run the same job), renews its lease
while it works and writes progress with each renewal. When a process dies the job's lease
runs out and any worker takes it over — at once, when the dead owner was a process of this
same machine. Runners must therefore be safe to run again from the start: ingestion skips
documents already stored, moderation resumes from its results file.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Coroutine, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from colmeia.errors import ColmeiaError
from colmeia.llm.base import UsageTracker, track_usage
from colmeia.service.db import Database
from colmeia.service.public import has_internals, redacted, scrub

__all__ = [
    "TERMINAL",
    "Job",
    "JobContext",
    "JobInterrupted",
    "JobStatus",
    "JobStore",
    "Runner",
    "Worker",
]

log = logging.getLogger(__name__)

JobStatus = Literal["queued", "running", "succeeded", "partial", "failed", "cancelled"]
TERMINAL: frozenset[str] = frozenset({"succeeded", "partial", "failed", "cancelled"})


def public_error(error: BaseException | str) -> str:
    """What a tenant may read of an error: no internal addresses, exception classes or paths
    (they go to the log), and for a model failure what to do rather than the exception."""
    from colmeia.errors import ModelError

    if isinstance(error, ModelError):
        log.error("a job's model call failed: %s: %s", type(error).__name__, error)
        return "the language model did not answer; run the job again later"
    text = str(error)
    shown = scrub(text)
    if has_internals(text):
        log.error("a job failed: %s", text)
        # Judged on the words left once the addresses are out: "http://model.internal" is an
        # address that happens to be named "model", not a model failure.
        if "model" in shown.lower():
            return "the language model did not answer; run the job again later"
    return shown


def _redacted(data: Any) -> Any:
    """``data`` with every internal in its strings replaced (a job's result)."""
    return redacted(data)


def outcome(result: dict[str, Any]) -> tuple[JobStatus, str | None]:
    """A finished job's status from its result's ``items`` (``{"total": n, "failed": k}``):
    every item failed → ``failed`` (the first reason as the error), some → ``partial``, none or
    no items counted → ``succeeded``. A job whose work all failed must not say it succeeded."""
    items = result.get("items") or {}
    total, failed = int(items.get("total") or 0), int(items.get("failed") or 0)
    if total and failed >= total:
        first = str(items.get("first_error") or "")
        first = public_error(first)
        return "failed", f"all {total} items failed" + (f"; the first: {first}" if first else "")
    if failed:
        return "partial", None
    return "succeeded", None


@dataclass(slots=True)
class Job:
    """One job as stored."""

    id: str
    tenant_id: str
    kind: str
    status: JobStatus
    params: dict[str, Any]
    progress: dict[str, Any]
    result: dict[str, Any] | None
    error: str | None
    created_by: str
    created_at: float
    updated_at: float
    started_at: float | None
    finished_at: float | None
    attempts: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "status": self.status,
            "progress": self.progress,
            "result": self.result,
            "error": self.error,
            "created_by": self.created_by,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "attempts": self.attempts,
        }


def _loads(text: str | None) -> Any:
    return orjson.loads(text) if text else None


def _job(row: Mapping[str, Any]) -> Job:
    return Job(
        id=row["id"],
        tenant_id=row["tenant_id"],
        kind=row["kind"],
        status=row["status"],
        params=_loads(row["params"]) or {},
        progress=_loads(row["progress"]) or {},
        result=_loads(row["result"]),
        error=row["error"],
        created_by=row["created_by"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
        attempts=int(row["attempts"]),
    )


def _dumps(data: Any) -> str:
    return orjson.dumps(data, default=str).decode()


class JobStore:
    """The jobs table. Reads by the API are always scoped to one tenant."""

    def __init__(self, db: Database) -> None:
        self.db = db

    @staticmethod
    def new_id() -> str:
        """An id for a job whose files must be in place before it is queued."""
        return uuid.uuid4().hex

    def create(
        self,
        tenant: str,
        kind: str,
        params: Mapping[str, Any],
        *,
        created_by: str = "",
        job_id: str | None = None,
    ) -> Job:
        now = time.time()
        job_id = job_id or self.new_id()
        self.db.execute(
            "INSERT INTO jobs(id, tenant_id, kind, status, params, progress, created_by,"
            " created_at, updated_at) VALUES (?, ?, ?, 'queued', ?, '{}', ?, ?, ?)",
            (job_id, tenant, kind, _dumps(dict(params)), created_by, now, now),
        )
        found = self.get(tenant, job_id)
        assert found is not None
        return found

    def get(self, tenant: str, job_id: str) -> Job | None:
        row = self.db.one("SELECT * FROM jobs WHERE id = ? AND tenant_id = ?", (job_id, tenant))
        return _job(row) if row else None

    def recent(self, tenant: str, kind: str | None = None, limit: int = 50) -> list[Job]:
        if kind:
            rows = self.db.query(
                "SELECT * FROM jobs WHERE tenant_id = ? AND kind = ? ORDER BY created_at DESC"
                " LIMIT ?",
                (tenant, kind, limit),
            )
        else:
            rows = self.db.query(
                "SELECT * FROM jobs WHERE tenant_id = ? ORDER BY created_at DESC LIMIT ?",
                (tenant, limit),
            )
        return [_job(r) for r in rows]

    def cancel(self, tenant: str, job_id: str) -> bool:
        """Mark a job that has not ended as cancelled (its worker stops at its next renewal)."""
        now = time.time()
        return (
            self.db.execute(
                "UPDATE jobs SET status = 'cancelled', finished_at = ?, updated_at = ?"
                " WHERE id = ? AND tenant_id = ? AND status IN ('queued', 'running')",
                (now, now, job_id, tenant),
            )
            > 0
        )

    def depth(self) -> dict[tuple[str, str], int]:
        """``(kind, status) → count`` of the jobs not yet ended (the queue depth)."""
        rows = self.db.query(
            "SELECT kind, status, COUNT(*) AS n FROM jobs WHERE status IN ('queued', 'running')"
            " GROUP BY kind, status"
        )
        return {(r["kind"], r["status"]): int(r["n"]) for r in rows}

    def oldest_queued(self) -> dict[str, float]:
        """``kind → created_at`` of the oldest job still queued of each kind (its wait)."""
        rows = self.db.query(
            "SELECT kind, MIN(created_at) AS oldest FROM jobs WHERE status = 'queued' GROUP BY kind"
        )
        return {r["kind"]: float(r["oldest"]) for r in rows}

    # ---------------------------------------------------------------- worker side
    def claim(self, owner: str, lease_s: float, kinds: Sequence[str]) -> Job | None:
        """Take the oldest runnable job: queued, or running under a lease that ran out.

        A worker never takes over a job it holds itself: it is still running it, and its lease
        ran out only because renewing it was late (a busy machine). Taking it again started a
        second run of the same job beside the first (a moderation job then failed on its own
        results file's lock). A dead process's jobs are taken over by the next owner.
        """
        if not kinds:
            return None
        now = time.time()
        marks = ", ".join("?" for _ in kinds)
        runnable = (
            "(status = 'queued' OR (status = 'running' AND lease_until < ?"
            " AND COALESCE(lease_owner, '') <> ?))"
        )
        for _ in range(5):
            row = self.db.one(
                f"SELECT id FROM jobs WHERE {runnable} AND kind IN ({marks})"
                " ORDER BY created_at LIMIT 1",
                (now, owner, *kinds),
            )
            if row is None:
                return None
            took = self.db.execute(
                "UPDATE jobs SET status = 'running', lease_owner = ?, lease_until = ?,"
                " attempts = attempts + 1, started_at = COALESCE(started_at, ?), updated_at = ?"
                f" WHERE id = ? AND {runnable}",
                (owner, now + lease_s, now, now, row["id"], now, owner),
            )
            if took:
                found = self.db.one("SELECT * FROM jobs WHERE id = ?", (row["id"],))
                return _job(found) if found else None
        return None

    def renew(
        self, job_id: str, owner: str, lease_s: float, progress: Mapping[str, Any] | None
    ) -> bool:
        """Extend the lease (and store progress); ``False`` when the job is no longer ours."""
        now = time.time()
        if progress is None:
            sql = "UPDATE jobs SET lease_until = ?, updated_at = ?"
            params: tuple[Any, ...] = (now + lease_s, now)
        else:
            sql = "UPDATE jobs SET lease_until = ?, updated_at = ?, progress = ?"
            params = (now + lease_s, now, _dumps(dict(progress)))
        changed = self.db.execute(
            sql + " WHERE id = ? AND lease_owner = ? AND status = 'running'",
            (*params, job_id, owner),
        )
        return changed > 0

    def finish(
        self,
        job_id: str,
        owner: str,
        status: JobStatus,
        *,
        result: Mapping[str, Any] | None = None,
        error: str | None = None,
        progress: Mapping[str, Any] | None = None,
    ) -> bool:
        now = time.time()
        extra = ", progress = ?" if progress is not None else ""
        params: list[Any] = [
            status,
            _dumps(dict(result)) if result is not None else None,
            error,
            now,
            now,
        ]
        if progress is not None:
            params.append(_dumps(dict(progress)))
        return (
            self.db.execute(
                "UPDATE jobs SET status = ?, result = ?, error = ?, finished_at = ?,"
                f" updated_at = ?, lease_owner = NULL, lease_until = NULL{extra}"
                " WHERE id = ? AND lease_owner = ? AND status = 'running'",
                (*params, job_id, owner),
            )
            > 0
        )

    def release(self, job_id: str, owner: str) -> None:
        """Give a running job back to the queue (this process is stopping)."""
        self.db.execute(
            "UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_until = NULL,"
            " updated_at = ? WHERE id = ? AND lease_owner = ? AND status = 'running'",
            (time.time(), job_id, owner),
        )

    def reclaim_dead_local(self) -> int:
        """Requeue running jobs whose owner was a process of this machine that no longer exists."""
        host = socket.gethostname()
        freed = 0
        for row in self.db.query(
            "SELECT id, lease_owner FROM jobs WHERE status = 'running' AND lease_owner IS NOT NULL"
        ):
            owner_host, _, rest = str(row["lease_owner"]).partition("|")
            pid_text = rest.partition("|")[0]
            if owner_host != host or not pid_text.isdigit() or _alive(int(pid_text)):
                continue
            freed += self.db.execute(
                "UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_until = NULL"
                " WHERE id = ? AND lease_owner = ? AND status = 'running'",
                (row["id"], row["lease_owner"]),
            )
        return freed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class JobInterrupted(Exception):
    """Raised inside a runner's progress call once its job must stop (cancel or shutdown)."""


@dataclass(slots=True)
class JobContext:
    """What a runner gets: its job, and a way to report progress (cheap; call it often)."""

    job: Job
    latest: dict[str, Any] | None = None
    dirty: bool = False
    stop: threading.Event = field(default_factory=threading.Event)
    usage: UsageTracker = field(default_factory=UsageTracker)

    def progress(self, **figures: Any) -> None:
        """Record the job's progress; stored with the next lease renewal (thread-safe).

        Raises :class:`JobInterrupted` once the job must stop, so work running in a thread
        (which cannot be cancelled from outside) ends at its next progress report.
        """
        if self.stop.is_set():
            raise JobInterrupted(self.job.id)
        self.latest = dict(figures)
        self.dirty = True


Runner = Callable[[JobContext], Coroutine[Any, Any, dict[str, Any]]]


class Worker:
    """Runs jobs of the kinds it has runners for, a few at a time, in this process."""

    def __init__(
        self,
        jobs: JobStore,
        runners: Mapping[str, Runner],
        *,
        concurrency: int = 2,
        lease_s: float = 30.0,
        poll_s: float = 0.5,
        on_finish: Callable[[Job, str, JobContext], None] | None = None,
        around: Callable[[Job], AbstractContextManager[Any]] | None = None,
    ) -> None:
        self.jobs = jobs
        self.runners = dict(runners)
        self.concurrency = concurrency
        self.lease_s = lease_s
        self.poll_s = poll_s
        self.on_finish = on_finish
        self.around = around  # e.g. a trace span per job
        self.owner = f"{socket.gethostname()}|{os.getpid()}|{uuid.uuid4().hex[:8]}"
        self._wake = asyncio.Event()
        self._loop_task: asyncio.Task[None] | None = None
        self._running: dict[str, asyncio.Task[None]] = {}
        self._stopping = False

    def wake(self) -> None:
        """A job was just queued: look now instead of at the next poll."""
        self._wake.set()

    @property
    def busy(self) -> int:
        return len(self._running)

    async def start(self) -> None:
        freed = await asyncio.to_thread(self.jobs.reclaim_dead_local)
        if freed:
            log.info("requeued %d job(s) left running by a process that died", freed)
        self._loop_task = asyncio.create_task(self._loop(), name="colmeia-job-worker")

    async def stop(self) -> None:
        """Stop claiming; interrupt running jobs and give them back to the queue."""
        self._stopping = True
        self._wake.set()
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop_task
        tasks = list(self._running.values())
        log.info("stopping: %d running job(s) go back to the queue", len(tasks))
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _loop(self) -> None:
        while not self._stopping:
            if len(self._running) < self.concurrency:
                try:
                    job = await asyncio.to_thread(
                        self.jobs.claim, self.owner, self.lease_s, list(self.runners)
                    )
                except ColmeiaError as exc:
                    log.warning("cannot claim jobs: %s", exc)
                    job = None
                if job is not None:
                    task = asyncio.create_task(self._run(job), name=f"job-{job.id}")
                    self._running[job.id] = task
                    task.add_done_callback(self._forget(job.id))
                    continue
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.poll_s)

    def _forget(self, job_id: str) -> Callable[[asyncio.Task[None]], None]:
        def done(_task: asyncio.Task[None]) -> None:
            self._running.pop(job_id, None)

        return done

    async def _run(self, job: Job) -> None:
        ctx = JobContext(job)
        runner = self.runners[job.kind]
        log.info("job %s (%s) started, attempt %d", job.id, job.kind, job.attempts)
        around = self.around(job) if self.around is not None else contextlib.nullcontext()
        # the task copies this context: its model calls count, its spans nest in the job's
        with around, track_usage() as tracker:
            ctx.usage = tracker
            work = asyncio.create_task(runner(ctx))
        lost = False
        try:
            while not work.done():
                # progress is stored every quarter second; the lease is renewed with it
                done, _ = await asyncio.wait({work}, timeout=min(0.25, self.lease_s / 3))
                if done:
                    break
                progress = ctx.latest if ctx.dirty else None
                ctx.dirty = False
                still_ours = await asyncio.to_thread(
                    self.jobs.renew, job.id, self.owner, self.lease_s, progress
                )
                if not still_ours:
                    lost = True
                    ctx.stop.set()
                    work.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await work
                    log.info("job %s was cancelled or taken over; stopped", job.id)
                    return
            result = work.result()
        except asyncio.CancelledError:
            ctx.stop.set()
            work.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await work
            if not lost:
                await asyncio.shield(asyncio.to_thread(self.jobs.release, job.id, self.owner))
            raise
        except ColmeiaError as exc:
            log.error("job %s (%s) failed: %s: %s", job.id, job.kind, type(exc).__name__, exc)
            await self._end(job, ctx, "failed", error=public_error(exc))
            return
        except Exception:
            log.exception("job %s (%s) crashed", job.id, job.kind)
            # the exception's class and text go to the log (above), never to the job
            await self._end(
                job, ctx, "failed", error="internal error; the job id identifies it in the log"
            )
            return
        status, error = outcome(result)
        await self._end(
            job, ctx, status, result={**result, "usage": ctx.usage.usage.as_dict()}, error=error
        )

    async def _end(
        self,
        job: Job,
        ctx: JobContext,
        status: JobStatus,
        *,
        result: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> None:
        stored = await asyncio.to_thread(
            self.jobs.finish,
            job.id,
            self.owner,
            status,
            result=_redacted(result),
            error=public_error(error) if error else None,
            progress=ctx.latest,
        )
        log.info("job %s (%s) %s%s", job.id, job.kind, status, f": {error}" if error else "")
        if stored and self.on_finish is not None:
            self.on_finish(job, status, ctx)
