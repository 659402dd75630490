"""Two service replicas that share no disk: files go through an S3-compatible bucket (moto's
server, real HTTP). One replica takes the uploads and runs no jobs, the other runs the jobs; the
first then answers from what the second produced (search hits, results, the report)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from service_helpers import service_settings

from colmeia.config import LLMSettings, Settings
from colmeia.service.app import create_app
from colmeia.service.keys import create_key
from colmeia.service.simulated import demo_model
from pg import PG_URL, drop_schema, new_schema, postgres_unreachable
from s3_server import S3Server
from shared_data import DATA_DIR

pytestmark = pytest.mark.postgres

DOC = "Regulamento\n\nArt. 1º O prazo de recurso administrativo é de dez dias úteis.\n"


@pytest.fixture
def replicas(
    tmp_path: Path, s3: S3Server, sim_server: Any
) -> Iterator[tuple[TestClient, TestClient, dict[str, str], str]]:
    reason = postgres_unreachable()
    if reason:
        pytest.skip(reason)
    bucket = s3.new_bucket()
    base, tables = new_schema(), new_schema()
    srv = sim_server(demo_model())
    llm = LLMSettings(base_url=srv.base_url, model="sim", max_retries=1, timeout=10)
    clients: list[TestClient] = []
    for n, run_jobs in ((0, False), (1, True)):
        home = tmp_path / f"machine{n}"  # each replica its own disk
        settings = Settings(home=home, store=f"{PG_URL}?schema={base}", llm=llm)
        service = service_settings(
            home, db=f"{PG_URL}?schema={tables}", **s3.settings(f"s3://{bucket}/colmeia")
        )
        app = create_app(settings, service, run_jobs=run_jobs, simulated=True)
        client = TestClient(app, raise_server_exceptions=False)
        client.__enter__()
        clients.append(client)
    _, plain = create_key(clients[0].app.state.colmeia.db, "acme", "tests")  # type: ignore[attr-defined]
    try:
        yield clients[0], clients[1], {"X-API-Key": plain}, bucket
    finally:
        for client in clients:
            client.__exit__(None, None, None)
        for schema in (tables, base, f"{base}_t_acme"):
            drop_schema(schema)


def _wait(client: TestClient, job_id: str, h: dict[str, str]) -> dict[str, Any]:
    deadline = time.monotonic() + 90
    while True:
        job = client.get(f"/v1/jobs/{job_id}", headers=h).json()
        if job["status"] in ("succeeded", "partial", "failed", "cancelled"):
            return dict(job)
        assert time.monotonic() < deadline, job
        time.sleep(0.2)


def test_a_document_uploaded_to_one_replica_is_ingested_by_the_other(
    replicas: tuple[TestClient, TestClient, dict[str, str], str], s3: S3Server
) -> None:
    front, worker, h, bucket = replicas
    files = [("files", ("regulamento.txt", DOC.encode(), "text/plain"))]
    job = front.post("/v1/collections/regras/documents", files=files, headers=h).json()
    assert s3.keys(bucket) == ["colmeia/tenants/acme/collections/regras/regulamento.txt"]
    done = _wait(front, job["id"], h)
    assert done["status"] == "succeeded", done
    assert done["result"]["documents"] == 1  # the worker read the file from the bucket
    worker_home = worker.app.state.colmeia.home  # type: ignore[attr-defined]
    assert (worker_home / "tenants/acme/collections/regras/regulamento.txt").read_text() == DOC
    hit = front.post("/v1/search", json={"query": "prazo de recurso"}, headers=h).json()
    assert "dez dias" in hit["hits"][0]["text"]


def test_a_moderation_report_made_on_one_replica_is_served_by_the_other(
    replicas: tuple[TestClient, TestClient, dict[str, str], str], s3: S3Server
) -> None:
    front, worker, h, bucket = replicas
    records = json.loads((DATA_DIR / "moderation" / "sample_items.json").read_text("utf-8"))[:6]
    files = [("files", ("lote.json", json.dumps(records).encode(), "application/json"))]
    r = front.post("/v1/moderation/jobs", files=files, headers=h)
    assert r.status_code == 202, r.text
    job = _wait(front, r.json()["id"], h)
    assert job["status"] == "succeeded", job
    folder = f"colmeia/tenants/acme/moderation/{job['id']}"
    front_home = front.app.state.colmeia.home  # type: ignore[attr-defined]
    worker_home = worker.app.state.colmeia.home  # type: ignore[attr-defined]
    assert (worker_home / folder.removeprefix("colmeia/") / "results.jsonl").is_file()
    assert not (front_home / folder.removeprefix("colmeia/") / "results.jsonl").exists()
    keys = s3.keys(bucket, folder)
    assert f"{folder}/input/lote.json" in keys and f"{folder}/results.jsonl" in keys
    assert f"{folder}/report/{job['result']['report']}" in keys

    results = front.get(f"/v1/moderation/jobs/{job['id']}/results", headers=h).json()
    assert results["total"] == 6
    assert sorted(str(i["id"]) for i in results["items"]) == sorted(str(x["id"]) for x in records)
    report = front.get(
        f"/v1/moderation/jobs/{job['id']}/report/{job['result']['report']}", headers=h
    )
    assert report.status_code == 200 and "<img" in report.text
