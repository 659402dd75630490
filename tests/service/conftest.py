"""Fixtures for the service's API tests: a real app on real stores in a temp folder.

``make_service(...)`` builds the app (SQLite service tables and tenant stores under ``tmp_path``,
an optional simulated model over real HTTP) and enters its lifespan, so the job worker runs.
``svc.key("acme")`` creates an API key with ``colmeia.service.keys`` and returns its headers.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from service_helpers import service_settings

from colmeia.config import LLMSettings, Settings
from colmeia.service.app import create_app
from colmeia.service.keys import create_key
from colmeia.service.state import ServiceState
from colmeia.sim import SimulatedModel
from s3_server import S3Server, running_s3_server


@dataclass
class Service:
    client: TestClient
    state: ServiceState
    home: Path

    def key(self, tenant: str, *, name: str = "tests", **options: Any) -> dict[str, str]:
        _, plain = create_key(self.state.db, tenant, name, **options)
        return {"X-API-Key": plain}

    def sign_in(self, key: str) -> Any:
        """Sign in to the web UI as a browser does: the form's CSRF token, then the post."""
        import re

        form = self.client.get("/ui/login").text
        token = re.search(r'name="csrf" value="([^"]+)"', form)
        assert token, form
        return self.client.post(
            "/ui/login", data={"key": key, "csrf": token.group(1)}, follow_redirects=False
        )

    def wait_job(self, job_id: str, headers: dict[str, str], timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        pause = 0.02
        while True:
            r = self.client.get(f"/v1/jobs/{job_id}", headers=headers)
            assert r.status_code == 200, f"job {job_id}: HTTP {r.status_code} {r.text}"
            job = r.json()
            if job["status"] in ("succeeded", "partial", "failed", "cancelled"):
                return dict(job)
            if time.monotonic() > deadline:
                raise AssertionError(f"job {job_id} still {job['status']}: {job['progress']}")
            time.sleep(pause)
            pause = min(pause * 1.5, 0.25)


@pytest.fixture
def make_service(
    tmp_path: Path, sim_server: Callable[[SimulatedModel], Any]
) -> Iterator[Callable[..., Service]]:
    opened: list[TestClient] = []

    def make(
        model: SimulatedModel | None = None, store: str | None = None, **service: Any
    ) -> Service:
        home = tmp_path / f"home{len(opened)}"
        llm = LLMSettings(max_retries=1, timeout=10)
        if model is not None:
            srv = sim_server(model)
            llm = LLMSettings(base_url=srv.base_url, model="sim", max_retries=1, timeout=10)
        settings = Settings(home=home, store=store, llm=llm)
        app = create_app(settings, service_settings(home, **service), simulated=model is not None)
        client = TestClient(app, raise_server_exceptions=False)
        client.__enter__()
        opened.append(client)
        return Service(client, app.state.colmeia, home)

    yield make
    for client in opened:
        client.__exit__(None, None, None)


@pytest.fixture(scope="session")
def s3() -> Iterator[S3Server]:
    """A real S3-compatible server (moto's, in its own process on 127.0.0.1) for the session."""
    for module in ("boto3", "moto"):  # dev dependencies: a venv without them skips
        pytest.importorskip(module, reason=f"{module} is not installed (make install)")
    with running_s3_server() as server:
        yield server
