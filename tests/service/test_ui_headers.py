"""Pages, served reports and the API docs carry the security headers; the docs come from local
assets; the OpenAPI document lists every status an operation answers (issue 20)."""

from __future__ import annotations

import json
import re
from typing import Any

from colmeia.service.simulated import demo_model
from shared_data import DATA_DIR


def _secured(r: Any) -> None:
    csp = r.headers["content-security-policy"]
    assert (
        "script-src 'self';" in csp
        and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    )
    assert "frame-ancestors 'none'" in csp
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["referrer-policy"] == "same-origin"


def _no_inline_script(html: str) -> None:
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S)
    assert all('src="/' in attrs and not body.strip() for attrs, body in scripts), scripts
    assert not re.search(r"\son[a-z]+=", html), "inline event handler"


def test_pages_and_refusals_carry_the_security_headers(make_service: Any) -> None:
    svc = make_service()
    key = svc.key("acme")["X-API-Key"]
    login = svc.client.get("/ui/login")
    _secured(login)
    _no_inline_script(login.text)
    assert svc.sign_in(key).status_code == 303
    for path in ("/ui/search", "/ui/moderation", "/ui/reviews", "/ui/cases", "/ui/chat"):
        r = svc.client.get(path)
        assert r.status_code == 200, path
        _secured(r)
        _no_inline_script(r.text)
    _secured(svc.client.get("/v1/collections"))  # refused by the middleware: headers too


def test_a_served_moderation_report_carries_the_headers(make_service: Any) -> None:
    svc = make_service(model=demo_model())
    h = svc.key("acme")
    records = json.loads((DATA_DIR / "moderation" / "sample_items.json").read_text("utf-8"))[:4]
    files = [("files", ("lote.json", json.dumps(records).encode(), "application/json"))]
    job_id = svc.client.post("/v1/moderation/jobs", files=files, headers=h).json()["id"]
    job = svc.wait_job(job_id, h)
    report = svc.client.get(
        f"/v1/moderation/jobs/{job_id}/report/{job['result']['report']}", headers=h
    )
    assert report.status_code == 200
    _secured(report)
    _no_inline_script(report.text)


def test_swagger_ui_and_redoc_come_from_local_assets(make_service: Any) -> None:
    svc = make_service()
    for path in ("/docs", "/redoc"):
        page = svc.client.get(path)
        assert page.status_code == 200
        _secured(page)
        _no_inline_script(page.text)
        sources = re.findall(r'(?:src|href)="([^"]+)"', page.text)
        assert sources and all(s.startswith("/") for s in sources), sources  # no CDN
        for src in sources:
            assert svc.client.get(src).status_code == 200, src


def test_openapi_documents_every_status_an_operation_answers(make_service: Any) -> None:
    svc = make_service()
    spec = svc.client.get("/openapi.json").json()
    for path, ops in spec["paths"].items():
        if not path.startswith("/v1/"):
            continue
        for method, op in ops.items():
            assert {"401", "422", "429"} <= set(op["responses"]), f"{method} {path}"
    ask = spec["paths"]["/v1/ask"]["post"]["responses"]
    assert {"200", "404", "409", "429", "502"} <= set(ask)
    upload = spec["paths"]["/v1/collections/{name}/documents"]["post"]["responses"]
    assert {"202", "413", "415"} <= set(upload)
