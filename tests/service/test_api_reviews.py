"""Literature reviews over HTTP: import a bibliography, review it, screen a work, export."""

from __future__ import annotations

import csv
import io
from typing import Any

from shared_data import DATA_DIR

THESES = DATA_DIR / "theses" / "capes_resumos.csv"


def _library(svc: Any, h: dict[str, str]) -> dict[str, Any]:
    files = [("files", (THESES.name, THESES.read_bytes(), "text/csv"))]
    r = svc.client.post("/v1/collections/teses/library", files=files, headers=h)
    assert r.status_code == 202, r.text
    job = svc.wait_job(r.json()["id"], h, timeout=120)
    assert job["status"] == "succeeded", job
    return job


def test_a_review_runs_is_screened_and_exports_csv(make_service: Any) -> None:
    svc = make_service()  # no model: the fields are extractive, each citing its passage
    h = svc.key("acme")
    imported = _library(svc, h)
    assert imported["result"]["records"] > 100
    r = svc.client.post(
        "/v1/reviews",
        json={
            "question": "educação inclusiva na formação de professores",
            "collection": "teses",
            "top": 5,
        },
        headers=h,
    )
    assert r.status_code == 202, r.text
    review_id = r.json()["id"]
    assert svc.wait_job(review_id, h, timeout=120)["status"] == "succeeded"
    got = svc.client.get(f"/v1/reviews/{review_id}", headers=h).json()
    works = got["review"]["works"]
    assert len(works) == 5 and got["simulated"] is False
    first = works[0]
    screened = svc.client.post(
        f"/v1/reviews/{review_id}/screening",
        json={"work": first["doc_id"], "decision": "exclude", "reason": "fora do tema"},
        headers=h,
    )
    assert screened.status_code == 200, screened.text
    bad = svc.client.post(
        f"/v1/reviews/{review_id}/screening",
        json={"work": first["doc_id"], "decision": "exclude"},
        headers=h,
    )
    assert bad.status_code == 422  # an exclusion needs a reason

    exported = svc.client.get(f"/v1/reviews/{review_id}/export?format=csv", headers=h)
    assert exported.status_code == 200 and exported.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(exported.text)))
    assert len(rows) == 5
    assert rows[0]["title"].strip() == first["title"].strip()
    xlsx = svc.client.get(f"/v1/reviews/{review_id}/export?format=xlsx", headers=h)
    assert xlsx.status_code == 200 and xlsx.content[:2] == b"PK"

    other = svc.key("globex")
    assert svc.client.get(f"/v1/reviews/{review_id}", headers=other).status_code == 404
    assert svc.client.get(f"/v1/reviews/{review_id}/export", headers=other).status_code == 404
    assert svc.client.get("/v1/reviews", headers=other).json() == []
