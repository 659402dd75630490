"""No leaks: a caller learns what failed and what to do, never where the model server is or
which exception was raised (those go to the log with the request id); readiness checks the
model with a cached probe (issue 20: /v1/ask showed every caller the model URL and exception
class, /readyz said ok with the model dead, a job with every record in ERROR 'succeeded')."""

from __future__ import annotations

import json
import logging
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
from serve_process import free_port
from shared_data import DATA_DIR

LAW = "Art. 1º Esta lei dispõe sobre o prazo de recurso de dez dias.\n"


def _dead_model_app(
    tmp_path: Path, timeout: float
) -> Iterator[tuple[TestClient, dict[str, str], str]]:
    dead = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    settings = Settings(
        home=tmp_path, llm=LLMSettings(base_url=dead, model="m", max_retries=0, timeout=timeout)
    )
    app = create_app(settings, service_settings(tmp_path))
    with TestClient(app, raise_server_exceptions=False) as client:
        _, key = create_key(app.state.colmeia.db, "acme", "tests")
        yield client, {"X-API-Key": key}, dead


@pytest.fixture
def dead_model(tmp_path: Path) -> Iterator[tuple[TestClient, dict[str, str], str]]:
    yield from _dead_model_app(tmp_path, timeout=2)


@pytest.fixture
def dead_model_patient(tmp_path: Path) -> Iterator[tuple[TestClient, dict[str, str], str]]:
    """A refused connection comes back at once; a generous per-request timeout keeps a busy
    machine's slow scheduling from turning that refusal into a timeout (seen at load 25)."""
    yield from _dead_model_app(tmp_path, timeout=30)


def _finished(client: TestClient, h: dict[str, str], job_id: str) -> Any:
    # a guard against a job that never ends, not a speed bound: a loaded machine is slow
    deadline = time.monotonic() + 600
    while (job := client.get(f"/v1/jobs/{job_id}", headers=h).json())["status"] in (
        "queued",
        "running",
    ):
        assert time.monotonic() < deadline, job
        time.sleep(0.1)
    return job


def test_a_dead_model_is_a_502_that_names_no_address_and_no_exception(
    dead_model_patient: tuple[TestClient, dict[str, str], str], caplog: pytest.LogCaptureFixture
) -> None:
    client, h, dead = dead_model_patient
    files = [("files", ("lei.txt", LAW.encode(), "text/plain"))]
    job = client.post("/v1/collections/leis/documents", files=files, headers=h).json()
    assert _finished(client, h, job["id"])["status"] == "succeeded"
    with caplog.at_level(logging.ERROR, logger="colmeia.service"):
        r = client.post("/v1/ask", json={"question": "qual o prazo de recurso?"}, headers=h)
    assert r.status_code == 502
    body = r.json()
    assert "127.0.0.1" not in r.text and "Error" not in r.text and "httpx" not in r.text
    assert "the language model did not answer; try again" in body["detail"]
    logged = [rec.getMessage() for rec in caplog.records if body["request_id"] in rec.getMessage()]
    assert logged and "ModelUnreachableError" in logged[0] and dead.split("/v1")[0] in logged[0]


def test_readiness_probes_the_model_and_says_so_without_its_address(
    dead_model: tuple[TestClient, dict[str, str], str],
) -> None:
    client, _, _ = dead_model
    r = client.get("/readyz")
    assert r.status_code == 503
    checks = r.json()["checks"]
    assert checks["model"] == "error: the model server does not answer"
    assert checks["database"] == "ok"  # the stores are checked apart from the model
    assert "127.0.0.1" not in r.text


def test_a_moderation_job_with_the_model_dead_fails_and_says_why_without_the_address(
    dead_model: tuple[TestClient, dict[str, str], str],
) -> None:
    client, h, _ = dead_model
    records = json.loads((DATA_DIR / "moderation" / "sample_items.json").read_text("utf-8"))[:10]
    files = [("files", ("lote.json", json.dumps(records).encode(), "application/json"))]
    job_id = client.post("/v1/moderation/jobs", files=files, headers=h).json()["id"]
    job = _finished(client, h, job_id)
    assert job["status"] == "failed", job
    assert job["error"].startswith("all 10 items failed")
    assert "127.0.0.1" not in json.dumps(job)


def test_prompts_and_replies_are_logged_only_at_debug() -> None:
    from colmeia.service.observability import setup_logging

    trace = logging.getLogger("colmeia.llm.trace")
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        setup_logging("text", "INFO")
        assert not trace.isEnabledFor(logging.INFO)
        setup_logging("text", "DEBUG")
        assert trace.isEnabledFor(logging.INFO)
    finally:
        for h in list(root.handlers):
            root.removeHandler(h)
        for h in handlers:
            root.addHandler(h)
        root.setLevel(level)
        trace.setLevel(logging.NOTSET)
        logging.getLogger("colmeia").setLevel(logging.NOTSET)
