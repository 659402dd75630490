"""A moderation job holds a bounded amount of memory in the service process (issue 34): its
records are read from disk as they are moderated (tests/apps/moderation/test_batch_streaming.py)
and its report, which reads every result and record at once, is written in a child process
bounded by ``COLMEIA_SERVICE_REPORT_MEMORY_MB`` whose memory is given back when it ends."""

from __future__ import annotations

import json
from typing import Any

from colmeia.service.simulated import demo_model


def _records(n: int) -> bytes:
    return json.dumps(
        [{"id": i, "question": "Tem garantia?", "answer": "Sim, um ano."} for i in range(n)]
    ).encode()


def _job(svc: Any) -> dict[str, Any]:
    h = svc.key("acme")
    r = svc.client.post(
        "/v1/moderation/jobs", files=[("files", ("lote.json", _records(3), "x"))], headers=h
    )
    assert r.status_code == 202, r.text
    return dict(svc.wait_job(r.json()["id"], h))


def test_a_report_over_its_memory_bound_fails_alone_and_the_results_stay(
    make_service: Any,
) -> None:
    # 64 MB of address space is less than any Python process with the report's modules needs:
    # the child runs out, the service process does not
    job = _job(make_service(model=demo_model(), report_memory_mb=64))
    assert job["status"] == "succeeded"
    result = job["result"]
    assert (result["total"], result["written"]) == (3, 3)
    assert "report" not in result
    assert "needed more memory than 64 MB" in result["report_error"]
    assert "COLMEIA_SERVICE_REPORT_MEMORY_MB" in result["report_error"]


def test_a_report_within_its_bound_is_written_by_the_child(make_service: Any) -> None:
    svc = make_service(model=demo_model())
    job = _job(svc)
    assert job["status"] == "succeeded" and job["result"]["report"] == "report.html"
    page = svc.client.get(
        f"/v1/moderation/jobs/{job['id']}/report/report.html", headers=svc.key("acme")
    )
    assert page.status_code == 200 and "3" in page.text
