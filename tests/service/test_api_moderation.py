"""Moderation batches over HTTP: a job to its results, report and the human review queue."""

from __future__ import annotations

import json
from typing import Any

from colmeia.service.simulated import demo_model
from shared_data import DATA_DIR


def _batch(svc: Any, h: dict[str, str], n: int = 10) -> str:
    records = json.loads((DATA_DIR / "moderation" / "sample_items.json").read_text("utf-8"))[:n]
    files = [("files", ("lote.json", json.dumps(records).encode(), "application/json"))]
    r = svc.client.post("/v1/moderation/jobs", files=files, headers=h)
    assert r.status_code == 202, r.text
    job = svc.wait_job(r.json()["id"], h)
    assert job["status"] == "succeeded", job
    return str(job["id"])


def test_a_batch_gives_one_result_per_record_a_report_and_a_review_queue(make_service: Any) -> None:
    svc = make_service(model=demo_model())
    h = svc.key("acme")
    job_id = _batch(svc, h)
    job = svc.client.get(f"/v1/moderation/jobs/{job_id}", headers=h).json()
    assert job["result"]["total"] == 10 and job["result"]["missing"] == []
    assert job["result"]["usage"]["simulated"] == job["result"]["usage"]["calls"] > 0
    results = svc.client.get(f"/v1/moderation/jobs/{job_id}/results", headers=h).json()
    assert results["total"] == 10
    report = svc.client.get(
        f"/v1/moderation/jobs/{job_id}/report/{job['result']['report']}", headers=h
    )
    assert report.status_code == 200 and "<img" in report.text
    assert (
        svc.client.get(
            f"/v1/moderation/jobs/{job_id}/report/..%2Fresults.jsonl", headers=h
        ).status_code
        == 404
    )

    queue = svc.client.get(f"/v1/moderation/jobs/{job_id}/review", headers=h).json()
    items = queue["items"]
    assert items and all(i["outcome"] in ("ANSWER_REVISED", "DO_NOT_ANSWER") for i in items)
    key = items[0]["key"]
    r = svc.client.post(
        f"/v1/moderation/jobs/{job_id}/review/{key}",
        json={"verdict": "reject", "note": "tom"},
        headers=h,
    )
    assert r.status_code == 200, r.text
    assert r.json()["verdict"]["verdict"] == "reject" and r.json()["verdict"]["by"].startswith(
        "key:"
    )
    bad = svc.client.post(
        f"/v1/moderation/jobs/{job_id}/review/{key}", json={"verdict": "edit"}, headers=h
    )
    assert bad.status_code == 422  # an edit needs the edited text
    again = svc.client.get(f"/v1/moderation/jobs/{job_id}/review", headers=h).json()
    judged = next(i for i in again["items"] if i["key"] == key)
    assert judged["verdict"]["verdict"] == "reject" and judged["verdict"]["note"] == "tom"
    assert again["agreement"]

    other = svc.key("globex")
    assert svc.client.get(f"/v1/moderation/jobs/{job_id}/review", headers=other).status_code == 404
    assert (
        svc.client.post(
            f"/v1/moderation/jobs/{job_id}/review/{key}", json={"verdict": "accept"}, headers=other
        ).status_code
        == 404
    )


def test_moderation_without_a_model_says_how_to_configure_one(make_service: Any) -> None:
    svc = make_service()
    files = [("files", ("lote.json", b"[]", "application/json"))]
    r = svc.client.post("/v1/moderation/jobs", files=files, headers=svc.key("acme"))
    assert r.status_code == 503 and "COLMEIA_LLM_BASE_URL" in r.json()["detail"]
