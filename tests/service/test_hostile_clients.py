"""Issue 34 against a real ``colmeia serve`` on 127.0.0.1: clients that lie about their address,
race the sign-in throttle, or send their request a byte at a time. (bench/probes.py measures the
same at the issue's sizes: 150 connections, 150 concurrent keys.)"""

from __future__ import annotations

import concurrent.futures
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from colmeia.service.db import open_database
from colmeia.service.keys import create_key
from colmeia.service.server import uvicorn_config
from colmeia.service.settings import ServiceSettings
from serve_process import ServerProcess, a_fresh_minute, start_server, stop_server

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    home = tmp_path_factory.mktemp("clients")
    srv = start_server(
        home,
        env={"COLMEIA_SERVICE_HEADER_TIMEOUT_S": "2", "COLMEIA_SERVICE_BODY_TIMEOUT_S": "2"},
    )
    db = open_database(f"sqlite:///{home / 'service.db'}")
    _, srv.key = create_key(db, "acme", "clients")
    db.close()
    yield srv
    stop_server(srv)


def test_forwarded_headers_are_believed_only_from_configured_proxies(tmp_path: Path) -> None:
    default = uvicorn_config(object(), host="127.0.0.1", port=1, service=ServiceSettings())
    assert default.proxy_headers is False  # uvicorn's own default believes loopback
    proxied = ServiceSettings(trusted_proxies="10.0.0.5, 10.1.0.0/16")  # type: ignore[arg-type]
    config = uvicorn_config(object(), host="127.0.0.1", port=1, service=proxied)
    assert config.proxy_headers is True and config.forwarded_allow_ips == [
        "10.0.0.5",
        "10.1.0.0/16",
    ]


def test_rotating_x_forwarded_for_does_not_escape_the_throttle(server: ServerProcess) -> None:
    a_fresh_minute()
    transport = httpx.HTTPTransport(local_address="127.0.0.5")
    with httpx.Client(transport=transport) as client:
        codes = [
            client.get(
                f"{server.url}/v1/me",
                headers={"X-API-Key": f"cmk_bad{i}", "X-Forwarded-For": f"10.9.{i}.1"},
            ).status_code
            for i in range(30)
        ]
    assert codes[:20] == [401] * 20 and set(codes[20:]) == {429}


def test_concurrent_bad_keys_get_no_more_answers_than_the_limit(server: ServerProcess) -> None:
    a_fresh_minute()
    transport = httpx.HTTPTransport(local_address="127.0.0.6")
    limits = httpx.Limits(max_connections=100)
    with (
        httpx.Client(transport=transport, limits=limits) as client,
        concurrent.futures.ThreadPoolExecutor(50) as pool,
    ):
        codes = list(
            pool.map(
                lambda i: (
                    client.get(
                        f"{server.url}/v1/me", headers={"X-API-Key": f"cmk_race{i}"}
                    ).status_code
                ),
                range(100),
            )
        )
    assert codes.count(401) == 20 and codes.count(429) == 80


def test_connections_that_never_finish_their_headers_are_closed(server: ServerProcess) -> None:
    socks = []
    for _ in range(20):
        s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        socks.append(s)
    time.sleep(1.0)
    for s in socks:
        s.sendall(b"X-a: b\r\n")  # a line now and then, as slowloris does
    closed = 0
    for s in socks:
        s.settimeout(6)  # the header timeout is 2 s
        try:
            closed += s.recv(1) == b""
        except TimeoutError:
            pass
        s.close()
    assert closed == 20


def test_a_body_that_stops_arriving_is_a_408(server: ServerProcess) -> None:
    head = (
        f"POST /v1/search HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: {server.key}\r\n"
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"query"'
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(head.encode())
        received = b""
        while chunk := s.recv(65536):  # the answer, then the server closes the connection
            received += chunk
        answer = received.decode("latin-1")
    assert answer.startswith("HTTP/1.1 408"), answer
    assert "COLMEIA_SERVICE_BODY_TIMEOUT_S" in answer
