"""Start ``colmeia serve`` as a real process on 127.0.0.1 (for restart, browser and bench runs).

``start_server(home, ...)`` launches it with ``COLMEIA_HOME=home`` and waits for ``/readyz``;
``stop_server`` sends SIGTERM (graceful) and ``kill_server`` SIGKILL (a crash).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

__all__ = [
    "ServerProcess",
    "a_fresh_minute",
    "free_port",
    "kill_server",
    "start_server",
    "stop_server",
    "submit_moderation",
]


def a_fresh_minute(needed_s: float = 20.0) -> None:
    """Wait for the next clock minute when fewer than ``needed_s`` seconds are left of this
    one. The service counts requests (and failed sign-ins) per clock minute: a burst that
    straddles two minutes may be answered twice the limit (20 + 20 failed sign-ins, and 16 of
    16 requests for a limit of 12 across two replicas, were seen on loaded CI runs) — what a
    fixed window allows, not what the tests that burst are about."""
    left = 60 - time.time() % 60
    if left < needed_s:
        time.sleep(left + 0.2)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class ServerProcess:
    url: str
    home: Path
    port: int
    process: subprocess.Popen[bytes]
    log: Path
    key: str = ""

    def log_tail(self, chars: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-chars:] if self.log.exists() else ""


def start_server(
    home: Path,
    *,
    port: int | None = None,
    simulated: bool = True,
    env: dict[str, str] | None = None,
    timeout: float = 60.0,
) -> ServerProcess:
    """Run ``colmeia serve`` (``--simulated`` unless told otherwise) and wait until ready."""
    port = port or free_port()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
    if "COLMEIA_DATA_DIR" in os.environ:
        clean["COLMEIA_DATA_DIR"] = os.environ["COLMEIA_DATA_DIR"]
    clean.update(
        COLMEIA_HOME=str(home),
        COLMEIA_SERVICE_LOG_FORMAT="json",
        COLMEIA_SERVICE_JOB_LEASE_S="5",
        # tests and benches poll job status and pages poll progress with one key: at the
        # default 120 requests a minute a slow run got 429s (flaky); limits have tests of
        # their own
        COLMEIA_SERVICE_RATE_LIMIT_PER_MINUTE="1000000",
        # words only, as tests/conftest.py sets for in-process tests: embedding every upload
        # with the default offline model on two shared cores made a 171-record library import
        # outlast its test's wait (a test that wants vectors passes its own setting)
        COLMEIA_EMBEDDINGS_MODEL="none",
    )
    clean.update(env or {})
    args = [sys.executable, "-m", "colmeia", "serve", "--port", str(port)]
    if simulated:
        args.append("--simulated")
    log = home / f"server-{port}-{int(time.time() * 1000)}.log"
    home.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as out:
        proc = subprocess.Popen(args, env=clean, stdout=out, stderr=subprocess.STDOUT)
    server = ServerProcess(f"http://127.0.0.1:{port}", home, port, proc, log)
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"{server.url}/readyz", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("colmeia serve did not start:\n" + server.log_tail())
        time.sleep(0.1)


def stop_server(server: ServerProcess, timeout: float = 20.0) -> int:
    """SIGTERM and wait (running jobs go back to the queue); the exit code."""
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGTERM)
        try:
            server.process.wait(timeout)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()
    return int(server.process.returncode)


def kill_server(server: ServerProcess) -> None:
    """SIGKILL: the process dies mid-work, as in a crash or an OOM kill."""
    server.process.kill()
    server.process.wait()


def submit_moderation(
    url: str, headers: dict[str, str], items: Path, *, concurrency: int = 4
) -> str:
    """POST a records file as a moderation job (202 expected); the job's id."""
    r = httpx.post(
        f"{url}/v1/moderation/jobs",
        files=[("files", (items.name, items.read_bytes(), "application/json"))],
        data={"concurrency": str(concurrency)},
        headers=headers,
        timeout=30,
    )
    assert r.status_code == 202, r.text
    return str(r.json()["id"])
