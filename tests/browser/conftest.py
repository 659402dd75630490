"""Browser tests: Debian's Chromium, headless, driven by Playwright, against a real
``colmeia serve --simulated`` process on 127.0.0.1.

Skipped with a one-line reason when no chromium is installed (``apt-get install chromium``;
Playwright's own browser download is never used). Screenshots of every page go to
``$COLMEIA_SCREENSHOTS`` when set, else to a folder under pytest's temp dir; the path is printed.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from colmeia.service.db import open_database
from colmeia.service.keys import create_key
from serve_process import ServerProcess, start_server, stop_server

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


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    wanted = os.environ.get("COLMEIA_SCREENSHOTS", "").strip()
    folder = Path(wanted) if wanted else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nbrowser screenshots: {folder}")
    return folder


class SearchAPI:
    """A loopback web-search API (SearXNG-shaped) that records the queries it gets."""

    def __init__(self) -> None:
        self.queries: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.queries.append(self.path)
                body = json.dumps(
                    {
                        "results": [
                            {
                                "title": "Pauta publicada",
                                "url": "https://example.org/pauta",
                                "content": "Pauta da sessão plenária.",
                            }
                        ]
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/search"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture(scope="session")
def search_api() -> Iterator[SearchAPI]:
    api = SearchAPI()
    yield api
    api.server.shutdown()
    api.server.server_close()


@pytest.fixture(scope="session")
def server(
    tmp_path_factory: pytest.TempPathFactory, search_api: SearchAPI
) -> Iterator[ServerProcess]:
    if chromium_path() is None:
        pytest.skip("no chromium found (apt-get install chromium): browser tests not run")
    home = tmp_path_factory.mktemp("serve-home")
    db = open_database(f"sqlite:///{home / 'service.db'}")
    _, key = create_key(db, "demo", "browser tests", role="admin")
    db.close()
    running = start_server(home, env={"COLMEIA_SEARCH_URL": search_api.url})
    running.key = key
    yield running
    stop_server(running)


@pytest.fixture(scope="module")
def browser_context(
    server: ServerProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Any]:
    """A signed-in browser. Module-scoped: Playwright's sync API keeps an event loop running
    in this thread while it is open, which other tests' ``asyncio.run`` must not meet."""
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
