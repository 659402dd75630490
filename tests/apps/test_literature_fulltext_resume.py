"""An interrupted full-text download is continued where it stopped, and only when the server
really sends the rest: a server that ignores the Range request and answers 200 with the whole
file must not have that file appended to the half already on disk.

A real HTTP server on 127.0.0.1 answers each way (206 with the rest, 200 with everything, 416).
Last, what a landing page offers to download: its PDF links in any letter case."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from colmeia.apps.literature.fulltext import (
    FetchLimits,
    FetchOutcome,
    fetch_full_texts,
    pdf_links_in_html,
)
from colmeia.apps.literature.records import Record

# a small, well-formed PDF body: its bytes are all that matter here
PDF = (
    b"%PDF-1.4\n" + b"".join(b"%% line %05d of the thesis\n" % i for i in range(4000)) + b"%%EOF\n"
)
HALF = len(PDF) // 2


class Server:
    def __init__(
        self, honours_range: bool, refuses_ranges: bool = False, path: str = "/bitstream/1/tese.pdf"
    ) -> None:
        self.honours_range = honours_range
        # answers every request with 416 Range Not Satisfiable, as a server does when the
        # range starts at (or past) the end of the file
        self.refuses_ranges = refuses_ranges
        self.ranges: list[str | None] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                wanted = self.headers.get("Range")
                server.ranges.append(wanted)
                m = re.fullmatch(r"bytes=(\d+)-", wanted or "")
                if server.refuses_ranges:
                    self.send_response(416)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if m and server.honours_range:
                    start = int(m.group(1))
                    body = PDF[start:]
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(PDF) - 1}/{len(PDF)}")
                else:
                    body = PDF
                    self.send_response(200)
                self.send_header("Content-Type", "application/pdf")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"


@pytest.fixture(params=[True, False], ids=["answers-206", "ignores-range-200"])
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    s = Server(honours_range=request.param)
    threading.Thread(
        target=s.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    try:
        yield s
    finally:
        s.httpd.shutdown()
        s.httpd.server_close()


def test_a_resumed_download_is_the_whole_file_whatever_the_server_does_with_the_range(
    server: Server, tmp_path: Path
) -> None:
    record = Record(title="Tese interrompida", links=[server.url])
    part = tmp_path / (re.sub(r"[^A-Za-z0-9._-]+", "_", record.id) + ".pdf.part")
    part.write_bytes(PDF[:HALF])  # what the interrupted run left
    part.with_suffix(".url").write_text(server.url, encoding="utf-8")

    (outcome,) = fetch_full_texts(
        [record], tmp_path, limits=FetchLimits(host_delay=0.0), allow_private=True
    )

    assert server.ranges == [f"bytes={HALF}-"]  # it did ask for the rest only
    assert outcome.outcome == "fetched"
    assert Path(outcome.path).read_bytes() == PDF
    assert outcome.bytes == len(PDF)
    assert not list(tmp_path.glob("*.part")) and not list(tmp_path.glob("*.url"))


def test_a_half_download_from_another_address_is_started_over(tmp_path: Path) -> None:
    s = Server(honours_range=True)
    threading.Thread(
        target=s.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    try:
        record = Record(title="Tese", links=[s.url])
        part = tmp_path / (re.sub(r"[^A-Za-z0-9._-]+", "_", record.id) + ".pdf.part")
        part.write_bytes(b"%PDF-1.4 another work's first half")
        part.with_suffix(".url").write_text(s.url + "?other", encoding="utf-8")
        (outcome,) = fetch_full_texts(
            [record], tmp_path, limits=FetchLimits(host_delay=0.0), allow_private=True
        )
    finally:
        s.httpd.shutdown()
        s.httpd.server_close()
    assert s.ranges == [None]
    assert Path(outcome.path).read_bytes() == PDF


def _fetch_from(
    server: Server,
    tmp_path: Path,
    part_bytes: bytes | None,
    *,
    mark: bool = True,
    limits: FetchLimits | None = None,
) -> tuple[FetchOutcome, Path]:
    threading.Thread(
        target=server.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    try:
        record = Record(title="Tese", links=[server.url])
        part = tmp_path / (re.sub(r"[^A-Za-z0-9._-]+", "_", record.id) + ".pdf.part")
        if part_bytes is not None:
            part.write_bytes(part_bytes)
            if mark:
                part.with_suffix(".url").write_text(server.url, encoding="utf-8")
        (outcome,) = fetch_full_texts(
            [record], tmp_path, limits=limits or FetchLimits(host_delay=0.0), allow_private=True
        )
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
    return outcome, part


def test_a_download_stopped_after_its_last_byte_is_kept_when_the_server_has_no_more(
    tmp_path: Path,
) -> None:
    server = Server(honours_range=True, refuses_ranges=True)
    outcome, _ = _fetch_from(server, tmp_path, PDF)
    assert server.ranges == [f"bytes={len(PDF)}-"]
    assert outcome.outcome == "fetched"
    assert Path(outcome.path).read_bytes() == PDF


def test_a_416_to_a_fresh_download_is_a_failure_not_an_empty_file(tmp_path: Path) -> None:
    server = Server(honours_range=True, refuses_ranges=True)
    outcome, part = _fetch_from(server, tmp_path, None)
    assert server.ranges == [None]  # nothing on disk: no range was asked for
    assert outcome.outcome == "failed"
    assert outcome.detail == "the server answered 416"
    assert not list(tmp_path.glob("*.pdf")) and not part.exists()


@pytest.mark.parametrize(
    ("path", "resumed"),
    [
        ("/files/tese.pdf", True),  # a link that names a PDF
        ("/bitstream/handle/1/2", True),  # a repository's bitstream
        ("/server/api/core/bitstreams/9/content", True),
        ("/view/artigo?id=3", False),  # a page that happened to answer with a PDF
    ],
)
def test_a_half_left_without_its_address_is_resumed_only_from_a_pdf_or_bitstream_link(
    tmp_path: Path, path: str, resumed: bool
) -> None:
    # a .part from before the address was recorded beside it
    server = Server(honours_range=True, path=path)
    outcome, part = _fetch_from(server, tmp_path, PDF[:HALF], mark=False)
    assert server.ranges == ([f"bytes={HALF}-"] if resumed else [None])
    assert outcome.outcome == "fetched"
    assert Path(outcome.path).read_bytes() == PDF and not part.exists()


@pytest.mark.parametrize("limit", [len(PDF), len(PDF) - 1])
def test_a_resumed_download_is_held_to_the_size_limit_as_a_whole(
    tmp_path: Path, limit: int
) -> None:
    server = Server(honours_range=True)
    outcome, part = _fetch_from(
        server, tmp_path, PDF[:HALF], limits=FetchLimits(host_delay=0.0, max_bytes=limit)
    )
    assert server.ranges == [f"bytes={HALF}-"]
    if limit == len(PDF):  # the limit itself is allowed
        assert outcome.outcome == "fetched" and Path(outcome.path).read_bytes() == PDF
        return
    assert outcome.outcome == "too large"
    assert outcome.detail == f"{len(PDF) / 1e6:.1f} MB is over the {limit / 1e6:g} MB limit"
    # nothing is kept: the next run starts over instead of resuming a refused file
    assert not part.exists() and not part.with_suffix(".url").exists()
    assert not list(tmp_path.glob("*.pdf"))


LANDING = """<html><head>
<base href="https://repo.example.org/jspui/">
<META NAME="Citation_PDF_URL" CONTENT="bitstream/1/2/tese.pdf">
<link rel="alternate" type="Application/PDF" href="https://repo.example.org/alt/tese.pdf">
</head><body>
<a href="files/ANEXO.PDF">Anexo</a>
<a href="https://repo.example.org/x/42">Texto completo (PDF)</a>
<a href="https://repo.example.org/y/43">Baixar PDF</a>
<a href="#topo">PDF</a>
<a href="mailto:bib@example.org">PDF</a>
<a>PDF</a>
<a href="../jspui/handle/123/456">Registro</a>
</body></html>"""


def test_a_landing_page_offers_its_pdfs_in_any_letter_case_against_its_base_address() -> None:
    pdfs, items = pdf_links_in_html(LANDING, "https://other.example.org/page")
    assert pdfs == [
        "https://repo.example.org/jspui/bitstream/1/2/tese.pdf",  # the meta tag first
        "https://repo.example.org/alt/tese.pdf",
        "https://repo.example.org/jspui/files/ANEXO.PDF",
        "https://repo.example.org/y/43",  # an anchor whose words include "PDF"
    ]
    assert items == ["https://repo.example.org/jspui/handle/123/456"]


class Site:
    """A host that moves its PDF (``/old`` answers ``status`` with a Location to ``/tese.pdf``)
    and serves, under ``/fake.pdf``, a page that says it is a PDF and is not."""

    def __init__(self, status: int = 301) -> None:
        self.status = status

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path == "/old":
                    self.send_response(status)
                    self.send_header("Location", "/tese.pdf")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = PDF if self.path == "/tese.pdf" else b"<html>login required</html>"
                self.send_response(200)
                self.send_header("Content-Type", "application/pdf")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def fetch(self, path: str, tmp_path: Path) -> FetchOutcome:
        threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        try:
            record = Record(title="Tese", links=[self.base + path])
            (outcome,) = fetch_full_texts(
                [record], tmp_path, limits=FetchLimits(host_delay=0.0), allow_private=True
            )
        finally:
            self.httpd.shutdown()
            self.httpd.server_close()
        return outcome


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_moved_pdf_is_followed_to_its_new_address(tmp_path: Path, status: int) -> None:
    site = Site(status)
    outcome = site.fetch("/old", tmp_path)
    assert (outcome.outcome, outcome.url) == ("fetched", site.base + "/tese.pdf")
    assert Path(outcome.path).read_bytes() == PDF


def test_a_download_labelled_pdf_that_is_not_one_is_refused_and_not_kept(tmp_path: Path) -> None:
    site = Site()
    outcome = site.fetch("/fake.pdf", tmp_path)
    assert (outcome.outcome, outcome.url) == ("failed", site.base + "/fake.pdf")
    assert outcome.detail == "the download is not a PDF (no %PDF- header)"
    assert not list(tmp_path.iterdir())  # no file, no half, no address left behind


class CutServer:
    """Sends half of the PDF and drops the connection; answers a Range with the rest (206)."""

    def __init__(self) -> None:
        self.ranges: list[str | None] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                wanted = self.headers.get("Range")
                server.ranges.append(wanted)
                m = re.fullmatch(r"bytes=(\d+)-", wanted or "")
                start = int(m.group(1)) if m else 0
                self.send_response(206 if m else 200)
                self.send_header("Content-Type", "application/pdf")
                self.send_header("Content-Length", str(len(PDF) - start))
                self.end_headers()
                # the first answer stops half-way: the connection closes after this write
                self.wfile.write(PDF[start:] if m else PDF[:HALF])

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/files/tese"


def test_a_download_cut_half_way_is_resumed_by_the_next_run(tmp_path: Path) -> None:
    server = CutServer()
    threading.Thread(
        target=server.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    record = Record(title="Tese cortada", links=[server.url])
    limits = FetchLimits(host_delay=0.0)
    try:
        (first,) = fetch_full_texts([record], tmp_path, limits=limits, allow_private=True)
        assert first.outcome == "failed"
        # what arrived is kept, with the address it came from (the link names no PDF)
        (part,) = tmp_path.glob("*.part")
        assert PDF.startswith(part.read_bytes()) and part.stat().st_size > 0
        assert part.with_suffix(".url").read_text(encoding="utf-8") == server.url
        have = part.stat().st_size
        (second,) = fetch_full_texts([record], tmp_path, limits=limits, allow_private=True)
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
    assert server.ranges == [None, f"bytes={have}-"]
    assert second.outcome == "fetched" and Path(second.path).read_bytes() == PDF
