"""What a full-text fetch keeps and tells at its edges: a half left by a run before the address
was recorded beside it and that the server has no more bytes for (416), the PDF header that
must open the file (within its first 1024 bytes, as readers require), the size a refusal
names; which links a record tries first, how a host is paced; and how far a fetch goes: each
address once, its budget of addresses, its number of redirects.

A real HTTP server on 127.0.0.1 answers every request from one table of paths."""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from colmeia.apps.literature.fulltext import (
    FetchLimits,
    FetchOutcome,
    HostPacer,
    afetch_full_texts,
    fetch_full_texts,
    record_links,
)
from colmeia.apps.literature.records import Record

PDF = b"%PDF-1.4\n" + b"".join(b"%% page %04d\n" % i for i in range(300)) + b"%%EOF\n"

#: path -> (status, headers, body); the headers are sent as given
Answer = tuple[int, dict[str, str], bytes]


class Host:
    def __init__(self, address: str = "127.0.0.1") -> None:
        self.answers: dict[str, Answer] = {}
        self.delays: dict[str, float] = {}  # seconds before a path's answer
        self.ranges: list[str | None] = []
        host = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                host.ranges.append(self.headers.get("Range"))
                time.sleep(host.delays.get(self.path, 0.0))
                status, headers, body = host.answers[self.path]
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                # a client out of time has hung up: nothing to send it
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer((address, 0), Handler)
        self.base = f"http://{address}:{self.httpd.server_address[1]}"


@contextlib.contextmanager
def _serving(address: str = "127.0.0.1") -> Iterator[Host]:
    h = Host(address)
    threading.Thread(
        target=h.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    try:
        yield h
    finally:
        h.httpd.shutdown()
        h.httpd.server_close()


@pytest.fixture
def host() -> Iterator[Host]:
    with _serving() as h:
        yield h


def _pdf_answer(body: bytes) -> Answer:
    return 200, {"Content-Type": "application/pdf", "Content-Length": str(len(body))}, body


def _fetch(host: Host, path: str, tmp_path: Path, **limits: int) -> FetchOutcome:
    record = Record(title="Tese", links=[host.base + path])
    (outcome,) = fetch_full_texts(
        [record], tmp_path, limits=FetchLimits(host_delay=0.0, **limits), allow_private=True
    )
    return outcome


def _part(tmp_path: Path, host: Host, path: str) -> Path:
    record = Record(title="Tese", links=[host.base + path])
    return tmp_path / (re.sub(r"[^A-Za-z0-9._-]+", "_", record.id) + ".pdf.part")


NOTHING_MORE: Answer = (416, {"Content-Length": "0"}, b"")


def test_a_whole_half_left_without_its_address_is_kept_when_the_server_has_no_more(
    host: Host, tmp_path: Path
) -> None:
    # a run from before the address was recorded beside the half stopped after the last byte
    path = "/bitstream/1/tese.pdf"
    host.answers[path] = NOTHING_MORE
    part = _part(tmp_path, host, path)
    part.write_bytes(PDF)

    outcome = _fetch(host, path, tmp_path)

    assert host.ranges == [f"bytes={len(PDF)}-"]
    assert (outcome.outcome, outcome.bytes, outcome.detail) == ("fetched", len(PDF), "")
    assert Path(outcome.path).read_bytes() == PDF
    assert sorted(p.name for p in tmp_path.iterdir()) == [Path(outcome.path).name]


def test_a_half_without_its_address_that_is_no_pdf_is_refused_and_removed(
    host: Host, tmp_path: Path
) -> None:
    path = "/bitstream/1/tese.pdf"
    host.answers[path] = NOTHING_MORE
    part = _part(tmp_path, host, path)
    part.write_bytes(b"<html>sessao expirada</html>")

    outcome = _fetch(host, path, tmp_path)

    assert (outcome.outcome, outcome.url, outcome.detail) == (
        "failed",
        host.base + path,
        "the download is not a PDF (no %PDF- header)",
    )
    assert list(tmp_path.iterdir()) == []  # the next run starts over


@pytest.mark.parametrize(("offset", "kept"), [(0, True), (1019, True), (1020, False)])
def test_a_download_is_a_pdf_only_when_its_header_starts_within_the_first_1024_bytes(
    host: Host, tmp_path: Path, offset: int, kept: bool
) -> None:
    # a server may label anything application/pdf; a reader looks for the header in the first
    # 1024 bytes only, so a file whose header starts later is not one
    body = b"\n" * offset + PDF
    host.answers["/tese.pdf"] = _pdf_answer(body)

    outcome = _fetch(host, "/tese.pdf", tmp_path)

    if kept:
        assert outcome.outcome == "fetched" and Path(outcome.path).read_bytes() == body
    else:
        assert (outcome.outcome, outcome.detail) == (
            "failed",
            "the download is not a PDF (no %PDF- header)",
        )
        assert list(tmp_path.iterdir()) == []


def test_a_refusal_for_size_names_the_size_in_megabytes_of_a_million_bytes(
    host: Host, tmp_path: Path
) -> None:
    # 1 350 000 bytes are 1.35 MB, shown rounded to 1.4; a megabyte of any other size would
    # round it down
    host.answers["/tese.pdf"] = (
        200,
        {"Content-Type": "application/pdf", "Content-Length": "1350000"},
        PDF,
    )

    outcome = _fetch(host, "/tese.pdf", tmp_path, max_bytes=1_000_000)

    assert (outcome.outcome, outcome.detail) == ("too large", "1.4 MB is over the 1 MB limit")
    assert list(tmp_path.iterdir()) == []


def test_a_records_links_are_its_web_addresses_pdfs_first_then_its_doi() -> None:
    record = Record(
        title="Tese",
        links=[
            "https://a.example.org/item/1",
            "ftp://files.example.org/tese.pdf",  # not a web address: never fetched
            " HTTPS://b.example.org/Tese.PDF ",
            "https://a.example.org/item/1",
            "",
        ],
        doi="10.5555/tese.1 ",
    )
    assert record_links(record) == [
        "HTTPS://b.example.org/Tese.PDF",  # names a PDF: tried first
        "https://a.example.org/item/1",
        "https://doi.org/10.5555/tese.1",
    ]
    # a resolver written without its closing slash gets one
    assert (
        record_links(record, "http://127.0.0.1:8/doi")[-1]
        == "http://127.0.0.1:8/doi/10.5555/tese.1"
    )


def test_a_host_free_again_is_asked_at_once_and_a_busy_one_after_its_delay() -> None:
    # the pacer's own clock, stopped: the waits it books are told apart without racing time
    async def waits() -> list[float]:
        pacer = HostPacer(0.4, clock=lambda: 100.0)
        return [await pacer.reserve(host) for host in ("a", "b", "a", "a")]

    first_a, b, second_a, third_a = asyncio.run(waits())
    assert first_a == 0.0 and b == 0.0  # a host never asked waits for nothing
    assert second_a == pytest.approx(0.4) and third_a == pytest.approx(0.8)


def _html(*links: str, meta: str = "") -> Answer:
    tag = f'<meta name="citation_pdf_url" content="{meta}">' if meta else ""
    anchors = "".join(f'<a href="{u}">{u.rsplit("/", 1)[-1]}</a>' for u in links)
    body = f"<html><head>{tag}</head><body>{anchors}</body></html>".encode()
    return 200, {"Content-Type": "text/html", "Content-Length": str(len(body))}, body


def _moved(to: str) -> Answer:
    return 302, {"Location": to, "Content-Length": "0"}, b""


def test_a_page_offering_one_viewer_twice_still_reaches_the_pdf_after_it(
    host: Host, tmp_path: Path
) -> None:
    # the page's first PDF link moves to its viewer, which it also links itself: the viewer is
    # read once, and the real PDF after it is still tried
    host.answers["/handle/1/2"] = _html("/view/1.pdf", "/viewer/1.pdf", "/files/tese.pdf")
    host.answers["/view/1.pdf"] = _moved("/viewer/1.pdf")
    host.answers["/viewer/1.pdf"] = _html()
    host.answers["/files/tese.pdf"] = _pdf_answer(PDF)

    outcome = _fetch(host, "/handle/1/2", tmp_path)

    assert (outcome.outcome, outcome.url) == ("fetched", host.base + "/files/tese.pdf")
    assert len(host.ranges) == 4  # each address once


def test_a_page_that_links_itself_is_read_once(host: Host, tmp_path: Path) -> None:
    host.answers["/handle/1/2"] = _html("/handle/1/2", "/handle/1/2?mode=full")
    host.answers["/handle/1/2?mode=full"] = _html("/handle/1/2")

    outcome = _fetch(host, "/handle/1/2", tmp_path)

    assert (outcome.outcome, outcome.url, outcome.detail) == (
        "landing page without PDF",
        host.base + "/handle/1/2?mode=full",  # the last page read
        "the page offers no PDF (no citation_pdf_url, bitstream or .pdf link)",
    )
    assert len(host.ranges) == 2


@pytest.mark.parametrize(("depth", "fetched"), [(2, True), (3, False)])
def test_a_record_reads_at_most_its_budget_of_addresses(
    host: Host, tmp_path: Path, depth: int, fetched: bool
) -> None:
    # pages and redirects together: 3 addresses here, so the PDF behind two item pages is
    # fetched and the one behind three is not
    for i in range(1, depth):
        host.answers[f"/handle/1/{i}"] = _html(f"/handle/1/{i + 1}")
    host.answers[f"/handle/1/{depth}"] = _html(meta="/files/tese.pdf")
    host.answers["/files/tese.pdf"] = _pdf_answer(PDF)

    outcome = _fetch(host, "/handle/1/1", tmp_path, max_pages=2, max_redirects=1)

    if fetched:
        assert outcome.outcome == "fetched"
    else:
        assert (outcome.outcome, outcome.url) == (
            "landing page without PDF",
            host.base + "/handle/1/3",
        )
        assert len(host.ranges) == 3


@pytest.mark.parametrize(("hops", "fetched"), [(2, True), (3, False)])
def test_a_pdf_is_followed_through_as_many_redirects_as_allowed_and_no_more(
    host: Host, tmp_path: Path, hops: int, fetched: bool
) -> None:
    for i in range(hops):
        host.answers[f"/old/{i}"] = _moved(f"/old/{i + 1}" if i + 1 < hops else "/tese.pdf")
    host.answers["/tese.pdf"] = _pdf_answer(PDF)

    outcome = _fetch(host, "/old/0", tmp_path, max_redirects=2)

    if fetched:
        assert (outcome.outcome, outcome.url) == ("fetched", host.base + "/tese.pdf")
    else:
        # named by the address it was sent to last
        assert (outcome.outcome, outcome.url, outcome.detail) == (
            "failed",
            host.base + "/tese.pdf",
            "too many redirects",
        )
        assert len(host.ranges) == 3


def test_each_host_is_paced_on_its_own(tmp_path: Path) -> None:
    # two hosts (two loopback addresses): the second is not kept waiting by the first's delay
    with _serving("127.0.0.1") as one, _serving("127.0.0.2") as two:
        for h in (one, two):
            h.answers["/tese.pdf"] = _pdf_answer(PDF)
        records = [
            Record(title=f"Tese {i}", links=[h.base + "/tese.pdf"])
            for i, h in enumerate((one, two))
        ]
        # an hour between two requests to one host, and 20 s per record: a pacer shared by
        # the hosts would make the second record a timeout, however busy the machine
        outcomes = fetch_full_texts(
            records,
            tmp_path,
            limits=FetchLimits(host_delay=3600.0, timeout=20.0),
            allow_private=True,
        )
    assert [o.outcome for o in outcomes] == ["fetched", "fetched"]


@pytest.mark.parametrize("status", [400, 404, 500])
def test_an_error_answer_fails_naming_its_address_and_status(
    host: Host, tmp_path: Path, status: int
) -> None:
    host.answers["/tese.pdf"] = (status, {"Content-Type": "application/pdf"}, PDF)

    outcome = _fetch(host, "/tese.pdf", tmp_path)

    assert (outcome.outcome, outcome.url, outcome.detail) == (
        "failed",
        host.base + "/tese.pdf",
        f"the server answered {status}",
    )
    assert list(tmp_path.iterdir()) == []


def test_a_location_on_an_answer_that_is_no_redirect_is_not_followed(
    host: Host, tmp_path: Path
) -> None:
    host.answers["/tese.pdf"] = (
        200,
        {"Content-Type": "application/pdf", "Location": "/elsewhere.pdf"},
        PDF,
    )

    outcome = _fetch(host, "/tese.pdf", tmp_path)

    assert (outcome.outcome, outcome.url) == ("fetched", host.base + "/tese.pdf")
    assert len(host.ranges) == 1


def test_a_pdf_served_without_a_content_type_is_known_by_its_header(
    host: Host, tmp_path: Path
) -> None:
    host.answers["/bitstream/1/2"] = (200, {}, PDF)

    outcome = _fetch(host, "/bitstream/1/2", tmp_path)

    assert outcome.outcome == "fetched" and Path(outcome.path).read_bytes() == PDF


def test_a_download_of_no_announced_size_is_cut_at_the_limit_naming_its_address(
    host: Host, tmp_path: Path
) -> None:
    # no Content-Length: the size is only known while the bytes arrive
    host.answers["/tese.pdf"] = (200, {"Content-Type": "application/pdf"}, PDF)

    outcome = _fetch(host, "/tese.pdf", tmp_path, max_bytes=len(PDF) - 1)

    assert (outcome.outcome, outcome.url) == ("too large", host.base + "/tese.pdf")
    assert list(tmp_path.iterdir()) == []


def test_a_refused_address_is_named_in_its_outcome(tmp_path: Path) -> None:
    # a private address without allow_private: refused before any connection
    link = "http://127.0.0.1:9/tese.pdf"
    (outcome,) = fetch_full_texts(
        [Record(title="Tese", links=[link])], tmp_path, limits=FetchLimits(host_delay=0.0)
    )
    assert (outcome.outcome, outcome.url) == ("refused", link)


HALF = len(PDF) // 2


def _resume(host: Host, answer: Answer, tmp_path: Path, half: bytes = PDF[:HALF]) -> FetchOutcome:
    path = "/bitstream/1/tese.pdf"
    host.answers[path] = answer
    part = _part(tmp_path, host, path)
    part.write_bytes(half)
    part.with_suffix(".url").write_text(host.base + path, encoding="utf-8")
    return _fetch(host, path, tmp_path)


def _partial(start: int, body: bytes, ctype: str = "application/pdf") -> Answer:
    end = start + len(body) - 1
    headers = {"Content-Type": ctype, "Content-Length": str(len(body))}
    return 206, headers | {"Content-Range": f"bytes {start}-{end}/{len(PDF)}"}, body


def test_the_rest_of_a_file_is_appended_whatever_type_the_server_gives_it(
    host: Host, tmp_path: Path
) -> None:
    outcome = _resume(host, _partial(HALF, PDF[HALF:], "application/octet-stream"), tmp_path)
    assert host.ranges == [f"bytes={HALF}-"]
    assert (outcome.outcome, outcome.bytes) == ("fetched", len(PDF))
    assert Path(outcome.path).read_bytes() == PDF


def test_a_partial_answer_with_the_whole_file_replaces_the_half(host: Host, tmp_path: Path) -> None:
    # 206 for bytes 0-: the server ignored where the range started
    outcome = _resume(host, _partial(0, PDF), tmp_path)
    assert outcome.outcome == "fetched" and Path(outcome.path).read_bytes() == PDF


def test_a_partial_answer_from_elsewhere_in_the_file_is_not_glued_to_the_half(
    host: Host, tmp_path: Path
) -> None:
    outcome = _resume(host, _partial(HALF + 100, PDF[HALF + 100 :]), tmp_path)
    assert (outcome.outcome, outcome.detail) == (
        "failed",
        "the download is not a PDF (no %PDF- header)",
    )
    assert list(tmp_path.iterdir()) == []  # the next run starts over


def test_an_empty_rest_adds_nothing_to_a_whole_half(host: Host, tmp_path: Path) -> None:
    outcome = _resume(host, _partial(len(PDF), b""), tmp_path, half=PDF)
    assert outcome.outcome == "fetched" and Path(outcome.path).read_bytes() == PDF


def test_an_empty_answer_labelled_pdf_is_no_pdf(host: Host, tmp_path: Path) -> None:
    host.answers["/tese.pdf"] = _pdf_answer(b"")
    outcome = _fetch(host, "/tese.pdf", tmp_path)
    assert (outcome.outcome, outcome.detail) == (
        "failed",
        "the download is not a PDF (no %PDF- header)",
    )


def test_an_unlabelled_file_is_a_pdf_only_by_a_header_in_its_first_1024_bytes(
    host: Host, tmp_path: Path
) -> None:
    body = b"\n" * 1020 + PDF
    host.answers["/files/1"] = (
        200,
        {"Content-Type": "application/octet-stream", "Content-Length": str(len(body))},
        body,
    )
    outcome = _fetch(host, "/files/1", tmp_path)
    assert (outcome.outcome, outcome.url, outcome.detail) == (
        "failed",
        host.base + "/files/1",
        "neither a PDF nor a web page (application/octet-stream)",
    )


def _page(ctype: str, body: bytes) -> Answer:
    return 200, {"Content-Type": ctype, "Content-Length": str(len(body))}, body


LINK = b'<a href="/files/tese.pdf">PDF</a>'


@pytest.mark.parametrize(
    ("ctype", "body"),
    [
        ("text/plain", b"\n  <html><body>" + LINK + b"</body></html>"),  # known by its "<"
        ("text/html; charset=utf-8", b"Texto completo: " + LINK),  # known by its type
        ("TEXT/HTML", b"Texto completo: " + LINK),
    ],
    ids=["untyped-page", "typed-page", "typed-in-capitals"],
)
def test_a_landing_page_is_known_by_its_type_or_its_first_character(
    host: Host, tmp_path: Path, ctype: str, body: bytes
) -> None:
    host.answers["/handle/1/2"] = _page(ctype, body)
    host.answers["/files/tese.pdf"] = _pdf_answer(PDF)

    outcome = _fetch(host, "/handle/1/2", tmp_path)

    assert (outcome.outcome, outcome.url) == ("fetched", host.base + "/files/tese.pdf")


@pytest.mark.parametrize("filler", [300_000, 2_500_000])
def test_a_long_landing_page_is_read_past_its_first_piece_up_to_its_cap(
    host: Host, tmp_path: Path, filler: int
) -> None:
    # the link after 300 kB arrives in a later piece of the answer; a page past the 2 MB cap
    # is read up to the cap, and the link before the cap is still followed
    if filler < 2_000_000:
        body = b"<html><body><p>" + b"x" * filler + b"</p>" + LINK + b"</body></html>"
    else:
        body = b"<html><body>" + LINK + b"<p>" + b"x" * filler + b"</p></body></html>"
    host.answers["/handle/1/2"] = _page("text/html", body)
    host.answers["/files/tese.pdf"] = _pdf_answer(PDF)

    outcome = _fetch(host, "/handle/1/2", tmp_path)

    assert (outcome.outcome, outcome.url) == ("fetched", host.base + "/files/tese.pdf")


@pytest.mark.parametrize("limit", [len(PDF), len(PDF) - 1])
def test_an_announced_size_at_the_limit_is_fetched_and_one_byte_over_is_refused(
    host: Host, tmp_path: Path, limit: int
) -> None:
    host.answers["/tese.pdf"] = _pdf_answer(PDF)

    outcome = _fetch(host, "/tese.pdf", tmp_path, max_bytes=limit)

    if limit == len(PDF):
        assert outcome.outcome == "fetched"
    else:
        assert (outcome.outcome, outcome.detail) == (
            "too large",
            f"{len(PDF) / 1e6:.1f} MB is over the {limit / 1e6:g} MB limit",
        )
        assert host.ranges == [None] and list(tmp_path.iterdir()) == []


def test_a_page_with_a_stray_byte_still_offers_its_pdf(host: Host, tmp_path: Path) -> None:
    body = b"<html><body>Resumo: educa\xe7\xe3o " + LINK + b"</body></html>"  # latin-1 bytes
    host.answers["/handle/1/2"] = _page("text/html; charset=utf-8", body)
    host.answers["/files/tese.pdf"] = _pdf_answer(PDF)

    outcome = _fetch(host, "/handle/1/2", tmp_path)

    assert (outcome.outcome, outcome.url) == ("fetched", host.base + "/files/tese.pdf")


def test_a_page_is_read_in_the_charset_it_declares(host: Host, tmp_path: Path) -> None:
    body = '<html><body><a href="/files/educação.pdf">PDF</a></body></html>'.encode("latin-1")
    host.answers["/handle/1/2"] = _page("text/html; charset=iso-8859-1", body)
    host.answers["/files/educa%C3%A7%C3%A3o.pdf"] = _pdf_answer(PDF)

    outcome = _fetch(host, "/handle/1/2", tmp_path)

    assert outcome.outcome == "fetched"


def test_a_link_left_no_budget_by_the_links_before_it_is_named_unread(
    host: Host, tmp_path: Path
) -> None:
    # the PDF link (tried first) fails and uses the record's one address: the landing page
    # after it is not read, and the outcome names it
    host.answers["/files/tese.pdf"] = (404, {"Content-Length": "0"}, b"")
    links = [host.base + "/handle/1/2", host.base + "/files/tese.pdf"]
    (outcome,) = fetch_full_texts(
        [Record(title="Tese", links=links)],
        tmp_path,
        limits=FetchLimits(host_delay=0.0, max_pages=1, max_redirects=0),
        allow_private=True,
    )
    assert (outcome.outcome, outcome.url) == ("landing page without PDF", links[0])
    assert host.ranges == [None]


def test_every_outcome_carries_its_records_id_and_title_its_address_and_reason(
    host: Host, tmp_path: Path
) -> None:
    host.answers["/lenta.pdf"] = _pdf_answer(PDF)
    host.delays["/lenta.pdf"] = 3.0
    records = [
        Record(title="Sem link", year=2001),
        Record(title="Sem servidor", links=["http:///tese.pdf"]),
        Record(title="Lenta", links=[host.base + "/lenta.pdf"]),
    ]
    outcomes = fetch_full_texts(
        records, tmp_path, limits=FetchLimits(host_delay=0.0, timeout=1.0), allow_private=True
    )
    got = [(o.id, o.title, o.outcome, o.url, o.detail) for o in outcomes]
    assert got == [
        (records[0].id, "Sem link", "no link", "", "no http(s) link and no DOI"),
        (
            records[1].id,
            "Sem servidor",
            "failed",
            "http:///tese.pdf",
            "the URL 'http:///tese.pdf' has no host name",
        ),
        (records[2].id, "Lenta", "timeout", host.base + "/lenta.pdf", "no PDF within 1 s"),
    ]


def test_the_time_one_link_used_is_not_given_again_to_the_next(host: Host, tmp_path: Path) -> None:
    # the record has 1 s in all: the first link takes 0.7 s to fail, so the second, which
    # would answer in 0.6 s, is out of time
    host.answers["/a.pdf"] = (404, {"Content-Length": "0"}, b"")
    host.delays["/a.pdf"] = 0.7
    host.answers["/b.pdf"] = _pdf_answer(PDF)
    host.delays["/b.pdf"] = 0.6
    record = Record(title="Tese", links=[host.base + "/a.pdf", host.base + "/b.pdf"])
    (outcome,) = fetch_full_texts(
        [record], tmp_path, limits=FetchLimits(host_delay=0.0, timeout=1.0), allow_private=True
    )
    assert (outcome.outcome, outcome.url) == ("timeout", host.base + "/b.pdf")


def test_a_connection_refused_is_a_failure_named_by_its_error(tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nobody listens on once it is closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    link = f"http://127.0.0.1:{port}/tese.pdf"
    record = Record(title="Servidor fora do ar", links=[link])
    (outcome,) = fetch_full_texts(
        [record], tmp_path, limits=FetchLimits(host_delay=0.0), allow_private=True
    )
    assert (outcome.id, outcome.title, outcome.outcome, outcome.url) == (
        record.id,
        "Servidor fora do ar",
        "failed",
        link,
    )
    assert outcome.detail.startswith("ConnectError: ")


@pytest.mark.parametrize(
    ("answers", "outcome"),
    [
        # a size says more than an error, whichever link gave it
        (
            {"/a.pdf": (404, {}, b""), "/b.pdf": (200, {"Content-Length": "99000000"}, PDF)},
            ("too large", "/b.pdf"),
        ),
        (
            {"/a.pdf": (200, {"Content-Length": "99000000"}, PDF), "/b.pdf": (404, {}, b"")},
            ("too large", "/a.pdf"),
        ),
        # of two reasons alike, the first link's
        ({"/a.pdf": (404, {}, b""), "/b.pdf": (500, {}, b"")}, ("failed", "/a.pdf")),
    ],
)
def test_a_records_outcome_is_its_most_telling_reason_across_its_links(
    host: Host, tmp_path: Path, answers: dict[str, Answer], outcome: tuple[str, str]
) -> None:
    host.answers.update(answers)
    record = Record(title="Tese", links=[host.base + "/a.pdf", host.base + "/b.pdf"])
    (got,) = fetch_full_texts(
        [record], tmp_path, limits=FetchLimits(host_delay=0.0), allow_private=True
    )
    assert (got.outcome, got.url) == (outcome[0], host.base + outcome[1])


def test_a_record_whose_links_are_all_refused_is_refused(tmp_path: Path) -> None:
    links = ["http://127.0.0.1:9/a.pdf", "http://127.0.0.1:9/b.pdf"]
    (got,) = fetch_full_texts([Record(title="Tese", links=links)], tmp_path)
    assert (got.outcome, got.url) == ("refused", links[0])


def test_after_a_timeout_the_records_other_links_are_not_asked(host: Host, tmp_path: Path) -> None:
    host.answers["/a.pdf"] = _pdf_answer(PDF)
    host.delays["/a.pdf"] = 2.0
    host.answers["/b.pdf"] = _pdf_answer(PDF)
    record = Record(title="Tese", links=[host.base + "/a.pdf", host.base + "/b.pdf"])
    (got,) = fetch_full_texts(
        [record], tmp_path, limits=FetchLimits(host_delay=0.0, timeout=1.0), allow_private=True
    )
    assert (got.outcome, got.url) == ("timeout", host.base + "/a.pdf")
    assert len(host.ranges) == 1


def test_works_already_at_hand_are_not_fetched_and_progress_counts_every_record(
    host: Host, tmp_path: Path
) -> None:
    host.answers["/c.pdf"] = _pdf_answer(PDF)
    records = [Record(title=t, links=[host.base + f"/{t}.pdf"]) for t in ("a", "b", "c")]
    matched = tmp_path / "biblioteca" / "a.pdf"
    folder = tmp_path / "novos" / "pdfs"  # made, parents and all
    folder.mkdir(parents=True)
    earlier = folder / (re.sub(r"[^A-Za-z0-9._-]+", "_", records[1].id) + ".pdf")
    earlier.write_bytes(PDF)
    seen: list[tuple[int, int]] = []
    outcomes = fetch_full_texts(
        records,
        folder,
        have={records[0].id: matched},
        limits=FetchLimits(host_delay=0.0),
        allow_private=True,
        progress=lambda i, n: seen.append((i, n)),
    )
    assert [(o.id, o.title, o.outcome, o.path) for o in outcomes[:2]] == [
        (records[0].id, "a", "already here", str(matched)),
        (records[1].id, "b", "already here", str(earlier)),
    ]
    assert outcomes[2].outcome == "fetched"
    assert host.ranges == [None]  # only the third was asked for
    assert seen == [(1, 3), (2, 3), (3, 3)]


def test_a_new_folder_is_made_with_its_parents(host: Host, tmp_path: Path) -> None:
    host.answers["/a.pdf"] = _pdf_answer(PDF)
    folder = tmp_path / "revisao" / "textos" / "pdfs"
    (got,) = fetch_full_texts(
        [Record(title="a", links=[host.base + "/a.pdf"])],
        folder,
        limits=FetchLimits(host_delay=0.0),
        allow_private=True,
    )
    assert got.outcome == "fetched" and Path(got.path).parent == folder


def test_inside_an_event_loop_private_addresses_are_refused_unless_allowed(
    host: Host, tmp_path: Path
) -> None:
    host.answers["/a.pdf"] = _pdf_answer(PDF)
    record = Record(title="a", links=[host.base + "/a.pdf"])
    (got,) = asyncio.run(afetch_full_texts([record], tmp_path, limits=FetchLimits(host_delay=0.0)))
    assert got.outcome == "refused" and host.ranges == []
