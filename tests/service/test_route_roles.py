"""Every route of the service has a declared least role, and is called with it and with the role
just below: the least role gets past authentication, the one below is refused (anonymous: 401,
or the sign-in page for the web UI; a member on an admin route: 403).

The routes come from the app itself (``app.routes``), so a new route without a rule in ROLES
fails ``test_every_route_has_a_declared_rule`` until someone decides who may call it."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from colmeia.service.app import create_app
from colmeia.service.keys import create_key

PUBLIC, MEMBER, ADMIN = "public", "member", "admin"

ROLES: dict[str, str] = {
    "GET /healthz": PUBLIC,
    "GET /readyz": PUBLIC,
    "GET /metrics": PUBLIC,
    "GET /openapi.json": PUBLIC,
    "GET /docs": PUBLIC,
    "GET /redoc": PUBLIC,
    "GET /redoc.standalone.js": PUBLIC,
    "GET /": PUBLIC,
    "GET /v1/me": MEMBER,
    "GET /v1/audit": ADMIN,
    "GET /v1/collections": MEMBER,
    "POST /v1/collections": MEMBER,
    "DELETE /v1/collections/{name}": MEMBER,
    "GET /v1/collections/{name}/documents": MEMBER,
    "POST /v1/collections/{name}/documents": MEMBER,
    "DELETE /v1/collections/{name}/documents/{doc_id:path}": MEMBER,
    "GET /v1/collections/{name}/passages/{chunk_id:path}": MEMBER,
    "POST /v1/collections/{name}/library": MEMBER,
    "GET /v1/jobs": MEMBER,
    "GET /v1/jobs/{job_id}": MEMBER,
    "POST /v1/jobs/{job_id}/cancel": MEMBER,
    "POST /v1/search": MEMBER,
    "POST /v1/ask": MEMBER,
    "POST /v1/assistant/threads": MEMBER,
    "GET /v1/assistant/threads": MEMBER,
    "GET /v1/assistant/pending": MEMBER,
    "GET /v1/assistant/threads/{thread_id}": MEMBER,
    "POST /v1/assistant/threads/{thread_id}/share": ADMIN,
    "DELETE /v1/assistant/threads/{thread_id}": MEMBER,
    "POST /v1/assistant/threads/{thread_id}/messages": MEMBER,
    "POST /v1/assistant/threads/{thread_id}/resume": MEMBER,
    "POST /v1/registry/import": ADMIN,
    "GET /v1/registry/counts": MEMBER,
    "GET /v1/registry/cases": MEMBER,
    "GET /v1/registry/lookup": MEMBER,
    "GET /v1/registry/cases/{number}": MEMBER,
    "GET /v1/registry/cases/{number}/movements": MEMBER,
    "POST /v1/moderation/jobs": MEMBER,
    "GET /v1/moderation/jobs": MEMBER,
    "GET /v1/moderation/jobs/{job_id}": MEMBER,
    "GET /v1/moderation/jobs/{job_id}/results": MEMBER,
    "GET /v1/moderation/jobs/{job_id}/results.jsonl": MEMBER,
    "GET /v1/moderation/jobs/{job_id}/report/{name}": MEMBER,
    "GET /v1/moderation/jobs/{job_id}/review": MEMBER,
    "POST /v1/moderation/jobs/{job_id}/review/{key}": MEMBER,
    "POST /v1/reviews": MEMBER,
    "GET /v1/reviews": MEMBER,
    "GET /v1/reviews/{review_id}": MEMBER,
    "POST /v1/reviews/{review_id}/screening": MEMBER,
    "GET /v1/reviews/{review_id}/export": MEMBER,
    "POST /v1/agents/run": MEMBER,
    "GET /ui/login": PUBLIC,
    "POST /ui/login": PUBLIC,
    "POST /ui/logout": PUBLIC,
    "GET /ui/search": MEMBER,
    "GET /ui/collections": MEMBER,
    "POST /ui/search": MEMBER,
    "POST /ui/upload": MEMBER,
    "GET /ui/jobs/{job_id}": MEMBER,
    "GET /ui/passage/{collection}/{chunk_id:path}": MEMBER,
    "GET /ui/cases": MEMBER,
    "GET /ui/moderation": MEMBER,
    "POST /ui/moderation": MEMBER,
    "GET /ui/moderation/{job_id}": MEMBER,
    "POST /ui/moderation/{job_id}/review/{key:path}": MEMBER,
    "GET /ui/moderation/{job_id}/progress": MEMBER,
    "GET /ui/chat": MEMBER,
    "POST /ui/chat/new": MEMBER,
    "GET /ui/chat/{thread_id}": MEMBER,
    "GET /ui/approvals": MEMBER,
    "POST /ui/approvals/{thread_id}": MEMBER,
    "GET /ui/reviews": MEMBER,
    "POST /ui/reviews": MEMBER,
    "GET /ui/reviews/{review_id}": MEMBER,
    "POST /ui/reviews/{review_id}/screening": MEMBER,
    "POST /ui/library": MEMBER,
}


def _routes(routes: list[Any]) -> Iterator[tuple[str, str]]:
    """(method, path) of every endpoint, through included routers (FastAPI keeps them as
    branches with their own ``effective_candidates``) but not into mounted static files."""
    for route in routes:
        branches = getattr(route, "effective_candidates", None)
        if branches is not None:
            yield from _routes(list(branches()))
        elif getattr(route, "methods", None):
            for method in sorted(route.methods - {"HEAD", "OPTIONS"}):
                yield method, route.path


def _app_routes() -> list[str]:
    import tempfile
    from pathlib import Path

    from service_helpers import service_settings

    from colmeia.config import Settings

    with tempfile.TemporaryDirectory() as home:
        app = create_app(Settings(home=Path(home)), service_settings(Path(home)))
        return [f"{m} {p}" for m, p in _routes(app.routes)]


APP_ROUTES = _app_routes()


def test_every_route_has_a_declared_rule_and_every_rule_a_route() -> None:
    assert sorted(set(APP_ROUTES) - ROLES.keys()) == [], "declare the least role of new routes"
    assert sorted(ROLES.keys() - set(APP_ROUTES)) == [], "drop the rules of removed routes"


def _url(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "x1", path)


def _refused(response: Any, path: str) -> bool:
    if path.startswith("/ui/"):
        return response.status_code in (401, 403) or (
            response.status_code in (302, 303, 307) and "/ui/login" in response.headers["location"]
        )
    return response.status_code in (401, 403)


@pytest.fixture(scope="module")
def svc(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Any, dict[str, dict[str, str]], Callable[[str], None]]]:
    from pathlib import Path

    from fastapi.testclient import TestClient
    from service_helpers import service_settings

    from colmeia.config import Settings

    home = Path(tmp_path_factory.mktemp("roles"))
    # every anonymous call is a failed sign-in: their per-minute limit would answer 429
    app = create_app(
        Settings(home=home), service_settings(home, auth_failures_per_minute=1_000_000)
    )
    state = app.state.colmeia
    with TestClient(app, raise_server_exceptions=False) as client:
        db = client.app.state.colmeia.db  # type: ignore[attr-defined]
        keys = {
            MEMBER: create_key(db, "acme", "member")[1],
            ADMIN: create_key(db, "acme", "boss", role="admin")[1],
        }
        headers = {role: {"X-API-Key": k} for role, k in keys.items()}
        headers[PUBLIC] = {}

        def sign_in(role: str) -> None:
            client.cookies.clear()
            if role == PUBLIC:
                return
            form = client.get("/ui/login").text
            token = re.search(r'name="csrf" value="([^"]+)"', form)
            assert token
            r = client.post(
                "/ui/login",
                data={"key": keys[role], "csrf": token.group(1)},
                follow_redirects=False,
            )
            assert r.status_code == 303, r.text

        assert state is not None
        yield client, headers, sign_in


BELOW = {MEMBER: PUBLIC, ADMIN: MEMBER}


def _call(svc: Any, route: str, role: str) -> Any:
    client, headers, sign_in = svc
    method, path = route.split(" ", 1)
    if path.startswith("/ui/"):
        sign_in(role)
        return client.request(method, _url(path), follow_redirects=False, data={})
    client.cookies.clear()
    kwargs: dict[str, Any] = {"json": {}} if method == "POST" else {}
    return client.request(method, _url(path), headers=headers[role], **kwargs)


@pytest.mark.parametrize("route", sorted(r for r in ROLES if ROLES[r] != PUBLIC))
def test_the_role_just_below_the_least_one_is_refused(svc: Any, route: str) -> None:
    response = _call(svc, route, BELOW[ROLES[route]])
    assert _refused(response, route.split(" ", 1)[1]), (response.status_code, response.text[:200])


@pytest.mark.parametrize("route", sorted(ROLES))
def test_the_least_role_gets_past_authentication(svc: Any, route: str) -> None:
    response = _call(svc, route, ROLES[route])
    # a public page may send anyone to the sign-in page (signing out does)
    path = route.split(" ", 1)[1] if ROLES[route] != PUBLIC else "/v1"
    assert not _refused(response, path), (
        response.status_code,
        response.text[:200],
    )
