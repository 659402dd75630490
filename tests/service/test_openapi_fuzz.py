"""schemathesis over the OpenAPI spec: generated requests to every operation of a real
``colmeia serve --simulated`` process; none may be answered with a server error (5xx), and
every status answered must be one the operation documents (issue 20: ``/v1/ask`` listed
200/422 but answered 404/409/429/502).

The tenant has a collection with a document, so requests reach the code behind validation.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error, status_code_conformance

from colmeia.config import Settings
from colmeia.service.app import create_app
from colmeia.service.db import open_database
from colmeia.service.keys import create_key
from colmeia.service.settings import ServiceSettings
from serve_process import ServerProcess, start_server, stop_server

pytestmark = pytest.mark.slow


def _spec() -> dict[str, object]:
    with tempfile.TemporaryDirectory() as home:
        app = create_app(
            Settings(home=Path(home), store=None),
            ServiceSettings(db=f"sqlite:///{home}/spec.db", redis_url=None, otlp_endpoint=None),
        )
        spec = app.openapi()
        app.state.colmeia.db.close()
        return spec


schema = schemathesis.openapi.from_dict(_spec())


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    home = tmp_path_factory.mktemp("fuzz-home")
    db = open_database(f"sqlite:///{home / 'service.db'}")
    _, key = create_key(db, "fuzz", "schemathesis", role="admin")
    db.close()
    server = start_server(home, env={"COLMEIA_SERVICE_RATE_LIMIT_PER_MINUTE": "1000000"})
    server.key = key
    h = {"X-API-Key": key}
    files = [
        ("files", ("lei.txt", "Lei\n\nArt. 1º O prazo é de dez dias.\n".encode(), "text/plain"))
    ]
    job = httpx.post(f"{server.url}/v1/collections/leis/documents", files=files, headers=h).json()
    for _ in range(400):
        if (
            httpx.get(f"{server.url}/v1/jobs/{job['id']}", headers=h).json()["status"]
            == "succeeded"
        ):
            break
        time.sleep(0.05)
    yield server
    stop_server(server)
    assert "Traceback" not in server.log_tail(200_000) or "internal error" not in server.log_tail(
        200_000
    )


@pytest.fixture
def target(live: ServerProcess) -> ServerProcess:
    return live


@schema.parametrize()
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_operation_answers_a_server_error_or_an_undocumented_status(
    case: schemathesis.Case, target: ServerProcess
) -> None:
    case.call_and_validate(
        base_url=target.url,
        headers={"X-API-Key": target.key},
        checks=[not_a_server_error, status_code_conformance],
        timeout=30,
    )
