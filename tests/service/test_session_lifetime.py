"""A web sign-in lasts exactly the configured ``session_hours``: the cookie's Max-Age and the
stored session's expiry both say so, and a session past its expiry signs no one in. Signing out
ends it on the server; its cookies are HttpOnly, SameSite=Strict and Secure as configured."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest


@pytest.mark.parametrize("hours", [0.25, 3.0])
def test_the_configured_session_lifetime_is_the_one_applied(
    make_service: Callable[..., Any], hours: float
) -> None:
    svc = make_service(session_hours=hours)
    key = svc.key("acme")["X-API-Key"]
    response = svc.sign_in(key)
    assert response.status_code == 303
    cookie = response.headers["set-cookie"]
    assert re.search(r"Max-Age=(\d+)", cookie).group(1) == str(int(hours * 3600))  # type: ignore[union-attr]
    row = svc.state.db.one("SELECT created_at, expires_at FROM web_sessions")
    assert row["expires_at"] - row["created_at"] == pytest.approx(hours * 3600)
    assert svc.client.get("/ui/search", follow_redirects=False).status_code == 200
    # the same session once its configured time has passed (expiry moved, not the clock)
    svc.state.db.execute("UPDATE web_sessions SET expires_at = created_at - 1")
    again = svc.client.get("/ui/search", follow_redirects=False)
    assert again.status_code == 303 and "/ui/login" in again.headers["location"]


def test_a_sign_in_lasts_twelve_hours_when_no_lifetime_is_configured(
    make_service: Callable[..., Any],
) -> None:
    # docs/service.md promises twelve hours: a longer default would keep a shared
    # computer signed in overnight, a shorter one signs people out mid-afternoon
    svc = make_service()
    response = svc.sign_in(svc.key("acme")["X-API-Key"])
    cookie = response.headers["set-cookie"]
    assert re.search(r"Max-Age=(\d+)", cookie).group(1) == str(12 * 3600)  # type: ignore[union-attr]
    row = svc.state.db.one("SELECT created_at, expires_at FROM web_sessions")
    assert row["expires_at"] - row["created_at"] == pytest.approx(12 * 3600)


def test_signing_out_ends_the_session_on_the_server_not_only_in_the_browser(
    make_service: Callable[..., Any],
) -> None:
    svc = make_service()
    svc.sign_in(svc.key("acme")["X-API-Key"])
    token = svc.client.cookies["colmeia_session"]
    out = svc.client.post("/ui/logout", follow_redirects=False)
    assert out.status_code == 303 and out.headers["location"] == "/ui/login"
    assert svc.state.db.one("SELECT COUNT(*) AS n FROM web_sessions")["n"] == 0
    # the same cookie, kept by a copy of the browser's jar, no longer signs anyone in
    svc.client.cookies.set("colmeia_session", token)
    again = svc.client.get("/ui/search", follow_redirects=False)
    assert again.status_code == 303 and "/ui/login" in again.headers["location"]


@pytest.mark.parametrize("secure", [True, False])
def test_the_sign_in_cookies_are_out_of_scripts_reach_same_site_and_secure_as_configured(
    make_service: Callable[..., Any], secure: bool
) -> None:
    from fastapi.testclient import TestClient

    svc = make_service(secure_cookies=secure)
    key = svc.key("acme")["X-API-Key"]
    # a browser sends a Secure cookie back over HTTPS only: sign in as one would
    with TestClient(svc.client.app, base_url="https://testserver") as browser:
        form = browser.get("/ui/login")
        token = re.search(r'name="csrf" value="([^"]+)"', form.text)
        assert token, form.text
        response = browser.post(
            "/ui/login", data={"key": key, "csrf": token.group(1)}, follow_redirects=False
        )
    assert response.status_code == 303, response.text
    for cookie in (form.headers["set-cookie"], response.headers["set-cookie"]):
        flags = {part.strip().split("=")[0].lower(): part.strip() for part in cookie.split(";")}
        assert "httponly" in flags, cookie  # no script of a page can read it
        assert flags["samesite"].lower() == "samesite=strict", cookie
        assert ("secure" in flags) is secure, cookie
