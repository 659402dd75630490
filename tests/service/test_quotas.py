"""Token quotas hold under concurrency: a request holds its most (the reserve) from the key's
quota before its model call and settles to what it used after, in one atomic add on the shared
counter. Issue 20: 30 concurrent /v1/ask on a 500-token key spent 10,230 tokens.

The shared counter is Redis when configured, else the service's own tables (SQLite or
PostgreSQL): the 30 questions go to two replicas of the service at once, each with its own
connection to the tables, as two processes of one deployment would.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient
from service_helpers import service_settings
from test_auth_tenants import _ingest, _redis_unreachable

from colmeia.config import Settings
from colmeia.service.app import create_app
from colmeia.service.simulated import demo_model
from pg import pg_schema_url


def _replica(svc: Any, **service: Any) -> Iterator[TestClient]:
    """A second service over the same home folder and tables (its own connections)."""
    settings = Settings(home=svc.home, llm=svc.state.settings.llm)
    app = create_app(settings, service_settings(svc.home, **service), simulated=True)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


def _ask_30_at_once(clients: list[TestClient], h: dict[str, str]) -> list[Any]:
    def ask(i: int) -> Any:
        client = clients[i % len(clients)]
        return client.post("/v1/ask", json={"question": f"prazo de recurso {i}"}, headers=h)

    with ThreadPoolExecutor(30) as pool:
        return list(pool.map(ask, range(30)))


@pytest.fixture
def tables(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """Service settings for the counters under test (the same for both replicas)."""
    kind = request.param
    if kind == "postgresql":
        with pg_schema_url() as url:
            yield {"db": url}
        return
    if kind == "redis":
        if reason := _redis_unreachable():
            pytest.skip(reason)
        yield {"redis_url": "redis://127.0.0.1:6379/0", "redis_prefix": f"t{uuid.uuid4().hex}:"}
        return
    yield {}  # SQLite tables in the first service's home


@pytest.mark.parametrize("tables", ["sqlite", "postgresql", "redis"], indirect=True)
def test_thirty_concurrent_asks_on_a_500_token_key_spend_at_most_500(
    make_service: Any, tables: dict[str, Any]
) -> None:
    # an answer takes about 240 tokens: two fit in the quota at once, never three
    options = {"quota_window_s": 3600, "request_token_reserve": 250, **tables}
    svc = make_service(model=demo_model(), **options)
    h = svc.key("acme", token_quota=500)
    _ingest(svc, h)
    replicas = _replica(svc, **{"db": svc.state.db.url, **options})
    other = next(replicas)
    try:
        answers = _ask_30_at_once([svc.client, other], h)
    finally:
        replicas.close()
    ok = [r for r in answers if r.status_code == 200]
    refused = [r for r in answers if r.status_code == 429]
    assert len(ok) + len(refused) == 30 and ok and refused
    spent = sum(
        r.json()["usage"]["prompt_tokens"] + r.json()["usage"]["completion_tokens"] for r in ok
    )
    assert spent <= 500, f"{len(ok)} answered, {spent} tokens spent on a 500-token key"
    me = svc.client.get("/v1/me", headers=h).json()
    assert me["tokens_left"] == 500 - spent  # the holds were settled to what was used
    assert all(r.headers["x-colmeia-limit"] == "token_quota" for r in refused)
    assert "a request holds up to 250 while it runs" in refused[0].json()["detail"]
