"""Start the simulated model server in its own process, so its CPU is not counted as ours."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def sim_process(*args: str) -> Iterator[str]:
    """Run ``colmeia sim serve`` with ``args``; yield its base URL; stop it afterwards."""
    port = free_port()
    cmd = [sys.executable, "-m", "colmeia", "sim", "serve", "--port", str(port), *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=os.environ)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{base}/v1/models", timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    err = proc.stderr.read().decode() if proc.stderr else ""
                    raise RuntimeError(f"simulated server did not start: {err}") from None
                time.sleep(0.1)
        yield f"{base}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    """Return once ``proc`` accepts connections on 127.0.0.1:``port``; exit if it died."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("the server did not start")


@contextlib.contextmanager
def stand_in_process(latency_ms: float) -> Iterator[str]:
    """The assistant's careful simulated stand-in in its own process; yields its base URL."""
    port = free_port()
    cmd = [sys.executable, "-m", "colmeia.apps.assistant.simulated", "--port", str(port)]
    proc = subprocess.Popen(
        [*cmd, "--latency-ms", str(latency_ms)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, proc)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        proc.wait(10)
