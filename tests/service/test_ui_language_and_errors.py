"""The web UI's language and its error pages as a person meets them: Portuguese unless the
service is configured otherwise; ``?lang=en`` switches, and the choice is remembered for a
year by a cookie; a language the UI does not have falls back to the service's. An error is a
page in that language (status, message, how long to wait); for an htmx request it is a
fragment that keeps the status and the wait."""

from __future__ import annotations

import re
from typing import Any

from colmeia.service.keys import create_key


def _lang(page: str) -> str:
    found = re.search(r'<html lang="([^"]+)">', page)
    assert found, page[:200]
    return found.group(1)


def test_the_language_switches_and_is_remembered_for_a_year(make_service: Any) -> None:
    svc = make_service()
    first = svc.client.get("/ui/login")
    assert _lang(first.text) == "pt-BR" and "colmeia_lang" not in first.cookies
    assert 'href="?lang=en" hreflang="en"' in first.text  # the switch offers the other one
    english = svc.client.get("/ui/login?lang=en")
    assert _lang(english.text) == "en" and 'href="?lang=pt" hreflang="pt"' in english.text
    cookie = next(c for c in english.headers.get_list("set-cookie") if "colmeia_lang" in c)
    assert "colmeia_lang=en" in cookie
    assert re.search(r"Max-Age=(\d+)", cookie).group(1) == str(365 * 86400)  # type: ignore[union-attr]
    # remembered: no ?lang= on the next page
    again = svc.client.get("/ui/login")
    assert _lang(again.text) == "en"
    assert not any("colmeia_lang" in c for c in again.headers.get_list("set-cookie"))
    assert _lang(svc.client.get("/ui/login?lang=pt").text) == "pt-BR"
    assert _lang(svc.client.get("/ui/login").text) == "pt-BR"


def test_a_language_the_ui_does_not_have_falls_back_to_the_configured_one(
    make_service: Any,
) -> None:
    english = make_service(default_language="en")
    assert _lang(english.client.get("/ui/login").text) == "en"
    french = english.client.get("/ui/login?lang=fr")
    assert _lang(french.text) == "en"
    assert not any("colmeia_lang" in c for c in french.headers.get_list("set-cookie"))
    assert _lang(english.client.get("/ui/login?lang=pt").text) == "pt-BR"
    portuguese = make_service()
    assert _lang(portuguese.client.get("/ui/login?lang=fr").text) == "pt-BR"


def test_an_error_is_a_page_in_the_persons_language_with_the_wait(make_service: Any) -> None:
    svc = make_service()
    _, key = create_key(svc.state.db, "acme", "web", rate_limit=2)
    assert svc.sign_in(key).status_code == 303
    answers = [svc.client.get("/ui/search?lang=en") for _ in range(4)]
    limited = answers[-1]
    assert limited.status_code == 429 and _lang(limited.text) == "en"
    assert "<h1>Error 429</h1>" in limited.text
    assert 'data-status="429"' in limited.text and "rate limit of 2 requests" in limited.text
    wait = limited.headers["Retry-After"]
    assert 0 < int(wait) <= 60
    assert f"{wait} s.</p>" in limited.text
    # still signed in: the page names the tenant and offers to sign out
    assert "<strong>acme</strong>" in limited.text and 'action="/ui/logout"' in limited.text
    anonymous = make_service().client.get("/ui/no-such-page")
    assert anonymous.status_code == 404 and "<h1>Erro 404</h1>" in anonymous.text
    assert 'action="/ui/logout"' not in anonymous.text


def test_an_htmx_error_keeps_its_status_and_says_the_wait(make_service: Any) -> None:
    svc = make_service()
    _, key = create_key(svc.state.db, "acme", "web", rate_limit=2)
    assert svc.sign_in(key).status_code == 303
    answers = [svc.client.get("/ui/collections", headers={"HX-Request": "true"}) for _ in range(4)]
    limited = answers[-1]
    assert limited.status_code == 429 and "<html" not in limited.text
    wait = limited.headers["Retry-After"]
    message = re.search(r'<p class="error" role="alert">Erro: (.*)</p>', limited.text)
    assert message, limited.text
    # the rate limit's message names the wait already: said once, not twice
    assert message.group(1).endswith(f"retry in {wait}s")
    assert f"({wait} s)" not in message.group(1)
    # an error without a wait: a plain message and no Retry-After
    svc2 = make_service()
    assert svc2.sign_in(svc2.key("acme")["X-API-Key"]).status_code == 303
    missing = svc2.client.get("/ui/no-such-page", headers={"HX-Request": "true"})
    assert missing.status_code == 404 and "<html" not in missing.text
    assert "Retry-After" not in missing.headers
    assert re.search(r'<p class="error" role="alert">Erro: [^(]*</p>', missing.text), missing.text
