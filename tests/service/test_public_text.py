"""What a caller may read of a failure (`colmeia.service.public`): addresses, ports, exception
classes and the server's folders are taken out of every message, a model's failure becomes one
stable sentence, and what a caller is told to do next — the service's own routes — is kept
("resume it first (POST /v1/assistant/threads/…/resume)" read "(POST (a server path))")."""

from __future__ import annotations

import logging

import pytest

from colmeia.service.public import (
    CODES,
    MODEL_FAILED,
    error_body,
    has_internals,
    public_text,
    redacted,
    scrub,
)


@pytest.mark.parametrize(
    "text",
    [
        "cannot reach http://10.0.0.7:8000/v1/chat",
        "connect to 192.168.1.20:5432 failed",
        "connect to [fe80::1:2:3]:8080 failed",
        "localhost:6379 refused",
        "nothing listens on port 18400",
        "httpx.ConnectTimeout: timed out",
        "[Errno 111] Connection refused",
        "cannot open /srv/colmeia/tenants/acme/colmeia.db",
    ],
)
def test_internals_are_recognised(text: str) -> None:
    assert has_internals(text)


@pytest.mark.parametrize(
    "text",
    [
        "the collection 'leis' does not exist yet",
        "resume it first (POST /v1/assistant/threads/abc123/resume)",
        "a date like 30/11/2026 and a ratio 3/4",
        "sign in at /docs",
    ],
)
def test_a_plain_message_and_the_services_own_routes_are_no_internals(text: str) -> None:
    assert not has_internals(text)
    assert public_text(text) == text


def test_scrub_says_what_each_internal_was() -> None:
    assert scrub("cannot reach http://10.0.0.7:8000/v1 now") == (
        "cannot reach (an internal address) now"
    )
    assert scrub("OSError: cannot open /srv/colmeia/tenants/acme/colmeia.db") == (
        "cannot open (a server path)"
    )
    # a folder the caller may know of (the tenant's own) is made relative, not hidden
    assert scrub("bad row in /srv/h/tenants/acme/up/a.csv", "/srv/h/tenants/acme") == (
        "bad row in up/a.csv"
    )
    assert scrub("cannot open /srv/data") == "cannot open (a server path)"
    # what the removals leave behind is tidied: an empty pair of brackets, doubled spaces
    assert scrub("failed (ConnectTimeout)") == "failed"
    assert scrub("a  OSError: b") == "a b"
    assert scrub("x", "/srv/h/tenants/acme/") == "x"
    assert scrub("in /srv/h/tenants/acme/up/b.csv", "/srv/h/tenants/acme/") == "in up/b.csv"
    # the route to call next stays readable
    assert scrub("resume it first (POST /v1/assistant/threads/abc/resume)") == (
        "resume it first (POST /v1/assistant/threads/abc/resume)"
    )


def test_a_failure_naming_the_model_becomes_one_sentence_and_the_original_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR, logger="colmeia.service"):
        shown = public_text("model server http://127.0.0.1:9/v1 refused", where="job j1")
    assert shown == MODEL_FAILED
    assert [r.getMessage() for r in caplog.records] == [
        "job j1: model server http://127.0.0.1:9/v1 refused"
    ]
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="colmeia.service"):
        public_text("at localhost:1")
    assert [r.getMessage() for r in caplog.records] == ["error shown to a caller: at localhost:1"]
    assert public_text("ConnectTimeout at localhost:1", model=True) == MODEL_FAILED
    assert (
        public_text("store at localhost:5432 is down") == "store at (an internal address) is down"
    )


def test_redacted_scrubs_every_string_of_a_result_and_keeps_the_rest() -> None:
    data = {
        "ok": "fine",
        "n": 3,
        "errors": ["row 2:  empty", "at 10.1.1.1:80", "in /srv/h/tenants/acme/up/b.csv"],
        "file": "/srv/h/tenants/acme/up/a.csv",
        "pair": ("x", "localhost:8000"),
    }
    assert redacted(data, "/srv/h/tenants/acme") == {
        "ok": "fine",
        "n": 3,
        # a string without internals is left exactly as it was (its two spaces too)
        "errors": ["row 2:  empty", "at (an internal address)", "in up/b.csv"],
        "file": "up/a.csv",
        "pair": ["x", "(an internal address)"],
    }


def test_an_error_body_carries_a_stable_code_and_the_request_id() -> None:
    assert error_body(404, "no such thread", "r1") == {
        "detail": "no such thread",
        "code": "not_found",
        "request_id": "r1",
    }
    assert error_body(418, "?", "r2")["code"] == "error"
    assert error_body(409, "busy", "r3", code="thread_busy")["code"] == "thread_busy"
    assert CODES[429] == "rate_limited" and CODES[502] == "model_failed"
