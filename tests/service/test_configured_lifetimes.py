"""The lifetimes an operator configures are the ones the running service applies: a job runs
under ``job_lease_s`` (a dead process's job is taken over after exactly that), and a key's token
quota renews when ``quota_window_s`` ends, not at some other window's end. (The web sign-in's
``session_hours`` is pinned in test_session_lifetime.py.)"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from colmeia.service.simulated import demo_model
from shared_data import DATA_DIR

DOC = "Regulamento\n\nArt. 1º O prazo de recurso administrativo é de dez dias úteis.\n"


def _running_lease(svc: Any, job_id: str) -> float:
    """``lease_until - updated_at`` of the job while it runs: both are written from the same
    clock reading at each claim and renewal, so their difference is the lease applied."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        row = svc.state.db.one(
            "SELECT status, lease_until, updated_at FROM jobs WHERE id = ?", (job_id,)
        )
        if row["status"] == "running" and row["lease_until"] is not None:
            return float(row["lease_until"] - row["updated_at"])
        assert row["status"] == "queued", f"job {job_id} ended before it was seen running"
        time.sleep(0.02)
    raise AssertionError(f"job {job_id} never started")


@pytest.mark.parametrize("lease_s", [4.0, 45.0])
def test_a_job_runs_under_the_configured_lease(make_service: Any, lease_s: float) -> None:
    # each model answer takes a second: the job is still running when its row is read
    svc = make_service(model=demo_model(latency_s=1.0), job_lease_s=lease_s)
    h = svc.key("acme")
    records = json.loads((DATA_DIR / "moderation" / "sample_items.json").read_text("utf-8"))[:2]
    files = [("files", ("lote.json", json.dumps(records).encode(), "application/json"))]
    r = svc.client.post("/v1/moderation/jobs", files=files, headers=h)
    assert r.status_code == 202, r.text
    assert _running_lease(svc, r.json()["id"]) == pytest.approx(lease_s)
    assert svc.wait_job(r.json()["id"], h, timeout=120)["status"] == "succeeded"


def _spend_the_quota(svc: Any, h: dict[str, str]) -> None:
    files = [("files", ("regulamento.txt", DOC.encode(), "text/plain"))]
    r = svc.client.post("/v1/collections/segredos/documents", files=files, headers=h)
    assert r.status_code == 202, r.text
    assert svc.wait_job(r.json()["id"], h)["status"] == "succeeded"
    r = svc.client.post("/v1/ask", json={"question": "prazo de recurso"}, headers=h)
    assert r.status_code == 200, r.text


def test_a_used_up_token_quota_renews_when_the_configured_window_ends(make_service: Any) -> None:
    window = 3
    svc = make_service(model=demo_model(), quota_window_s=window)
    h = svc.key("acme", token_quota=50)
    for _ in range(5):  # a window may end between the spending and the refusal: spend again
        _spend_the_quota(svc, h)
        refused = svc.client.post("/v1/ask", json={"question": "prazo de recurso"}, headers=h)
        if refused.status_code == 429:
            break
    assert refused.status_code == 429 and refused.headers["x-colmeia-limit"] == "token_quota"
    # the refusal names the seconds left in the configured window, never a longer one's
    wait = int(refused.headers["retry-after"])
    assert 1 <= wait <= window
    time.sleep(wait + 0.2)
    assert svc.client.get("/v1/me", headers=h).json()["tokens_left"] == 50
    again = svc.client.post("/v1/ask", json={"question": "prazo de recurso"}, headers=h)
    assert again.status_code == 200, again.text


def test_the_quota_counter_is_kept_for_the_configured_window_only(make_service: Any) -> None:
    # the counter of a day-long window kept for an hour would forget spending mid-day
    window = 7200
    svc = make_service(model=demo_model(), quota_window_s=window)
    h = svc.key("acme", token_quota=100_000)
    _spend_the_quota(svc, h)
    (row,) = svc.state.db.query("SELECT name, value, expires_at FROM counters")
    assert row["value"] > 0
    index = int(row["name"].rsplit(":", 1)[1])
    assert index == int(time.time() // window)
    assert row["expires_at"] - time.time() == pytest.approx(window + 1, abs=30)
