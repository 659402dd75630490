"""Who may act on a member's job or review, and how long a web sign-in lets its key in.

A member acts on what they made; another member of the tenant is refused with a 403 that says
why, and only an admin acts on anyone's. A sign-in cookie lets its key in for the session's
lifetime and no longer, and stops with its key.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import HTTPException
from service_helpers import service_settings
from starlette.applications import Starlette
from starlette.requests import Request

from colmeia.config import Settings
from colmeia.service.app import build_state
from colmeia.service.auth import (
    SESSION_COOKIE,
    Principal,
    caller,
    metered_caller,
    require_owner,
)
from colmeia.service.keys import create_key, create_session, revoke_key
from colmeia.service.state import ServiceState

OTHER = "belongs to another member of the tenant: only its creator or an admin may"


def _principal(role: Any, bucket: str) -> Principal:
    return Principal("acme", f"{bucket}:x", bucket, role, 60, 1000, "key")


def test_a_member_acts_on_their_own_and_an_admin_on_anyones() -> None:
    member = _principal("member", "key:k1")
    require_owner(member, "key:k1", "job 1")
    admin = _principal("admin", "key:k9")
    for created_by in ("key:k1", "jwt:acme:maria", "", None):
        require_owner(admin, created_by, "job 1")


@pytest.mark.parametrize("created_by", ["key:k2", "jwt:acme:maria", "", None, "key:k1x"])
def test_another_member_is_refused_with_what_and_why(created_by: str | None) -> None:
    member = _principal("member", "key:k1")
    with pytest.raises(HTTPException) as err:
        require_owner(member, created_by, "review r7")
    assert err.value.status_code == 403
    assert err.value.detail == f"review r7 {OTHER}"


@pytest.fixture
def state(tmp_path: Path) -> Iterator[ServiceState]:
    home = tmp_path / "home"
    made = build_state(Settings(home=home), service_settings(home, rate_limit_per_minute=500))
    yield made
    made.tenants.close()
    made.db.close()


def _cookie_request(state: ServiceState, token: str) -> Request:
    app = Starlette()
    app.state.colmeia = state
    headers = [(b"host", b"colmeia.test"), (b"cookie", f"{SESSION_COOKIE}={token}".encode())]
    return Request(
        {
            "type": "http",
            "method": "GET",
            "path": "/v1/me",
            "headers": headers,
            "query_string": b"",
            "app": app,
            "client": ("127.0.0.1", 50000),
        }
    )


def _signed_in(state: ServiceState, token: str) -> Principal:
    return asyncio.run(caller(_cookie_request(state, token)))


def _signed_out(state: ServiceState, token: str) -> None:
    with pytest.raises(HTTPException) as err:
        _signed_in(state, token)
    assert err.value.status_code == 401
    assert str(err.value.detail).startswith("sign in: ")


def test_a_sign_in_lets_its_key_in_for_its_lifetime_and_no_longer(state: ServiceState) -> None:
    info, _ = create_key(state.db, "acme", "browser")
    brief = create_session(state.db, info, hours=1.5 / 3600)  # a second and a half
    day = create_session(state.db, info, hours=24)
    got = _signed_in(state, brief)
    assert (got.via, got.role, got.bucket) == ("session", "member", f"key:{info.id}")
    time.sleep(2.0)
    _signed_out(state, brief)  # its lifetime is over
    assert _signed_in(state, day).via == "session"  # the longer one is not
    revoke_key(state.db, info.id)
    _signed_out(state, day)  # a revoked key's sign-ins end with it


def test_a_key_in_x_api_key_is_the_one_used_over_a_bearer_and_a_cookie(state: ServiceState) -> None:
    mine, plain = create_key(state.db, "acme", "mine", role="admin")
    _, other = create_key(state.db, "globex", "other")
    request = _cookie_request(state, "no-such-sign-in")
    request.scope["headers"] += [
        (b"x-api-key", plain.encode()),
        (b"authorization", f"Bearer {other}".encode()),
    ]
    got = asyncio.run(caller(Request(request.scope)))
    assert (got.tenant, got.role, got.via, got.bucket) == ("acme", "admin", "key", f"key:{mine.id}")


def test_a_key_with_one_token_left_is_told_a_request_needs_more_and_what_to_do(
    tmp_path: Path,
) -> None:
    home = tmp_path / "quota"
    settings = service_settings(
        home, rate_limit_per_minute=500, request_token_reserve=3000, quota_window_s=3600
    )
    made = build_state(Settings(home=home), settings)
    try:
        _, plain = create_key(made.db, "acme", "ci", token_quota=500)
        first = _cookie_request(made, "none")
        first.scope["method"] = "POST"
        first.scope["headers"].append((b"x-api-key", plain.encode()))
        asyncio.run(metered_caller(first))
        asyncio.run(made.limiter.settle(first.state.reservation, 499))
        with pytest.raises(HTTPException) as err:
            asyncio.run(metered_caller(Request(first.scope)))
        assert err.value.status_code == 429 and err.value.headers is not None
        wait = int(err.value.headers["Retry-After"])
        assert err.value.detail == (
            "token quota of 500 tokens: 1 left, and a request holds up to 500 while it runs "
            "(the most one request may use: COLMEIA_SERVICE_REQUEST_TOKEN_RESERVE, capped at "
            "the key's quota), so no model-calling request can start until this key's running "
            f"requests end or the quota renews in {wait}s; ask the operator for a larger quota "
            "(colmeia keys create --token-quota) or a smaller reserve"
        )
    finally:
        made.tenants.close()
        made.db.close()
