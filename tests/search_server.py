"""A SearxNG-like search API on 127.0.0.1 for tests: it answers every query with the results it
was given (as SearxNG's JSON) and keeps the queries it was asked, in order."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class SearchServer:
    url: str
    queries: list[str] = field(default_factory=list)


@contextlib.contextmanager
def serve_search(results: list[dict[str, str]]) -> Iterator[SearchServer]:
    """A search server answering ``results`` (title, url, content) to every query."""
    body = json.dumps({"results": results}).encode()
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(parse_qs(urlsplit(self.path).query).get("q", [""])[0])
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield SearchServer(f"http://127.0.0.1:{server.server_address[1]}/search", asked)
    finally:
        server.shutdown()
        server.server_close()
