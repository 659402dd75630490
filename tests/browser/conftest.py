"""Browser tests: Debian's Chromium, headless, driven by Playwright, against a real
``colmeia serve --simulated`` process on 127.0.0.1.

Skipped with a one-line reason when no chromium is installed (``apt-get install chromium``;
Playwright's own browser download is never used). Screenshots of every page go to
``$COLMEIA_SCREENSHOTS`` when set, else to a folder under pytest's temp dir; the path is printed.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from colmeia.service.db import open_database
from colmeia.service.keys import create_key

CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class RunningServer:
    url: str
    home: Path
    key: str
    process: subprocess.Popen[bytes]
    log: Path


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    wanted = os.environ.get("COLMEIA_SCREENSHOTS", "").strip()
    folder = Path(wanted) if wanted else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nbrowser screenshots: {folder}")
    return folder


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    if chromium_path() is None:
        pytest.skip("no chromium found (apt-get install chromium): browser tests not run")
    home = tmp_path_factory.mktemp("serve-home")
    db = open_database(f"sqlite:///{home / 'service.db'}")
    _, key = create_key(db, "demo", "browser tests", role="admin")
    db.close()
    port = _free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("COLMEIA_") or k == "COLMEIA_DATA_DIR"
    }
    env.update(
        COLMEIA_HOME=str(home), COLMEIA_SERVICE_LOG_FORMAT="json", COLMEIA_SERVICE_JOB_LEASE_S="5"
    )
    log = home / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "colmeia", "serve", "--simulated", "--port", str(port)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("server did not start:\n" + log.read_text()[-3000:])
        time.sleep(0.2)
    yield RunningServer(url, home, key, proc, log)
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="session")
def browser_context(
    server: RunningServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")  # a new, empty --user-data-dir
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile),
            executable_path=chromium_path(),
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 900},
            accept_downloads=True,
        )
        context.set_default_timeout(20_000)
        page = context.new_page()
        page.goto(f"{server.url}/ui/login")
        page.get_by_label("Chave de API").fill(server.key)
        page.get_by_role("button", name="Entrar").click()
        page.wait_for_url("**/ui/search")
        page.close()
        yield context
        context.close()


@pytest.fixture
def page(browser_context: Any) -> Iterator[Any]:
    p = browser_context.new_page()
    yield p
    p.close()
