"""Two workers claiming the same job at the same moment: exactly one gets it.

Each worker has its own connection (as two service processes would). Both are released
together by a barrier placed right after each has *looked* for a runnable job, so both have
found the same job before either takes it: the interleaving where a claim that does not
re-check, in its UPDATE, that the job is still free hands the job to both. Deterministic on
SQLite and on PostgreSQL.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from colmeia.service.db import Database, Row
from colmeia.service.jobs import Job, JobStore
from colmeia.service.migrate import upgrade
from pg import pg_schema_url


class SteppedDatabase(Database):
    """A real connection that waits at ``barrier`` once, after its first look for a job."""

    def __init__(self, url: str, barrier: threading.Barrier) -> None:
        super().__init__(url)
        self.barrier = barrier
        self.waited = False

    def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        row = super().one(sql, params)
        if sql.startswith("SELECT id FROM jobs") and not self.waited:
            self.waited = True
            self.barrier.wait(timeout=20)
        return row


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'service.db'}"
        return
    with pg_schema_url() as url:
        yield url


def _claim_together(url: str, workers: int) -> list[Job | None]:
    barrier = threading.Barrier(workers)
    dbs = [SteppedDatabase(url, barrier) for _ in range(workers)]
    try:
        with ThreadPoolExecutor(workers) as pool:
            futures = [
                pool.submit(JobStore(db).claim, f"worker-{i}", 30, ["ingest"])
                for i, db in enumerate(dbs)
            ]
            return [f.result(timeout=60) for f in futures]
    finally:
        for db in dbs:
            db.close()


def test_two_workers_released_together_get_one_job_once(url: str) -> None:
    setup = Database(url)
    upgrade(setup)
    job = JobStore(setup).create("acme", "ingest", {"file": "lei.txt"})
    claimed = _claim_together(url, 2)
    got = [c for c in claimed if c is not None]
    assert [c.id for c in got] == [job.id]
    assert claimed.count(None) == 1
    stored = JobStore(setup).get("acme", job.id)
    assert stored is not None
    assert stored.status == "running"
    assert stored.attempts == 1  # taken once, not twice
    setup.close()


def test_two_workers_and_two_jobs_get_one_each(url: str) -> None:
    setup = Database(url)
    upgrade(setup)
    jobs = JobStore(setup)
    created = {jobs.create("acme", "ingest", {"n": i}).id for i in range(2)}
    claimed = _claim_together(url, 2)
    assert all(c is not None for c in claimed)
    assert {c.id for c in claimed if c is not None} == created
    assert jobs.depth() == {("ingest", "running"): 2}
    setup.close()
