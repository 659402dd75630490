"""The jobs table read and written directly (real SQLite, no server): what a tenant sees of its
jobs, the exact record each step writes (claim, renewal, finish, release, cancel), and what a
finished job's status and error say.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from colmeia.errors import ModelTimeoutError, StoreError
from colmeia.service.db import Database, open_database
from colmeia.service.jobs import JobStore, outcome, public_error


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = open_database(f"sqlite:///{tmp_path / 'service.db'}")
    yield database
    database.close()


@pytest.fixture
def jobs(db: Database) -> JobStore:
    return JobStore(db)


def _row(db: Database, job_id: str) -> dict[str, object]:
    row = db.one("SELECT * FROM jobs WHERE id = ?", (job_id,))
    assert row is not None
    return row


def test_a_new_job_is_queued_with_its_params_and_author(jobs: JobStore) -> None:
    before = time.time()
    job = jobs.create("acme", "ingest", {"files": ["lei.txt"], "n": 2}, created_by="key:1:ci")
    assert len(job.id) == 32 and job.id.isalnum()
    assert (job.tenant_id, job.kind, job.status) == ("acme", "ingest", "queued")
    assert job.params == {"files": ["lei.txt"], "n": 2}
    assert (job.progress, job.result, job.error) == ({}, None, None)
    assert job.created_by == "key:1:ci" and job.attempts == 0
    assert before <= job.created_at == job.updated_at <= time.time()
    assert (job.started_at, job.finished_at) == (None, None)
    assert job.as_dict() == {
        "id": job.id,
        "kind": "ingest",
        "status": "queued",
        "progress": {},
        "result": None,
        "error": None,
        "created_by": "key:1:ci",
        "created_at": job.created_at,
        "updated_at": job.updated_at,
        "started_at": None,
        "finished_at": None,
        "attempts": 0,
    }
    named = jobs.create("acme", "moderation", {}, job_id="abc123")
    assert named.id == "abc123" and named.created_by == ""
    assert JobStore.new_id() != JobStore.new_id()


def test_a_tenant_reads_only_its_own_jobs_newest_first(jobs: JobStore, db: Database) -> None:
    a1 = jobs.create("acme", "ingest", {})
    a2 = jobs.create("acme", "moderation", {})
    a3 = jobs.create("acme", "ingest", {})
    b1 = jobs.create("globex", "ingest", {})
    for i, job in enumerate((a1, a2, a3, b1)):
        db.execute("UPDATE jobs SET created_at = ? WHERE id = ?", (1000.0 + i, job.id))
    assert [j.id for j in jobs.recent("acme")] == [a3.id, a2.id, a1.id]
    assert [j.id for j in jobs.recent("acme", "ingest")] == [a3.id, a1.id]
    assert [j.id for j in jobs.recent("acme", limit=2)] == [a3.id, a2.id]
    assert [j.id for j in jobs.recent("acme", "ingest", limit=1)] == [a3.id]
    assert [j.id for j in jobs.recent("globex")] == [b1.id]
    assert jobs.recent("nobody") == []
    assert jobs.get("acme", b1.id) is None and jobs.get("globex", b1.id) is not None


def test_the_job_list_shows_the_50_newest_unless_asked_for_more(jobs: JobStore) -> None:
    made = [jobs.create("acme", "ingest", {}).id for _ in range(51)]
    listed = [j.id for j in jobs.recent("acme")]
    assert len(listed) == 50 and set(listed) <= set(made)
    assert len(jobs.recent("acme", limit=51)) == 51


def test_cancel_ends_a_queued_or_running_job_of_the_tenant_only(
    jobs: JobStore, db: Database
) -> None:
    queued = jobs.create("acme", "ingest", {})
    assert not jobs.cancel("globex", queued.id)
    assert _row(db, queued.id)["status"] == "queued"
    before = time.time()
    assert jobs.cancel("acme", queued.id)
    row = _row(db, queued.id)
    assert row["status"] == "cancelled"
    assert before <= row["finished_at"] == row["updated_at"] <= time.time()  # type: ignore[operator]
    assert not jobs.cancel("acme", queued.id)  # once

    running = jobs.create("acme", "ingest", {})
    assert jobs.claim("w1", 30, ["ingest"]) is not None
    assert jobs.cancel("acme", running.id)
    assert not jobs.renew(running.id, "w1", 30, None)  # its worker learns at its next renewal
    assert not jobs.finish(running.id, "w1", "succeeded", result={})
    assert _row(db, running.id)["status"] == "cancelled"

    done = jobs.create("acme", "ingest", {})
    claimed = jobs.claim("w1", 30, ["ingest"])
    assert claimed is not None and claimed.id == done.id
    assert jobs.finish(done.id, "w1", "succeeded", result={})
    assert not jobs.cancel("acme", done.id)
    assert _row(db, done.id)["status"] == "succeeded"


def test_the_queue_depth_counts_jobs_not_yet_ended_by_kind_and_status(jobs: JobStore) -> None:
    assert jobs.depth() == {}
    for kind in ("ingest", "ingest", "ingest", "moderation"):
        jobs.create("acme", kind, {})
    jobs.create("globex", "ingest", {})
    jobs.claim("w", 30, ["moderation"])
    first = jobs.claim("w", 30, ["ingest"])
    assert first is not None
    ended = jobs.create("acme", "review", {})
    jobs.cancel("acme", ended.id)
    assert jobs.depth() == {
        ("ingest", "queued"): 3,
        ("ingest", "running"): 1,
        ("moderation", "running"): 1,
    }


def test_a_claim_takes_the_oldest_job_of_the_kinds_asked_and_records_it(
    jobs: JobStore, db: Database
) -> None:
    newer = jobs.create("acme", "ingest", {})
    older = jobs.create("globex", "ingest", {})
    other = jobs.create("acme", "moderation", {})
    db.execute("UPDATE jobs SET created_at = 10 WHERE id = ?", (older.id,))
    db.execute("UPDATE jobs SET created_at = 20 WHERE id = ?", (newer.id,))
    db.execute("UPDATE jobs SET created_at = 5 WHERE id = ?", (other.id,))
    assert jobs.claim("w1", 30, []) is None
    assert jobs.claim("w1", 30, ["review"]) is None
    before = time.time()
    got = jobs.claim("w1", 30, ["ingest", "review"])
    assert got is not None and got.id == older.id
    assert got.status == "running" and got.attempts == 1
    row = _row(db, older.id)
    assert row["lease_owner"] == "w1"
    assert before + 30 <= row["lease_until"] <= time.time() + 30  # type: ignore[operator]
    assert before <= row["started_at"] == row["updated_at"] <= time.time()  # type: ignore[operator]
    both = jobs.claim("w2", 30, ["moderation", "ingest"])
    assert both is not None and both.id == other.id
    last = jobs.claim("w2", 30, ["ingest", "moderation"])
    assert last is not None and last.id == newer.id
    assert jobs.claim("w3", 30, ["ingest", "moderation"]) is None


def test_a_job_taken_over_keeps_when_it_first_started_and_counts_the_attempt(
    jobs: JobStore, db: Database
) -> None:
    job = jobs.create("acme", "ingest", {})
    assert jobs.claim("dead", 30, ["ingest"]) is not None
    started = _row(db, job.id)["started_at"]
    db.execute("UPDATE jobs SET lease_until = ? WHERE id = ?", (time.time() - 1, job.id))
    again = jobs.claim("alive", 30, ["ingest"])
    assert again is not None and again.attempts == 2
    assert again.started_at == started
    assert _row(db, job.id)["lease_owner"] == "alive"


def test_a_lease_that_has_not_run_out_keeps_the_job(jobs: JobStore, db: Database) -> None:
    job = jobs.create("acme", "ingest", {})
    assert jobs.claim("w1", 30, ["ingest"]) is not None
    db.execute("UPDATE jobs SET lease_until = ? WHERE id = ?", (time.time() + 2, job.id))
    assert jobs.claim("w2", 30, ["ingest"]) is None
    # a running job with no owner recorded and a lease run out is anyone's
    db.execute("UPDATE jobs SET lease_owner = NULL, lease_until = 0 WHERE id = ?", (job.id,))
    assert jobs.claim("w2", 30, ["ingest"]) is not None


def test_renewal_extends_the_lease_and_stores_progress_only_when_given(
    jobs: JobStore, db: Database
) -> None:
    job = jobs.create("acme", "ingest", {})
    jobs.claim("w1", 1, ["ingest"])
    before = time.time()
    assert jobs.renew(job.id, "w1", 60, {"done": 3, "total": 10})
    row = _row(db, job.id)
    assert before + 60 <= row["lease_until"] <= time.time() + 60  # type: ignore[operator]
    assert before <= row["updated_at"] <= time.time()  # type: ignore[operator]
    assert jobs.get("acme", job.id).progress == {"done": 3, "total": 10}  # type: ignore[union-attr]
    assert jobs.renew(job.id, "w1", 120, None)
    assert jobs.get("acme", job.id).progress == {"done": 3, "total": 10}  # type: ignore[union-attr]
    assert _row(db, job.id)["lease_until"] >= before + 120  # type: ignore[operator]
    assert not jobs.renew(job.id, "w2", 60, {"done": 99})
    assert jobs.get("acme", job.id).progress == {"done": 3, "total": 10}  # type: ignore[union-attr]
    queued = jobs.create("acme", "ingest", {})
    assert not jobs.renew(queued.id, "", 60, None)


def test_finishing_writes_status_result_error_and_progress_and_frees_the_lease(
    jobs: JobStore, db: Database
) -> None:
    job = jobs.create("acme", "ingest", {})
    jobs.claim("w1", 30, ["ingest"])
    assert not jobs.finish(job.id, "w2", "succeeded", result={"added": 1})
    before = time.time()
    assert jobs.finish(
        job.id,
        "w1",
        "partial",
        result={"added": 1, "when": Path("x")},
        error="one file failed",
        progress={"done": 2},
    )
    row = _row(db, job.id)
    assert (row["lease_owner"], row["lease_until"]) == (None, None)
    assert before <= row["finished_at"] == row["updated_at"] <= time.time()  # type: ignore[operator]
    done = jobs.get("acme", job.id)
    assert done is not None
    assert (done.status, done.error) == ("partial", "one file failed")
    assert done.finished_at == row["finished_at"] and done.started_at is not None
    assert done.result == {"added": 1, "when": "x"}  # what JSON cannot hold is kept as text
    assert done.progress == {"done": 2}
    assert not jobs.finish(job.id, "w1", "failed")  # once
    # without result or progress: none stored, progress kept
    other = jobs.create("acme", "ingest", {})
    jobs.claim("w1", 30, ["ingest"])
    jobs.renew(other.id, "w1", 30, {"done": 1})
    assert jobs.finish(other.id, "w1", "failed", error="boom")
    failed = jobs.get("acme", other.id)
    assert failed is not None and (failed.result, failed.progress) == (None, {"done": 1})


def test_release_gives_a_running_job_back_to_the_queue_for_anyone(
    jobs: JobStore, db: Database
) -> None:
    job = jobs.create("acme", "ingest", {})
    jobs.claim("w1", 30, ["ingest"])
    jobs.release(job.id, "w2")  # not its job: nothing happens
    assert _row(db, job.id)["status"] == "running"
    jobs.release(job.id, "w1")
    row = _row(db, job.id)
    assert (row["status"], row["lease_owner"], row["lease_until"]) == ("queued", None, None)
    again = jobs.claim("w1", 30, ["ingest"])
    assert again is not None and again.id == job.id and again.attempts == 2


def _dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


@pytest.fixture
def alive() -> Iterator[subprocess.Popen[bytes]]:
    """A process of this machine that is still running (a worker that is alive)."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield child
    child.kill()
    child.wait()


def test_only_jobs_of_dead_processes_of_this_machine_are_requeued(
    jobs: JobStore, db: Database, alive: subprocess.Popen[bytes]
) -> None:
    host = socket.gethostname()
    dead = _dead_pid()
    # the dead ones come last: the live ones before them must not end the look
    owners = {
        "alive": f"{host}|{alive.pid}|abc",
        "me": f"{host}|{os.getpid()}|abc",
        "elsewhere": f"another-host|{dead}|abc",
        "odd": f"{host}|notapid|abc",
        "dead": f"{host}|{dead}|abc",
        "dead too": f"{host}|{dead}|def",
    }
    ids = {}
    for name, owner in owners.items():
        ids[name] = jobs.create("acme", "ingest", {}).id
        claimed = jobs.claim(owner, 3600, ["ingest"])
        assert claimed is not None and claimed.id == ids[name]
    finished = jobs.create("acme", "ingest", {})
    jobs.claim(owners["dead"], 3600, ["ingest"])
    jobs.finish(finished.id, owners["dead"], "succeeded")
    assert jobs.reclaim_dead_local() == 2
    statuses = {name: _row(db, i)["status"] for name, i in ids.items()}
    assert statuses == {n: ("queued" if n.startswith("dead") else "running") for n in owners}
    row = _row(db, ids["dead"])
    assert (row["lease_owner"], row["lease_until"]) == (None, None)
    assert _row(db, finished.id)["status"] == "succeeded"
    assert jobs.reclaim_dead_local() == 0
    # asking whether a process lives sends it no signal: half a second later it still runs
    # (a signal that ends it, SIGHUP say, would have ended it by then)
    with pytest.raises(subprocess.TimeoutExpired):
        alive.wait(timeout=0.5)


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        ({}, ("succeeded", None)),
        ({"total": 0, "failed": 0}, ("succeeded", None)),
        ({"total": 3, "failed": 0}, ("succeeded", None)),
        ({"total": 3, "failed": 1}, ("partial", None)),
        ({"total": 3, "failed": 2}, ("partial", None)),
        ({"total": 3, "failed": 3}, ("failed", "all 3 items failed")),
        ({"total": 1, "failed": 1}, ("failed", "all 1 items failed")),
        (
            {"total": 2, "failed": 2, "first_error": "timeout at http://10.0.0.5:8080/v1"},
            ("failed", "all 2 items failed; the first: timeout at (an internal address)"),
        ),
        ({"total": None, "failed": 2}, ("partial", None)),
    ],
)
def test_a_finished_jobs_status_says_whether_its_items_failed(
    items: dict[str, object], expected: tuple[str, str | None]
) -> None:
    assert outcome({"items": items, "added": 1}) == expected


def test_a_job_without_counted_items_succeeded() -> None:
    assert outcome({"added": 4}) == ("succeeded", None)
    assert outcome({"items": None}) == ("succeeded", None)


@pytest.mark.parametrize(
    ("error", "shown"),
    [
        ("plain words stay", "plain words stay"),
        (
            "cannot reach http://model.internal:8000/v1/chat",
            "cannot reach (an internal address)",
        ),
        ("at 192.168.0.10:5432 and 10.1.2.3", "at (an internal address) and (an internal address)"),
        ("LOCALHOST:8080 refused", "(an internal address) refused"),
        ("see postgresql://u:p@db/x)", "see (an internal address))"),
        ("version 1.2.3 is fine", "version 1.2.3 is fine"),
    ],
)
def test_a_tenant_never_reads_an_internal_address_in_an_error(error: str, shown: str) -> None:
    assert public_error(error) == shown
    assert public_error(StoreError(error)) == shown


def test_a_model_failure_tells_the_tenant_what_to_do() -> None:
    err = ModelTimeoutError("no answer from http://10.0.0.5:8000 in 30 s")
    assert public_error(err) == "the language model did not answer; run the job again later"
