"""One tenant never sees another's moderation jobs: not in the list, not by id, not their files.

Tenant ``acme`` runs a moderation batch; tenant ``beta`` (with its own key, even an admin key
of its own tenant) lists ``/v1/moderation/jobs`` and sees only its own, and every URL of
acme's job answers 404 to beta, exactly as for a job that does not exist.
"""

from __future__ import annotations

import json
from typing import Any

from colmeia.service.simulated import demo_model
from shared_data import DATA_DIR


def _batch(svc: Any, h: dict[str, str], n: int) -> str:
    records = json.loads((DATA_DIR / "moderation" / "sample_items.json").read_text("utf-8"))[:n]
    files = [("files", ("lote.json", json.dumps(records).encode(), "application/json"))]
    r = svc.client.post("/v1/moderation/jobs", files=files, headers=h)
    assert r.status_code == 202, r.text
    job = svc.wait_job(r.json()["id"], h)
    assert job["status"] == "succeeded", job
    return str(job["id"])


def test_another_tenant_lists_only_its_own_moderation_jobs(make_service: Any) -> None:
    svc = make_service(model=demo_model())
    acme, beta = svc.key("acme"), svc.key("beta", role="admin")
    acme_job = _batch(svc, acme, 2)
    beta_job = _batch(svc, beta, 1)

    listed = svc.client.get("/v1/moderation/jobs", headers=beta)
    assert listed.status_code == 200
    assert [j["id"] for j in listed.json()] == [beta_job]
    assert [j["id"] for j in svc.client.get("/v1/moderation/jobs", headers=acme).json()] == [
        acme_job
    ]
    generic = svc.client.get("/v1/jobs", headers=beta)
    if generic.status_code == 200:  # the all-kinds list, where the service offers it
        assert acme_job not in {j["id"] for j in generic.json()}


def test_another_tenant_gets_404_on_every_url_of_the_job(make_service: Any) -> None:
    svc = make_service(model=demo_model())
    acme, beta = svc.key("acme"), svc.key("beta")
    job_id = _batch(svc, acme, 2)
    for path in (
        f"/v1/jobs/{job_id}",
        f"/v1/moderation/jobs/{job_id}",
        f"/v1/moderation/jobs/{job_id}/results",
        f"/v1/moderation/jobs/{job_id}/review",
    ):
        assert svc.client.get(path, headers=acme).status_code == 200, path
        r = svc.client.get(path, headers=beta)
        assert r.status_code == 404, path
        unknown = svc.client.get(path.replace(job_id, "0" * 32), headers=beta)
        # the same answer as for a job that does not exist: nothing tells beta it is there
        assert r.json()["detail"].replace(job_id, "?") == unknown.json()["detail"].replace(
            "0" * 32, "?"
        )
    verdict = svc.client.post(
        f"/v1/moderation/jobs/{job_id}/review/any", json={"verdict": "accept"}, headers=beta
    )
    assert verdict.status_code == 404
    assert svc.client.delete(f"/v1/jobs/{job_id}", headers=beta).status_code in (404, 405)
    assert svc.client.get(f"/v1/jobs/{job_id}", headers=acme).json()["status"] == "succeeded"
