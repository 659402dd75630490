"""The attacks tried on ``colmeia serve`` (a real process on 127.0.0.1) and the refusal each
must get. Read top to bottom, this is the list: who tried what, what the service answers, and
what it must not do (read a body it will refuse, grow its database, unpack a bomb, …).

Issue 20 found each of these holding or not; every test here was seen failing with the
protection removed.
"""

from __future__ import annotations

import socket
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from colmeia.service.db import open_database
from colmeia.service.keys import create_key
from serve_process import ServerProcess, start_server, stop_server
from zipbombs import bomb_docx

pytestmark = pytest.mark.slow

LAW = "Art. 1º Esta lei dispõe sobre o acesso à informação pública.\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    home = tmp_path_factory.mktemp("hostile")
    srv = start_server(
        home,
        env={
            "COLMEIA_SERVICE_MAX_REQUEST_MB": "50",
            "COLMEIA_SERVICE_MAX_UPLOAD_MB": "25",
            # the process reading one file may use 400 MB (the default is 2048)
            "COLMEIA_INGEST_MEMORY_MB": "400",
        },
    )
    db = open_database(f"sqlite:///{home / 'service.db'}")
    _, srv.key = create_key(db, "acme", "hostile tests")
    db.close()
    yield srv
    stop_server(srv)


def _audit(server: ServerProcess, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(server.home / "service.db") as con:
        return list(con.execute(sql))


def _raw(server: ServerProcess, head: str, body: bytes = b"", *, wait: float = 5.0) -> str:
    """Send raw request bytes; what the server answered (the status line and headers)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=wait) as sock:
        sock.sendall(head.encode("latin-1") + body)
        return sock.recv(65536).decode("latin-1")


# -- unauthenticated cost -----------------------------------------------------------------------


def test_an_anonymous_150_mb_upload_is_refused_before_its_body_is_sent(
    server: ServerProcess,
) -> None:
    # headers only: the 401 must come back while the client has not sent a byte of the body
    answer = _raw(
        server,
        "POST /v1/collections/leis/documents HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Content-Type: multipart/form-data; boundary=x\r\nContent-Length: 40000000\r\n\r\n",
    )
    assert answer.startswith("HTTP/1.1 401"), answer


def test_a_wrong_key_is_refused_before_its_body_is_sent(server: ServerProcess) -> None:
    answer = _raw(
        server,
        "POST /v1/collections/leis/documents HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "X-API-Key: cmk_not_a_key\r\nContent-Type: multipart/form-data; boundary=x\r\n"
        "Content-Length: 40000000\r\n\r\n",
    )
    assert answer.startswith("HTTP/1.1 401"), answer


def test_a_flood_of_bad_keys_is_throttled_and_counted_in_one_audit_row(
    server: ServerProcess,
) -> None:
    # the flood comes from its own loopback address (the throttle is per client address)
    with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2")) as flood:
        _flood(server, flood)
    assert httpx.get(f"{server.url}/v1/collections", headers={"X-API-Key": server.key}).is_success


def _flood(server: ServerProcess, flood: httpx.Client) -> None:
    before = _audit(server, "SELECT COUNT(*) FROM audit_log")[0][0]
    statuses = [
        flood.get(f"{server.url}/v1/collections", headers={"X-API-Key": f"cmk_bad{i}"}).status_code
        for i in range(60)
    ]
    # 20 failed authentications a minute per address (the default), then 429 without checking
    assert statuses[:20] == [401] * 20 and set(statuses[20:]) == {429}
    rows = _audit(
        server,
        "SELECT actor, detail FROM audit_log WHERE action = 'refused requests'"
        " AND detail LIKE '%127.0.0.2%'",
    )
    assert len(rows) == 1 and rows[0][0] == "anonymous"
    assert '"refused":32' in str(rows[0][1])  # 20 failures, then the 429s counted at 2^k
    assert _audit(server, "SELECT COUNT(*) FROM audit_log")[0][0] - before == 1
    # a valid key from that address is refused too until the minute ends: the throttle does
    # not look at credentials (that is what makes it cheap); other addresses are served
    r = flood.get(f"{server.url}/v1/collections", headers={"X-API-Key": server.key})
    assert r.status_code == 429 and int(r.headers["Retry-After"]) <= 60


# -- bodies and uploads ---------------------------------------------------------------------------


def _upload(server: ServerProcess, files: list[tuple[str, bytes]]) -> httpx.Response:
    sent = [("files", (name, data, "application/octet-stream")) for name, data in files]
    return httpx.post(
        f"{server.url}/v1/collections/leis/documents",
        files=sent,
        headers={"X-API-Key": server.key},
        timeout=120,
    )


def _job(server: ServerProcess, job_id: str) -> dict[str, object]:
    deadline = time.monotonic() + 120
    while True:
        job = httpx.get(f"{server.url}/v1/jobs/{job_id}", headers={"X-API-Key": server.key}).json()
        if job["status"] not in ("queued", "running") or time.monotonic() > deadline:
            return dict(job)
        time.sleep(0.2)


def test_a_chunked_body_over_the_limit_is_a_413(server: ServerProcess) -> None:
    def body() -> Iterator[bytes]:
        # a well-formed multipart upload of 60 MB (six files of 10 MB, each under the 25 MB
        # file limit), sent chunked (no Content-Length), over the 50 MB request limit
        for n in range(6):
            yield (
                f'--b\r\nContent-Disposition: form-data; name="files"; filename="big{n}.txt"\r\n'
                "Content-Type: text/plain\r\n\r\n"
            ).encode()
            for _ in range(10):
                yield b"x" * (1 << 20)
            yield b"\r\n"
        yield b"--b--\r\n"

    r = httpx.post(
        f"{server.url}/v1/collections/leis/documents",
        content=body(),
        headers={"X-API-Key": server.key, "Content-Type": "multipart/form-data; boundary=b"},
        timeout=60,
    )
    assert r.status_code == 413
    assert "larger than 50 MB (COLMEIA_SERVICE_MAX_REQUEST_MB)" in r.json()["detail"]


def test_a_zip_bomb_is_refused_the_rest_ingested_and_the_server_rss_stays_bounded(
    server: ServerProcess, tmp_path: Path
) -> None:
    bomb = bomb_docx(tmp_path / "relatorio.docx", megabytes=800).read_bytes()
    before = _peak_rss_mb(server)
    r = _upload(server, [("lei.txt", LAW.encode()), ("relatorio.docx", bomb)])
    assert r.status_code == 202
    job = _job(server, r.json()["id"])
    assert job["status"] == "partial"
    result = job["result"]
    assert isinstance(result, dict) and result["documents"] == 1
    assert result["errors"][0]["source"] == "relatorio.docx"
    assert "zip bomb" in result["errors"][0]["reason"]
    # the server's peak RSS (VmHWM) grew by less than 150 MB; unpacking would add 800 MB
    assert _peak_rss_mb(server) - before < 150, (before, _peak_rss_mb(server))


def _peak_rss_mb(server: ServerProcess) -> int:
    status = Path(f"/proc/{server.process.pid}/status").read_text()
    return int(next(ln for ln in status.splitlines() if ln.startswith("VmHWM")).split()[1]) // 1024


@pytest.mark.parametrize("name", ["casos.json", "lote.jsonl", "dados.xml", "planilha.xlsx"])
def test_a_type_the_ingester_cannot_read_is_a_415_naming_the_file(
    server: ServerProcess, name: str
) -> None:
    r = _upload(server, [(name, b"{}")])
    assert r.status_code == 415 and r.json()["detail"].startswith(f"{name}: files of type")


@pytest.mark.parametrize("name", ["..", "٣٤", ".oculta", "a b"])
def test_a_bad_collection_name_is_refused_at_every_route(server: ServerProcess, name: str) -> None:
    from urllib.parse import quote

    h = {"X-API-Key": server.key}
    quoted = quote(name, safe="")
    upload = httpx.post(
        f"{server.url}/v1/collections/{quoted}/documents",
        files=[("files", ("lei.txt", LAW.encode(), "text/plain"))],
        headers=h,
    )
    library = httpx.post(
        f"{server.url}/v1/collections/{quoted}/library",
        files=[("files", ("refs.ris", b"TY  - JOUR\nER  - \n", "text/plain"))],
        headers=h,
    )
    create = httpx.post(f"{server.url}/v1/collections", json={"name": name}, headers=h)
    assert {upload.status_code, library.status_code, create.status_code} <= {404, 422}
    assert name not in [
        c["name"] for c in httpx.get(f"{server.url}/v1/collections", headers=h).json()
    ]


# -- the model: disconnects and leaks --------------------------------------------------------------


def test_a_file_that_needs_more_memory_than_the_bound_fails_alone(
    server: ServerProcess, tmp_path: Path
) -> None:
    # 8 MB of HTML holding a million paragraphs: no zip, no PDF, under every upload limit, but
    # its parse tree needs over a gigabyte. It is read in a child bounded to 400 MB.
    bomb = b"<html><body>" + b"<p>a</p>" * 1_000_000 + b"</body></html>"
    before = _peak_rss_mb(server)
    r = httpx.post(
        f"{server.url}/v1/collections/memoria/documents",
        files=[
            ("files", ("decreto.txt", LAW.encode(), "text/plain")),
            ("files", ("paragrafos.html", bomb, "text/html")),
        ],
        headers={"X-API-Key": server.key},
        timeout=120,
    )
    assert r.status_code == 202, r.text
    job = _job(server, r.json()["id"])
    assert job["status"] == "partial", job
    result = job["result"]
    assert isinstance(result, dict) and result["documents"] == 1
    assert [e["source"] for e in result["errors"]] == ["paragrafos.html"]
    assert result["errors"][0]["reason"].startswith("too much memory"), result["errors"]
    assert "400 MB" in result["errors"][0]["reason"]
    listed = httpx.get(
        f"{server.url}/v1/collections/memoria/documents", headers={"X-API-Key": server.key}
    )
    assert [d["doc_id"] for d in listed.json()] == ["decreto.txt"]
    assert httpx.get(f"{server.url}/healthz").status_code == 200  # the server keeps answering
    assert server.process.poll() is None
    # the server itself did not hold the tree: its peak RSS grew by less than 150 MB
    assert _peak_rss_mb(server) - before < 150, (before, _peak_rss_mb(server))


def test_a_client_that_gives_up_cancels_its_model_call(tmp_path: Path, sim_server: Any) -> None:
    # The model stalls for ten minutes on every chat call; only a disconnect ends the stall
    # early. The test waits on what the simulated model reports (one call in flight, then none),
    # never on a clock: the client goes away once the model call is known to be running, and
    # the call must end long before the stall or the service's model deadline would.
    import json

    from colmeia.sim import Reply, SimulatedModel

    sim = sim_server(SimulatedModel(responder=lambda req: Reply.stall(600.0)))
    home = tmp_path / "slow"
    env = {
        "COLMEIA_LLM_BASE_URL": sim.base_url,
        "COLMEIA_LLM_MODEL": "sim",
        "COLMEIA_LLM_TIMEOUT": "900",  # the service's own model deadline is out of reach too
    }
    srv = start_server(home, simulated=False, env=env)
    try:
        db = open_database(f"sqlite:///{home / 'service.db'}")
        _, key = create_key(db, "acme", "disconnect test")
        db.close()
        srv.key = key
        assert _job(srv, _upload(srv, [("lei.txt", LAW.encode())]).json()["id"])["status"] == (
            "succeeded"
        )
        body = json.dumps(
            {
                "question": "o que a lei diz sobre o acesso à informação pública?",
                "collections": ["leis"],
            }
        ).encode()
        head = (
            "POST /v1/ask HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"X-API-Key: {key}\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        client = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        client.sendall(head.encode() + body)
        _until(lambda: sim.sim.stats()["in_flight"] == 1, "the model call to start", srv)
        client.close()  # the client gives up while the model is still answering
        _until(lambda: sim.sim.stats()["in_flight"] == 0, "the model call to end", srv)
        assert sim.sim.stats()["requests"] == 1  # the service did not retry it either
        _until(lambda: "disconnected; its work was cancelled" in srv.log_tail(10**6), "log", srv)
        # the request's own log line (status 499) is written after the cancellation's: wait for
        # it too rather than read the log once (a fresh-clone run read it in between)
        _until(
            lambda: any(s in srv.log_tail(10**6) for s in ('"status": 499', '"status":499')),
            "the request logged with status 499",
            srv,
        )
    finally:
        stop_server(srv)


def _until(check: Any, what: str, srv: ServerProcess, limit_s: float = 120.0) -> None:
    """Wait for an observable event; the limit only turns a hang into a failure (it is far
    below the ten-minute stall, so a call that was not cancelled cannot pass)."""
    deadline = time.monotonic() + limit_s
    while not check():
        assert time.monotonic() < deadline, f"waited {limit_s:.0f} s for {what}\n{srv.log_tail()}"
        time.sleep(0.05)


def test_a_question_is_not_written_to_the_log_at_info(server: ServerProcess) -> None:
    _job(server, _upload(server, [("lei.txt", LAW.encode())]).json()["id"])
    marker = "zebra azul quarenta e dois"
    r = httpx.post(
        f"{server.url}/v1/ask",
        json={"question": f"acesso à informação pública {marker}?", "collections": ["leis"]},
        headers={"X-API-Key": server.key},
        timeout=60,
    )
    assert r.status_code == 200 and r.json()["usage"]["calls"] >= 1  # the model was asked
    time.sleep(0.3)
    log = server.log_tail(10**7)
    assert "POST /v1/ask 200" in log  # the request is logged …
    assert marker not in log  # … its content is not
