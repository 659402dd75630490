"""The attacks tried on ``colmeia serve`` (a real process on 127.0.0.1) and the refusal each
must get. Read top to bottom, this is the list: who tried what, what the service answers, and
what it must not do (read a body it will refuse, grow its database, unpack a bomb, …).

Issue 20 found each of these holding or not; every test here was seen failing with the
protection removed.
"""

from __future__ import annotations

import socket
import sqlite3
from collections.abc import Iterator

import httpx
import pytest

from colmeia.service.db import open_database
from colmeia.service.keys import create_key
from serve_process import ServerProcess, start_server, stop_server

pytestmark = pytest.mark.slow

LAW = "Art. 1º Esta lei dispõe sobre o acesso à informação pública.\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    home = tmp_path_factory.mktemp("hostile")
    srv = start_server(
        home,
        env={"COLMEIA_SERVICE_MAX_REQUEST_MB": "50", "COLMEIA_SERVICE_MAX_UPLOAD_MB": "25"},
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
