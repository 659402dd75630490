"""Two `colmeia serve` replicas on one PostgreSQL (+ Redis) share the work and the limits.

Real processes on 127.0.0.1, one service database in a fresh PostgreSQL schema, the same
COLMEIA_HOME (the shared storage replicas mount). A replica killed in the middle of a job
leaves its lease to run out; the other takes the job over and finishes it with one result per
record. A rate limit counted in Redis holds whichever replica a request reaches.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from colmeia.service.db import open_database
from colmeia.service.keys import create_key
from colmeia.sim import Latency, SimulatedModel
from pg import PG_URL, drop_schema, new_schema, postgres_unreachable
from serve_process import (
    ServerProcess,
    a_fresh_minute,
    kill_server,
    start_server,
    stop_server,
    submit_moderation,
)
from shared_data import DATA_DIR

pytestmark = [pytest.mark.slow, pytest.mark.postgres]


def _redis_unreachable() -> str | None:
    try:
        import redis

        redis.Redis.from_url("redis://127.0.0.1:6379/0", socket_timeout=2).ping()
    except Exception as exc:
        return f"Redis not reachable at 127.0.0.1:6379: {exc}"
    return None


@pytest.fixture
def service_db() -> Iterator[str]:
    reason = postgres_unreachable()
    if reason:
        pytest.skip(reason)
    schema = new_schema()
    yield f"{PG_URL}?schema={schema}"
    drop_schema(schema)


def _key(db_url: str) -> dict[str, str]:
    db = open_database(db_url)
    _, key = create_key(db, "acme", "replica test")
    db.close()
    return {"X-API-Key": key}


def _job_owner_pid(db_url: str, job_id: str) -> int | None:
    db = open_database(db_url)
    try:
        row = db.one("SELECT status, lease_owner FROM jobs WHERE id = ?", (job_id,))
    finally:
        db.close()
    if not row or not row["lease_owner"]:
        return None
    return int(str(row["lease_owner"]).split("|")[1])


def _job(url: str, h: dict[str, str], job_id: str) -> dict[str, Any]:
    r = httpx.get(f"{url}/v1/jobs/{job_id}", headers=h, timeout=30)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_a_replica_killed_mid_job_leaves_the_job_to_the_other(
    tmp_path: Path, service_db: str, sim_server: Any
) -> None:
    records = json.loads((DATA_DIR / "moderation" / "sample_items.json").read_text("utf-8"))[:60]
    batch = tmp_path / "batch.json"
    batch.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    sim = sim_server(SimulatedModel(schema_mode=True, latency=Latency(fixed_s=0.05), seed=5))
    # The replica that runs the job stops at its 8th finished record until told to go (the
    # service's test gate): it is killed there, mid-job, whatever the machine's speed.
    gate = tmp_path / "gate"
    gate.mkdir()
    (gate / "moderation.at").write_text("8")
    env = {
        "COLMEIA_LLM_BASE_URL": sim.base_url,
        "COLMEIA_LLM_MODEL": "sim",
        "COLMEIA_SERVICE_DB": service_db,
        "COLMEIA_SERVICE_TEST_GATE": str(gate),
    }
    home = tmp_path / "shared-home"
    replicas = [start_server(home, simulated=False, env=env) for _ in range(2)]
    h = _key(service_db)
    by_pid = {r.process.pid: r for r in replicas}
    try:
        job_id = submit_moderation(replicas[0].url, h, batch, concurrency=2)
        # Wait until the replica holding the job has reached the gate (8 results written).
        deadline = time.monotonic() + 120
        while not (gate / "moderation.reached").exists():
            assert time.monotonic() < deadline, "no replica reached the 8th record"
            time.sleep(0.05)
        owner = _job_owner_pid(service_db, job_id)
        assert owner in by_pid, owner
        holder = by_pid[owner]
        other = next(x for x in replicas if x is not holder)
        kill_server(holder)

        deadline = time.monotonic() + 180
        while (job := _job(other.url, h, job_id))["status"] not in ("succeeded", "failed"):
            assert time.monotonic() < deadline, f"the other replica never finished it: {job}"
            time.sleep(0.2)
        assert job["status"] == "succeeded", job
        assert _job_owner_pid(service_db, job_id) is None
        page = httpx.get(
            f"{other.url}/v1/moderation/jobs/{job_id}/results?limit=1000", headers=h, timeout=30
        ).json()
    finally:
        for x in replicas:
            if x.process.poll() is None:
                stop_server(x)
    keys = [item["key"] for item in page["items"]]
    assert page["total"] == 60 and len(keys) == len(set(keys)) == 60
    assert sorted(keys) == sorted(str(r["id"]) for r in records)
    assert job["result"]["resumed_from"] >= 8  # the work the killed replica finished was kept


def test_a_rate_limit_holds_across_replicas(tmp_path: Path, service_db: str) -> None:
    reason = _redis_unreachable()
    if reason:
        pytest.skip(reason)
    env = {
        "COLMEIA_SERVICE_DB": service_db,
        "COLMEIA_SERVICE_REDIS_URL": "redis://127.0.0.1:6379/0",
        "COLMEIA_SERVICE_REDIS_PREFIX": f"test-{uuid.uuid4().hex[:8]}:",
        "COLMEIA_SERVICE_RATE_LIMIT_PER_MINUTE": "12",
    }
    home = tmp_path / "shared-home"
    replicas: list[ServerProcess] = [start_server(home, env=env) for _ in range(2)]
    h = _key(service_db)
    try:
        a_fresh_minute(needed_s=30.0)  # the 16 requests counted in one clock minute
        codes = [
            httpx.get(f"{replicas[i % 2].url}/v1/me", headers=h, timeout=30).status_code
            for i in range(16)
        ]
    finally:
        for x in replicas:
            stop_server(x)
    # 12 a minute for the key, counted once for both replicas: each alone would allow 12.
    assert codes[:12] == [200] * 12, codes
    assert codes[12:] == [429] * 4, codes
