"""The service tables: migrations up and down on SQLite and PostgreSQL; the durable job table
(one claimant per job, leases that run out, jobs of dead processes taken over)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from colmeia.service.db import Database, open_database
from colmeia.service.jobs import JobStore
from colmeia.service.keys import create_key, verify_key
from colmeia.service.migrate import current_version, downgrade, migrations, upgrade
from pg import PG_URL, drop_schema, new_schema, postgres_unreachable

TABLES = {"tenants", "api_keys", "web_sessions", "jobs", "audit_log", "threads"}


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    if request.param == "sqlite":
        database = Database(f"sqlite:///{tmp_path / 'service.db'}")
        yield database
        database.close()
        return
    reason = postgres_unreachable()
    if reason:
        pytest.skip(reason)
    schema = new_schema()
    database = Database(f"{PG_URL}?schema={schema}")
    try:
        yield database
    finally:
        database.close()
        drop_schema(schema)


def test_migrations_go_up_and_down_and_up_again(db: Database) -> None:
    latest = migrations()[-1].version
    assert upgrade(db) == [m.version for m in migrations()]
    assert current_version(db) == latest
    assert db.table_names() >= TABLES
    assert upgrade(db) == []  # idempotent
    assert downgrade(db, 1) == [m.version for m in reversed(migrations()) if m.version > 1]
    assert "threads" not in db.table_names() and "jobs" in db.table_names()
    assert downgrade(db) == [1]
    assert not (TABLES & db.table_names())
    assert current_version(db) == 0
    upgrade(db)
    info, plain = create_key(db, "acme", "after a full round trip")
    assert verify_key(db, plain) == info


def test_a_job_is_claimed_by_exactly_one_worker(db: Database) -> None:
    upgrade(db)
    jobs = JobStore(db)
    created = [jobs.create("acme", "ingest", {"n": i}) for i in range(5)]
    claimed = [jobs.claim(f"w{i % 2}", 30, ["ingest"]) for i in range(7)]
    got = [j.id for j in claimed if j is not None]
    assert sorted(got) == sorted(j.id for j in created)  # each once, none twice
    assert claimed[5] is None and claimed[6] is None
    assert jobs.depth() == {("ingest", "running"): 5}


def test_an_expired_lease_lets_another_worker_take_the_job_over(db: Database) -> None:
    upgrade(db)
    jobs = JobStore(db)
    job = jobs.create("acme", "moderation", {})
    first = jobs.claim("dead-worker", 0.2, ["moderation"])
    assert first is not None and first.attempts == 1
    assert jobs.claim("w2", 30, ["moderation"]) is None
    time.sleep(0.3)
    second = jobs.claim("w2", 30, ["moderation"])
    assert second is not None and second.id == job.id and second.attempts == 2
    assert not jobs.renew(job.id, "dead-worker", 30, {"x": 1})  # the old owner lost it
    assert not jobs.finish(job.id, "dead-worker", "succeeded", result={})
    assert jobs.finish(job.id, "w2", "succeeded", result={"ok": True})
    final = jobs.get("acme", job.id)
    assert final is not None and final.status == "succeeded" and final.result == {"ok": True}
    assert jobs.get("globex", job.id) is None


def test_a_worker_whose_renewal_was_late_does_not_start_its_own_job_again(db: Database) -> None:
    upgrade(db)
    jobs = JobStore(db)
    job = jobs.create("acme", "moderation", {})
    assert jobs.claim("busy-worker", 0.2, ["moderation"]) is not None
    time.sleep(0.3)  # its renewal is late: the lease ran out while it still runs the job
    assert jobs.claim("busy-worker", 30, ["moderation"]) is None  # not a second run beside it
    assert jobs.renew(job.id, "busy-worker", 30, {"finished": 3})  # still its own
    time.sleep(0.05)
    assert jobs.claim("other-process", 30, ["moderation"]) is None  # renewed: not free either


def test_jobs_of_a_dead_local_process_are_requeued_at_once(tmp_path: Path) -> None:
    db = open_database(f"sqlite:///{tmp_path / 's.db'}")
    jobs = JobStore(db)
    job = jobs.create("acme", "ingest", {})
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    import socket

    owner = f"{socket.gethostname()}|{gone.stdout.strip()}|abc"
    assert jobs.claim(owner, 3600, ["ingest"]) is not None
    assert jobs.claim("someone", 30, ["ingest"]) is None  # its lease is far from over
    assert jobs.reclaim_dead_local() == 1
    again = jobs.claim("someone", 30, ["ingest"])
    assert again is not None and again.id == job.id
    db.close()
