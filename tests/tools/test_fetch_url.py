"""fetch_url reads public pages and refuses private targets before any connection."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from colmeia.errors import ToolError, UnsafeTargetError
from colmeia.tools.builtins.fetch_url import FetchLimits, check_url, fetch_text, fetch_url_tool

PAGE = b"""<!doctype html><html><head><title>Pol\xc3\xadtica de reembolso</title>
<script>var secret = "do not show";</script><style>p {color: red}</style></head>
<body><nav>menu</nav><h1>Reembolsos</h1><p>Pedidos podem ser devolvidos em at\xc3\xa9 30 dias.</p>
<p>Produtos digitais n\xc3\xa3o t\xc3\xaam reembolso.</p></body></html>"""


class _Handler(BaseHTTPRequestHandler):
    hits: list[str]

    def do_GET(self) -> None:
        self.hits.append(self.path)
        if self.path == "/host":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(f"host={self.headers['Host']}".encode())
            return
        if self.path == "/redirect-to-metadata":
            self.send_response(302)
            self.send_header("Location", "http://169.254.169.254/latest/meta-data/")
            self.end_headers()
            return
        if self.path == "/big":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"a" * 50_000)
            return
        if self.path == "/image":
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.end_headers()
            self.wfile.write(b"\x89PNG")
            return
        if self.path == "/missing":
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def local_site() -> Iterator[tuple[str, list[str]]]:
    hits: list[str] = []
    handler = type("Handler", (_Handler,), {"hits": hits})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", hits
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://localhost/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://10.0.0.5/",
        "http://192.168.1.1/admin",
        "http://0.0.0.0/",
        "http://2130706433/",  # 127.0.0.1 written as one number
    ],
)
async def test_private_loopback_and_link_local_addresses_are_refused(url: str) -> None:
    with pytest.raises(UnsafeTargetError, match="refusing to fetch"):
        await check_url(url)


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://example.com/x", "gopher://x", "javascript:alert(1)"]
)
async def test_only_http_and_https_are_allowed(url: str) -> None:
    with pytest.raises(UnsafeTargetError, match="only http:// and https://"):
        await check_url(url)


async def test_refusal_happens_before_connecting(local_site: tuple[str, list[str]]) -> None:
    base, hits = local_site
    tool = fetch_url_tool()
    result = await tool.run({"url": f"{base}/policy"})
    assert not result.ok
    assert "loopback" in result.output
    assert hits == []  # the server never saw a request


async def test_metadata_stays_refused_even_when_private_addresses_are_allowed() -> None:
    with pytest.raises(UnsafeTargetError, match="link-local"):
        await check_url("http://169.254.169.254/", allow_private=True)


async def test_with_the_allow_flag_a_local_page_is_read_as_text(
    local_site: tuple[str, list[str]],
) -> None:
    base, hits = local_site
    tool = fetch_url_tool(allow_private=True)
    result = await tool.run({"url": f"{base}/policy"})
    assert result.ok, result.output
    assert result.output.startswith("Política de reembolso")
    assert "Pedidos podem ser devolvidos em até 30 dias." in result.output
    assert "secret" not in result.output
    assert "menu" not in result.output
    assert hits == ["/policy"]


async def test_redirects_are_checked_hop_by_hop(local_site: tuple[str, list[str]]) -> None:
    base, hits = local_site
    with pytest.raises(UnsafeTargetError, match=r"169\.254\.169\.254"):
        await fetch_text(f"{base}/redirect-to-metadata", allow_private=True)
    assert hits == ["/redirect-to-metadata"]


async def test_size_type_and_status_limits(local_site: tuple[str, list[str]]) -> None:
    base, _ = local_site
    with pytest.raises(ToolError, match="larger than 1000 bytes"):
        await fetch_text(f"{base}/big", allow_private=True, limits=FetchLimits(max_bytes=1000))
    text = await fetch_text(f"{base}/big", allow_private=True, limits=FetchLimits(max_chars=10))
    assert text.startswith("a" * 10)
    assert "cut at 10" in text
    with pytest.raises(ToolError, match="image/png"):
        await fetch_text(f"{base}/image", allow_private=True)
    with pytest.raises(ToolError, match="HTTP 404"):
        await fetch_text(f"{base}/missing", allow_private=True)


async def test_the_checked_address_is_used_and_the_host_name_kept(
    local_site: tuple[str, list[str]],
) -> None:
    base, _ = local_site
    port = base.rsplit(":", 1)[1]
    # localhost may resolve to ::1 first; the server only listens on 127.0.0.1
    text = await fetch_text(f"http://localhost:{port}/host", allow_private=True)
    assert text == f"host=localhost:{port}"
