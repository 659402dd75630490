"""The job worker on a real jobs table (SQLite), without a server: what a job's record says once
its runner succeeded, failed, crashed or was cancelled, and that a stopping worker gives its
jobs back. Runners here are small coroutines, as the service's runners are.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from colmeia.errors import InputError
from colmeia.llm.base import current_tracker
from colmeia.service.db import Database, open_database
from colmeia.service.jobs import Job, JobContext, JobInterrupted, JobStore, Runner, Worker
from colmeia.usage import Usage


@pytest.fixture
def jobs(tmp_path: Path) -> Iterator[JobStore]:
    database = open_database(f"sqlite:///{tmp_path / 'service.db'}")
    yield JobStore(database)
    database.close()


async def _until(check: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the worker did not get there in time"
        await asyncio.sleep(0.02)


def _status(jobs: JobStore, job: Job) -> str:
    found = jobs.get(job.tenant_id, job.id)
    assert found is not None
    return found.status


def _run(jobs: JobStore, runners: dict[str, Runner], body: Any, **options: Any) -> Worker:
    """Start a worker with ``runners``, run ``body(worker)``, stop the worker."""
    worker = Worker(jobs, runners, **{"poll_s": 0.05, "lease_s": 3.0, **options})

    async def main() -> None:
        await worker.start()
        try:
            await body(worker)
        finally:
            await worker.stop()

    asyncio.run(main())
    return worker


def test_a_successful_job_stores_its_result_usage_and_last_progress(jobs: JobStore) -> None:
    finished: list[tuple[str, str, dict[str, Any] | None]] = []
    entered: list[str] = []

    @contextlib.contextmanager
    def around(job: Job) -> Iterator[None]:
        entered.append(job.id)
        yield

    async def ingest(ctx: JobContext) -> dict[str, Any]:
        for tracker in current_tracker():
            tracker.record("sim", Usage(prompt_tokens=7, completion_tokens=3, calls=1))
        ctx.progress(done=1, total=2)
        # the progress is stored with the next lease renewal, while the job still runs
        await _until(lambda: jobs.get("acme", ctx.job.id).progress == {"done": 1, "total": 2})  # type: ignore[union-attr]
        ctx.progress(done=2, total=2)
        return {"added": 2, "source": "http://10.0.0.7:9000/lei.txt"}

    job = jobs.create("acme", "ingest", {"files": ["lei.txt"]})

    async def body(worker: Worker) -> None:
        await _until(lambda: _status(jobs, job) == "succeeded")

    _run(
        jobs,
        {"ingest": ingest},
        body,
        lease_s=0.3,
        on_finish=lambda j, status, ctx: finished.append((j.id, status, ctx.latest)),
        around=around,
    )
    done = jobs.get("acme", job.id)
    assert done is not None and done.error is None and done.attempts == 1
    assert done.result is not None
    assert done.result["added"] == 2
    assert done.result["source"] == "(an internal address)"  # never shown to the tenant
    assert done.result["usage"]["prompt_tokens"] == 7
    assert done.result["usage"]["completion_tokens"] == 3
    assert done.progress == {"done": 2, "total": 2}
    assert finished == [(job.id, "succeeded", {"done": 2, "total": 2})]
    assert entered == [job.id]


def test_a_job_whose_items_all_failed_is_failed_and_some_is_partial(jobs: JobStore) -> None:
    async def moderate(ctx: JobContext) -> dict[str, Any]:
        failed = ctx.job.params["failed"]
        items = {"total": 2, "failed": failed, "first_error": "no answer from 10.0.0.5:8000"}
        return {"items": items}

    all_failed = jobs.create("acme", "moderation", {"failed": 2})
    one_failed = jobs.create("acme", "moderation", {"failed": 1})

    async def body(worker: Worker) -> None:
        await _until(lambda: _status(jobs, all_failed) in ("failed", "succeeded"))
        await _until(lambda: _status(jobs, one_failed) in ("partial", "succeeded"))

    _run(jobs, {"moderation": moderate}, body)
    failed = jobs.get("acme", all_failed.id)
    assert failed is not None and failed.status == "failed"
    assert failed.error == "all 2 items failed; the first: no answer from (an internal address)"
    partial = jobs.get("acme", one_failed.id)
    assert partial is not None and (partial.status, partial.error) == ("partial", None)


def test_a_runner_that_raises_a_colmeia_error_fails_with_its_message(jobs: JobStore) -> None:
    ends: list[str] = []

    async def ingest(ctx: JobContext) -> dict[str, Any]:
        ctx.progress(done=0)
        raise InputError("lei.pdf could not be read from http://10.0.0.9/files")

    job = jobs.create("acme", "ingest", {})

    async def body(worker: Worker) -> None:
        await _until(lambda: _status(jobs, job) != "queued" and _status(jobs, job) != "running")

    _run(jobs, {"ingest": ingest}, body, on_finish=lambda j, s, c: ends.append(s))
    done = jobs.get("acme", job.id)
    assert done is not None and done.status == "failed"
    assert done.error == "lei.pdf could not be read from (an internal address)"
    assert done.result is None and done.progress == {"done": 0}
    assert ends == ["failed"]


def test_a_runner_that_crashes_fails_without_showing_the_exception(jobs: JobStore) -> None:
    async def ingest(ctx: JobContext) -> dict[str, Any]:
        raise KeyError("secret internals")

    job = jobs.create("acme", "ingest", {})

    async def body(worker: Worker) -> None:
        await _until(lambda: _status(jobs, job) == "failed")

    _run(jobs, {"ingest": ingest}, body)
    done = jobs.get("acme", job.id)
    assert done is not None
    assert done.error == "internal error; the job id identifies it in the log"


def test_a_cancelled_job_stops_at_its_next_progress_report_and_stays_cancelled(
    jobs: JobStore,
) -> None:
    reports: list[str] = []
    ends: list[str] = []

    async def ingest(ctx: JobContext) -> dict[str, Any]:
        def work() -> None:
            try:
                while True:
                    ctx.progress(done=len(reports))
                    reports.append("ok")
                    time.sleep(0.02)
            except JobInterrupted:
                reports.append("interrupted")

        await asyncio.to_thread(work)
        return {"added": 1}

    job = jobs.create("acme", "ingest", {})

    async def body(worker: Worker) -> None:
        await _until(lambda: len(reports) >= 3)
        assert worker.busy == 1
        assert jobs.cancel("acme", job.id)
        await _until(lambda: "interrupted" in reports)
        await _until(lambda: worker.busy == 0)

    _run(jobs, {"ingest": ingest}, body, lease_s=0.3, on_finish=lambda j, s, c: ends.append(s))
    assert _status(jobs, job) == "cancelled"
    assert ends == []  # a job it no longer holds is not reported as finished by it


def test_a_stopping_worker_gives_its_running_jobs_back_to_the_queue(jobs: JobStore) -> None:
    seen: list[str] = []

    async def ingest(ctx: JobContext) -> dict[str, Any]:
        seen.append("started")
        await asyncio.sleep(60)
        return {}

    job = jobs.create("acme", "ingest", {})

    async def body(worker: Worker) -> None:
        await _until(lambda: seen == ["started"])

    worker = _run(jobs, {"ingest": ingest}, body)
    back = jobs.get("acme", job.id)
    assert back is not None and back.status == "queued" and back.attempts == 1
    assert worker.busy == 0
    # anyone may take it now, the worker that stopped too
    again = jobs.claim(worker.owner, 30, ["ingest"])
    assert again is not None and again.id == job.id


async def _in_pairs(running: list[Any]) -> None:
    """Hold a job until a second one runs beside it (or 2 s pass), then a little longer: a
    worker that ran more at once would show it, however slow the machine."""
    deadline = time.monotonic() + 2
    while len(running) < 2 and time.monotonic() < deadline:  # noqa: ASYNC110 - polls a list
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)


def test_a_worker_runs_no_more_jobs_at_once_than_its_concurrency(jobs: JobStore) -> None:
    running: list[int] = []
    peak: list[int] = []

    async def ingest(ctx: JobContext) -> dict[str, Any]:
        running.append(1)
        peak.append(len(running))
        await _in_pairs(running)
        running.pop()
        return {}

    created = [jobs.create("acme", "ingest", {}) for _ in range(4)]

    async def body(worker: Worker) -> None:
        await _until(lambda: all(_status(jobs, j) == "succeeded" for j in created))

    _run(jobs, {"ingest": ingest}, body, concurrency=2)
    assert max(peak) == 2 and len(peak) == 4


def test_a_worker_runs_only_the_kinds_it_has_runners_for(jobs: JobStore) -> None:
    async def ingest(ctx: JobContext) -> dict[str, Any]:
        return {}

    mine = jobs.create("acme", "ingest", {})
    other = jobs.create("acme", "review", {})

    async def body(worker: Worker) -> None:
        await _until(lambda: _status(jobs, mine) == "succeeded")
        await asyncio.sleep(0.2)

    _run(jobs, {"ingest": ingest}, body)
    assert _status(jobs, other) == "queued"


def test_a_job_queued_while_idle_starts_at_once_when_the_worker_is_woken(jobs: JobStore) -> None:
    async def ingest(ctx: JobContext) -> dict[str, Any]:
        return {}

    async def body(worker: Worker) -> None:
        await asyncio.sleep(0.2)  # idle: waiting for its next poll, a minute away
        job = jobs.create("acme", "ingest", {})
        worker.wake()
        await _until(lambda: _status(jobs, job) == "succeeded", timeout=10)

    _run(jobs, {"ingest": ingest}, body, poll_s=60)


def test_on_start_a_worker_takes_over_the_jobs_of_a_dead_local_process(jobs: JobStore) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    job = jobs.create("acme", "ingest", {})
    assert jobs.claim(f"{socket.gethostname()}|{done.stdout.strip()}|x", 3600, ["ingest"])

    async def ingest(ctx: JobContext) -> dict[str, Any]:
        return {"resumed": True}

    async def body(worker: Worker) -> None:
        await _until(lambda: _status(jobs, job) == "succeeded")

    _run(jobs, {"ingest": ingest}, body)
    resumed = jobs.get("acme", job.id)
    assert resumed is not None and resumed.attempts == 2 and resumed.result is not None
    assert resumed.result["resumed"] is True


def test_a_job_taken_over_by_another_worker_is_stopped_here_and_not_finished_twice(
    jobs: JobStore, tmp_path: Path
) -> None:
    stopped: list[str] = []

    async def ingest(ctx: JobContext) -> dict[str, Any]:
        try:
            await asyncio.Event().wait()  # works until stopped
        except asyncio.CancelledError:
            stopped.append("cancelled")
            raise

    job = jobs.create("acme", "ingest", {})

    async def body(worker: Worker) -> None:
        await _until(lambda: _status(jobs, job) == "running")
        other = Database(jobs.db.url)
        try:
            # the lease of a worker that stalled runs out; another process takes the job
            other.execute("UPDATE jobs SET lease_until = 0 WHERE id = ?", (job.id,))
            taken = JobStore(other).claim("other-process", 30, ["ingest"])
            assert taken is not None
        finally:
            other.close()
        await _until(lambda: stopped == ["cancelled"])
        await _until(lambda: worker.busy == 0)

    _run(jobs, {"ingest": ingest}, body, lease_s=0.3)
    row = jobs.db.one("SELECT status, lease_owner FROM jobs WHERE id = ?", (job.id,))
    assert row == {"status": "running", "lease_owner": "other-process"}


# -- what an operator reads in the log ---------------------------------------------------------


def _log(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    return [
        (r.levelname, r.getMessage()) for r in caplog.records if r.name == "colmeia.service.jobs"
    ]


def test_the_log_tells_each_jobs_start_and_end(
    jobs: JobStore, caplog: pytest.LogCaptureFixture
) -> None:
    async def ingest(ctx: JobContext) -> dict[str, Any]:
        if ctx.job.params.get("fail") == "input":
            raise InputError("lei.pdf is empty")
        if ctx.job.params.get("fail") == "crash":
            raise KeyError("x")
        return {"items": {"total": 2, "failed": 1}} if ctx.job.params.get("partial") else {}

    ok = jobs.create("acme", "ingest", {})
    partial = jobs.create("acme", "ingest", {"partial": True})
    bad = jobs.create("acme", "ingest", {"fail": "input"})
    crash = jobs.create("acme", "ingest", {"fail": "crash"})

    async def body(worker: Worker) -> None:
        await _until(
            lambda: all(
                _status(jobs, j) not in ("queued", "running") for j in (ok, partial, bad, crash)
            )
        )

    with caplog.at_level(logging.INFO, logger="colmeia.service.jobs"):
        _run(jobs, {"ingest": ingest}, body, concurrency=1)
    lines = _log(caplog)
    assert ("INFO", f"job {ok.id} (ingest) started, attempt 1") in lines
    assert ("INFO", f"job {ok.id} (ingest) succeeded") in lines
    assert ("INFO", f"job {partial.id} (ingest) partial") in lines
    assert ("ERROR", f"job {bad.id} (ingest) failed: InputError: lei.pdf is empty") in lines
    assert ("INFO", f"job {bad.id} (ingest) failed: lei.pdf is empty") in lines
    assert ("ERROR", f"job {crash.id} (ingest) crashed") in lines
    crashed = next(r for r in caplog.records if r.getMessage().endswith("crashed"))
    assert crashed.exc_info is not None and crashed.exc_info[0] is KeyError
    # the class is in the ERROR line's traceback above, not in the job's public error
    assert (
        "INFO",
        f"job {crash.id} (ingest) failed: internal error; the job id identifies it in the log",
    ) in lines
    assert ("INFO", "stopping: 0 running job(s) go back to the queue") in lines


def test_the_log_tells_what_a_restart_took_over_and_what_a_stop_gave_back(
    jobs: JobStore, caplog: pytest.LogCaptureFixture
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    orphan = jobs.create("acme", "ingest", {})
    assert jobs.claim(f"{socket.gethostname()}|{done.stdout.strip()}|x", 3600, ["ingest"])
    started: list[str] = []

    async def ingest(ctx: JobContext) -> dict[str, Any]:
        started.append(ctx.job.id)
        await asyncio.Event().wait()
        return {}

    async def body(worker: Worker) -> None:
        await _until(lambda: started == [orphan.id])

    with caplog.at_level(logging.INFO, logger="colmeia.service.jobs"):
        _run(jobs, {"ingest": ingest}, body)
    lines = _log(caplog)
    assert ("INFO", "requeued 1 job(s) left running by a process that died") in lines
    assert ("INFO", "stopping: 1 running job(s) go back to the queue") in lines
    assert ("INFO", f"job {orphan.id} (ingest) started, attempt 2") in lines


def test_the_log_tells_a_job_was_stopped_when_taken_from_this_worker(
    jobs: JobStore, caplog: pytest.LogCaptureFixture
) -> None:
    reports: list[str] = []

    async def ingest(ctx: JobContext) -> dict[str, Any]:
        def work() -> None:
            try:
                while True:
                    ctx.progress(done=1)
                    time.sleep(0.02)
            except JobInterrupted as stop:
                reports.append(str(stop))

        await asyncio.to_thread(work)
        return {}

    job = jobs.create("acme", "ingest", {})

    async def body(worker: Worker) -> None:
        await _until(lambda: _status(jobs, job) == "running")
        jobs.cancel("acme", job.id)
        await _until(lambda: worker.busy == 0)

    with caplog.at_level(logging.INFO, logger="colmeia.service.jobs"):
        _run(jobs, {"ingest": ingest}, body, lease_s=0.3)
    assert ("INFO", f"job {job.id} was cancelled or taken over; stopped") in _log(caplog)
    assert reports == [job.id]  # the interruption names the job


def test_a_job_cancelled_as_it_finishes_is_not_reported_finished(jobs: JobStore) -> None:
    ends: list[str] = []

    async def ingest(ctx: JobContext) -> dict[str, Any]:
        jobs.cancel("acme", ctx.job.id)  # the tenant cancels just as the work ends
        return {"added": 1}

    job = jobs.create("acme", "ingest", {})

    async def body(worker: Worker) -> None:
        await _until(lambda: worker.busy == 0 and _status(jobs, job) == "cancelled")
        await asyncio.sleep(0.1)

    _run(jobs, {"ingest": ingest}, body, on_finish=lambda j, s, c: ends.append(s))
    done = jobs.get("acme", job.id)
    assert done is not None and (done.status, done.result) == ("cancelled", None)
    assert ends == []


def test_a_worker_names_itself_and_its_tasks(jobs: JobStore) -> None:
    names: list[str] = []

    async def ingest(ctx: JobContext) -> dict[str, Any]:
        names.extend(t.get_name() for t in asyncio.all_tasks())
        return {}

    job = jobs.create("acme", "ingest", {})

    async def body(worker: Worker) -> None:
        await _until(lambda: _status(jobs, job) == "succeeded")

    worker = _run(jobs, {"ingest": ingest}, body)
    assert "colmeia-job-worker" in names and f"job-{job.id}" in names
    host, pid, tag = worker.owner.split("|")
    assert (host, pid) == (socket.gethostname(), str(os.getpid()))
    assert len(tag) == 8 and int(tag, 16) >= 0


def test_a_default_worker_runs_two_jobs_at_once_under_a_30_s_lease(jobs: JobStore) -> None:
    running: list[str] = []
    peak: list[int] = []

    async def ingest(ctx: JobContext) -> dict[str, Any]:
        running.append(ctx.job.id)
        peak.append(len(running))
        await _in_pairs(running)
        running.remove(ctx.job.id)
        return {}

    created = [jobs.create("acme", "ingest", {}) for _ in range(4)]
    worker = Worker(jobs, {"ingest": ingest})
    leases: list[float] = []

    async def main() -> None:
        await worker.start()
        try:
            await _until(lambda: len(peak) >= 2)
            row = jobs.db.one("SELECT lease_until FROM jobs WHERE id = ?", (created[0].id,))
            assert row is not None
            leases.append(row["lease_until"] - time.time())
            await _until(lambda: all(_status(jobs, j) == "succeeded" for j in created))
        finally:
            await worker.stop()

    asyncio.run(main())
    assert max(peak) == 2
    assert 25 < leases[0] <= 30


def test_stopping_a_worker_that_never_started_is_harmless(jobs: JobStore) -> None:
    async def ingest(ctx: JobContext) -> dict[str, Any]:
        return {}

    worker = Worker(jobs, {"ingest": ingest})
    asyncio.run(worker.stop())
    assert worker.busy == 0


def test_a_result_never_shows_an_internal_address_however_deep(jobs: JobStore) -> None:
    async def ingest(ctx: JobContext) -> dict[str, Any]:
        return {
            "files": ["lei.txt", "http://10.0.0.3:9000/a.pdf"],
            "detail": {"from": "192.168.1.4:5432", "n": 3, "ok": True, "none": None},
        }

    job = jobs.create("acme", "ingest", {})

    async def body(worker: Worker) -> None:
        await _until(lambda: _status(jobs, job) == "succeeded")

    _run(jobs, {"ingest": ingest}, body)
    done = jobs.get("acme", job.id)
    assert done is not None and done.result is not None
    assert done.result["files"] == ["lei.txt", "(an internal address)"]
    assert done.result["detail"] == {
        "from": "(an internal address)",
        "n": 3,
        "ok": True,
        "none": None,
    }


def test_a_worker_that_cannot_read_the_jobs_table_says_so_and_keeps_trying(
    jobs: JobStore, caplog: pytest.LogCaptureFixture
) -> None:
    async def ingest(ctx: JobContext) -> dict[str, Any]:
        return {}

    async def body(worker: Worker) -> None:
        # the table is briefly away (a migration, another process); the worker must not die
        jobs.db.execute("ALTER TABLE jobs RENAME TO jobs_away")
        await _until(lambda: any("cannot claim jobs" in m for m in caplog.messages))
        jobs.db.execute("ALTER TABLE jobs_away RENAME TO jobs")
        job = jobs.create("acme", "ingest", {})
        worker.wake()
        await _until(lambda: _status(jobs, job) == "succeeded")

    with caplog.at_level(logging.WARNING, logger="colmeia.service.jobs"):
        _run(jobs, {"ingest": ingest}, body)
    warning = next(r for r in caplog.records if "cannot claim jobs" in r.getMessage())
    assert warning.levelname == "WARNING"
    assert warning.getMessage().startswith("cannot claim jobs: service database ")
    assert "no such table: jobs" in warning.getMessage()


def _stubborn(started: list[str]) -> Runner:
    """A runner whose clean-up fails when it is stopped (it raises instead of ending quietly)."""

    async def ingest(ctx: JobContext) -> dict[str, Any]:
        started.append(ctx.job.id)
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            raise RuntimeError("clean-up failed") from None
        return {}

    return ingest


def test_a_stopping_worker_gives_a_job_back_even_if_its_runner_fails_to_stop_cleanly(
    jobs: JobStore,
) -> None:
    started: list[str] = []
    job = jobs.create("acme", "ingest", {})
    worker = Worker(jobs, {"ingest": _stubborn(started)}, poll_s=0.05)
    seen: list[str] = []

    async def main() -> None:
        await worker.start()
        await _until(lambda: started == [job.id])
        await worker.stop()
        seen.append(_status(jobs, job))  # back in the queue by the time stop() returns

    asyncio.run(main())
    assert seen == ["queued"]


def test_a_job_taken_over_is_let_go_even_if_its_runner_fails_to_stop_cleanly(
    jobs: JobStore, caplog: pytest.LogCaptureFixture
) -> None:
    started: list[str] = []
    job = jobs.create("acme", "ingest", {})

    async def body(worker: Worker) -> None:
        await _until(lambda: started == [job.id])
        jobs.cancel("acme", job.id)
        await _until(lambda: worker.busy == 0)

    with caplog.at_level(logging.INFO, logger="colmeia.service.jobs"):
        _run(jobs, {"ingest": _stubborn(started)}, body, lease_s=0.3)
    assert ("INFO", f"job {job.id} was cancelled or taken over; stopped") in _log(caplog)
    assert _status(jobs, job) == "cancelled"
