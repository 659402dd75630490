"""A server killed mid-job (SIGKILL, a real process) finishes the job after it is restarted,
with nothing lost and nothing duplicated."""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from colmeia.rag.pipeline import ingest
from colmeia.service.db import open_database
from colmeia.service.keys import create_key
from colmeia.sim import Latency, SimulatedModel
from colmeia.store import open_store
from serve_process import kill_server, start_server, stop_server
from shared_data import DATA_DIR

pytestmark = pytest.mark.slow


def _key(home: Path) -> dict[str, str]:
    db = open_database(f"sqlite:///{home / 'service.db'}")
    _, key = create_key(db, "acme", "restart test")
    db.close()
    return {"X-API-Key": key}


def _wait(
    url: str,
    h: dict[str, str],
    job_id: str,
    until: Callable[[dict[str, Any]], bool],
    timeout: float = 120,
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    pause = 0.02
    while True:
        r = httpx.get(f"{url}/v1/jobs/{job_id}", headers=h, timeout=60)
        assert r.status_code == 200, f"job {job_id}: HTTP {r.status_code} {r.text}"
        job = r.json()
        if until(job):
            return dict(job)
        if time.monotonic() > deadline:
            raise AssertionError(f"job {job_id} never got there: {job}")
        # a poll costs the server a few ms of CPU: 50 a second took a good part of a core
        # from the job being waited for (2 cores, shared)
        time.sleep(pause)
        pause = min(pause * 1.5, 0.1)


def _documents(tmp_path: Path, n: int) -> list[Path]:
    """``n`` text documents made from JurisTCU statements (one file each)."""
    folder = tmp_path / "docs"
    folder.mkdir()
    out = []
    with (DATA_DIR / "juristcu" / "docs.csv").open(encoding="utf-8") as fh:
        for i, row in enumerate(csv.DictReader(fh)):
            if i >= n:
                break
            text = " ".join(v for v in row.values() if v and len(v) > 40) or "vazio"
            path = folder / f"enunciado_{i:04d}.txt"
            path.write_text(f"Enunciado {i}\n\n{text}\n", encoding="utf-8")
            out.append(path)
    return out


def _gate(tmp_path: Path, point: str, at: int) -> Path:
    """A pause point (colmeia.service.gate): the job stops when its count reaches ``at``."""
    folder = tmp_path / "gate"
    folder.mkdir(exist_ok=True)
    (folder / f"{point}.at").write_text(str(at))
    return folder


def _reached(gate: Path, point: str, timeout: float = 120) -> int:
    """Wait until the job stands at the pause point; the count it stopped at."""
    deadline = time.monotonic() + timeout
    while not (gate / f"{point}.reached").exists():
        assert time.monotonic() < deadline, f"the job never reached the {point} pause point"
        time.sleep(0.05)
    time.sleep(0.05)  # the file is written before its content: let the writer finish
    return int((gate / f"{point}.reached").read_text())


def test_ingestion_killed_midway_finishes_after_restart(tmp_path: Path) -> None:
    files = _documents(tmp_path, 900)
    home = tmp_path / "home"
    gate = _gate(tmp_path, "ingest", 40)
    server = start_server(
        home,
        env={
            "COLMEIA_SERVICE_MAX_FILES_PER_UPLOAD": "1000",
            "COLMEIA_SERVICE_TEST_GATE": str(gate),
        },
    )
    h = _key(home)
    try:
        sent = [("files", (f.name, f.read_bytes(), "text/plain")) for f in files]
        r = httpx.post(
            f"{server.url}/v1/collections/tcu/documents", files=sent, headers=h, timeout=60
        )
        assert r.status_code == 202, r.text
        job_id = r.json()["id"]
        # the job stops at 40 files until told to go on: the kill cuts it there, never races it
        assert _reached(gate, "ingest") == 40
        kill_server(server)
    finally:
        kill_server(server) if server.process.poll() is None else None
    tenant_store = open_store(f"sqlite:///{home / 'tenants' / 'acme' / 'colmeia.db'}")
    partial = tenant_store.collection("tcu")
    tenant_store.close()
    assert partial is not None and partial.documents <= 40  # really cut midway

    again = start_server(home, env={"COLMEIA_SERVICE_MAX_FILES_PER_UPLOAD": "1000"})
    try:
        job = _wait(again.url, h, job_id, lambda j: j["status"] in ("succeeded", "failed"))
        assert job["status"] == "succeeded", job
        assert job["attempts"] == 2
        docs = httpx.get(f"{again.url}/v1/collections/tcu/documents", headers=h, timeout=30).json()
    finally:
        stop_server(again)
    ids = [d["doc_id"] for d in docs]
    assert len(ids) == len(set(ids)) == 900
    assert sorted(ids) == sorted(f.name for f in files)

    # the same files ingested in one go give the same passages: nothing lost, nothing doubled
    reference = open_store(f"sqlite:///{tmp_path / 'reference.db'}")
    ingest(reference, "tcu", [f.parent for f in files[:1]], relative_to=files[0].parent)
    ref_chunks = {c.chunk_id: c.text for c in reference.chunks("tcu")}
    reference.close()
    tenant_store = open_store(f"sqlite:///{home / 'tenants' / 'acme' / 'colmeia.db'}")
    got_chunks = {c.chunk_id: c.text for c in tenant_store.chunks("tcu")}
    tenant_store.close()
    assert got_chunks == ref_chunks


def test_moderation_killed_midway_resumes_after_restart(tmp_path: Path, sim_server: Any) -> None:
    records = json.loads((DATA_DIR / "moderation" / "sample_items.json").read_text("utf-8"))[:60]
    batch = tmp_path / "batch.json"
    batch.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    sim = sim_server(SimulatedModel(schema_mode=True, latency=Latency(fixed_s=0.03), seed=3))
    env = {"COLMEIA_LLM_BASE_URL": sim.base_url, "COLMEIA_LLM_MODEL": "sim"}
    home = tmp_path / "home"
    gate = _gate(tmp_path, "moderation", 10)
    server = start_server(
        home, simulated=False, env={**env, "COLMEIA_SERVICE_TEST_GATE": str(gate)}
    )
    h = _key(home)
    try:
        r = httpx.post(
            f"{server.url}/v1/moderation/jobs",
            files=[("files", ("batch.json", batch.read_bytes(), "application/json"))],
            data={"concurrency": "4"},
            headers=h,
            timeout=30,
        )
        assert r.status_code == 202, r.text
        job_id = r.json()["id"]
        # the batch stops when 10 records are finished: the kill lands there, never races it
        assert 10 <= _reached(gate, "moderation") < 60
        kill_server(server)
    finally:
        kill_server(server) if server.process.poll() is None else None
    results = home / "tenants" / "acme" / "moderation" / job_id / "results.jsonl"
    cut_at = sum(1 for line in results.read_bytes().split(b"\n") if line.strip())
    assert cut_at < 60  # lines of finished records still in the writer's hands are redone

    again = start_server(home, simulated=False, env=env)
    try:
        job = _wait(again.url, h, job_id, lambda j: j["status"] in ("succeeded", "failed"))
        page = httpx.get(
            f"{again.url}/v1/moderation/jobs/{job_id}/results?limit=1000", headers=h, timeout=30
        ).json()
    finally:
        stop_server(again)
    assert job["status"] == "succeeded", job
    assert job["result"]["resumed_from"] >= cut_at - 1  # a line cut by the kill is redone
    assert job["result"]["missing"] == []
    keys = [item["key"] for item in page["items"]]
    assert page["total"] == 60 and len(set(keys)) == 60
    assert sorted(keys) == sorted(str(r["id"]) for r in records)


def test_sigterm_gives_a_running_job_back_to_the_queue(tmp_path: Path) -> None:
    files = _documents(tmp_path, 300)
    home = tmp_path / "home"
    server = start_server(home, env={"COLMEIA_SERVICE_MAX_FILES_PER_UPLOAD": "1000"})
    h = _key(home)
    sent = [("files", (f.name, f.read_bytes(), "text/plain")) for f in files]
    r = httpx.post(f"{server.url}/v1/collections/tcu/documents", files=sent, headers=h, timeout=60)
    job_id = r.json()["id"]
    _wait(server.url, h, job_id, lambda j: j["status"] != "queued")
    # uvicorn shuts down gracefully, then re-raises the SIGTERM it caught
    assert stop_server(server) in (0, -15)
    assert "running job(s) go back to the queue" in server.log_tail(20000)
    db = open_database(f"sqlite:///{home / 'service.db'}")
    row = db.one("SELECT status, lease_owner FROM jobs WHERE id = ?", (job_id,))
    db.close()
    assert row is not None
    assert row["status"] in ("queued", "succeeded") and row["lease_owner"] is None
