"""`review import --fetch` finds the PDF behind a catalogue link, as a reader would: Sucupira's
record page → the repository item → its bitstream, a DSpace page's citation_pdf_url, a DOI that
redirects to a publisher page offering a PDF. Every record gets a named outcome.

The fixtures are a local HTTP server (127.0.0.1) serving pages shaped like those sites."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from colmeia.apps.literature import import_library
from colmeia.apps.literature.fulltext import FetchLimits, fetch_full_texts, pdf_links_in_html
from colmeia.apps.literature.records import Record
from colmeia.store import open_store
from shared_data import DATA_DIR

PDF = (DATA_DIR / "pdfs" / "abntex2" / "abntex2-modelo-livro.pdf").read_bytes()

SUCUPIRA = """<html><head><title>Plataforma Sucupira</title></head><body>
<h2>Dados do Trabalho de Conclusão</h2><p>Educação inclusiva na rede pública</p>
<a href="/sucupira/public/index.jsf">Início</a>
<p>Link para o trabalho: <a href="/jspui/handle/123/456">repositorio.ufg.br/handle/123/456</a></p>
</body></html>"""

DSPACE_ITEM = """<html><head>
<meta name="citation_title" content="Educação inclusiva na rede pública">
<meta name="citation_pdf_url" content="/jspui/bitstream/123/456/1/Dissertacao.pdf">
</head><body><a href="/jspui/bitstream/123/456/2/license.txt">Licença</a></body></html>"""

DSPACE7_ITEM = """<html><body><h1>Saneamento</h1>
<a href="/server/api/core/bitstreams/0f3c2a9e-1111-2222-3333-444455556666/download">Tese.pdf (1 MB)</a>
</body></html>"""

PUBLISHER = """<html><head>
<link rel="alternate" type="application/pdf" href="/article/9/pdf" title="PDF">
</head><body>Artigo</body></html>"""

NO_PDF = """<html><head><title>Registro</title></head><body>
<p>Este trabalho não possui divulgação autorizada.</p><a href="/busca">Nova busca</a></body></html>"""


@dataclass
class Site:
    base: str
    requests: list[tuple[float, str]] = field(default_factory=list)

    def paths(self) -> list[str]:
        return [p for _, p in self.requests]


@pytest.fixture
def site() -> Iterator[Site]:
    state = Site("")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state.requests.append((time.monotonic(), self.path))
            path = self.path.split("?")[0]
            pages = {
                "/sucupira/public/consultas/coleta/trabalhoConclusao/viewTrabalhoConclusao.jsf": SUCUPIRA,
                "/jspui/handle/123/456": DSPACE_ITEM,
                "/items/0f3c2a9e-aaaa": DSPACE7_ITEM,
                "/article/9": PUBLISHER,
                "/restrito": NO_PDF,
            }
            if path in pages:
                return self._send(200, pages[path].encode(), "text/html; charset=utf-8")
            if path == "/doi/10.5555/art.9":  # the DOI resolver: a redirect
                self.send_response(302)
                self.send_header("Location", "/article/9")
                self.end_headers()
                return None
            if path in (
                "/jspui/bitstream/123/456/1/Dissertacao.pdf",
                "/server/api/core/bitstreams/0f3c2a9e-1111-2222-3333-444455556666/download",
                "/article/9/pdf",
            ):
                return self._send(200, PDF, "application/pdf")
            if path == "/huge.pdf":  # says how big it is: refused before the body is read
                self.send_response(200)
                self.send_header("Content-Type", "application/pdf")
                self.send_header("Content-Length", str(50_000_000))
                self.end_headers()
                self.wfile.write(PDF[:1000])
                return None
            if path == "/slow":
                time.sleep(3)
                return self._send(200, NO_PDF.encode(), "text/html")
            return self._send(404, b"not found", "text/plain")

        def _send(self, code: int, body: bytes, ctype: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.base = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def _records(base: str) -> list[Record]:
    return [
        Record(
            title="Educação inclusiva na rede pública",
            links=[
                f"{base}/sucupira/public/consultas/coleta/trabalhoConclusao/"
                "viewTrabalhoConclusao.jsf?popup=true&id_trabalho=123"
            ],
        ),
        Record(title="Saneamento em municípios pequenos", links=[f"{base}/items/0f3c2a9e-aaaa"]),
        Record(title="Um artigo com DOI", doi="10.5555/art.9"),
        Record(title="Trabalho sem divulgação autorizada", links=[f"{base}/restrito"]),
        Record(title="Um PDF grande demais", links=[f"{base}/huge.pdf"]),
        Record(title="Um registro sem link"),
    ]


def test_landing_pages_lead_to_their_pdfs_and_every_record_has_an_outcome(
    site: Site, tmp_path: Path
) -> None:
    outcomes = fetch_full_texts(
        _records(site.base),
        tmp_path,
        limits=FetchLimits(max_bytes=10_000_000, timeout=10, host_delay=0.0),
        allow_private=True,
        doi_resolver=f"{site.base}/doi/",
    )
    got = {o.title: (o.outcome, o.url.removeprefix(site.base)) for o in outcomes}
    assert got == {
        # Sucupira's page names no PDF but links the repository item, whose meta tag does.
        "Educação inclusiva na rede pública": (
            "fetched",
            "/jspui/bitstream/123/456/1/Dissertacao.pdf",
        ),
        # DSpace 7: no meta tag, an anchor to the bitstream's download.
        "Saneamento em municípios pequenos": (
            "fetched",
            "/server/api/core/bitstreams/0f3c2a9e-1111-2222-3333-444455556666/download",
        ),
        # DOI → 302 → publisher page → <link rel=alternate type=application/pdf>.
        "Um artigo com DOI": ("fetched", "/article/9/pdf"),
        "Trabalho sem divulgação autorizada": ("landing page without PDF", "/restrito"),
        "Um PDF grande demais": ("too large", "/huge.pdf"),
        "Um registro sem link": ("no link", ""),
    }
    for o in outcomes:
        if o.outcome == "fetched":
            assert Path(o.path).read_bytes() == PDF
            assert o.bytes == len(PDF)
    assert "50.0 MB is over the 10 MB limit" in got_detail(outcomes, "Um PDF grande demais")
    assert not list(tmp_path.glob("*.part"))  # nothing half-written left behind


def got_detail(outcomes: list, title: str) -> str:  # type: ignore[type-arg]
    return next(o.detail for o in outcomes if o.title == title)


def test_a_refused_address_is_never_contacted_and_a_slow_one_times_out(
    site: Site, tmp_path: Path
) -> None:
    refused = fetch_full_texts(
        _records(site.base)[:1], tmp_path, limits=FetchLimits(host_delay=0.0)
    )
    assert refused[0].outcome == "refused"
    assert "loopback" in refused[0].detail
    assert site.requests == []  # refused before connecting
    slow = fetch_full_texts(
        [Record(title="Servidor lento", links=[f"{site.base}/slow"])],
        tmp_path,
        limits=FetchLimits(timeout=1.0, host_delay=0.0),
        allow_private=True,
    )
    assert (slow[0].outcome, slow[0].detail) == ("timeout", "no PDF within 1 s")


def test_one_host_is_asked_at_most_once_per_delay(site: Site, tmp_path: Path) -> None:
    fetch_full_texts(
        _records(site.base)[:2],
        tmp_path,
        limits=FetchLimits(host_delay=1.0),
        allow_private=True,
    )
    times = [t for t, _ in site.requests]
    assert len(times) == 5  # sucupira, item, bitstream; item, bitstream
    gaps = [b - a for a, b in itertools.pairwise(times)]
    # The server stamps a request when its thread runs, so on a busy machine two stamps can
    # come up to a few tenths of a second closer than the client's wait (0.21 s for a 0.3 s
    # delay at load 12); without the wait the gaps are ~0.1 s. A 1 s delay keeps the two apart.
    assert min(gaps) >= 0.7


def test_pdf_links_in_html_prefer_the_meta_tag_and_make_addresses_absolute() -> None:
    pdfs, items = pdf_links_in_html(DSPACE_ITEM, "https://repositorio.ufg.br/jspui/handle/1/2")
    assert pdfs[0] == "https://repositorio.ufg.br/jspui/bitstream/123/456/1/Dissertacao.pdf"
    pdfs, items = pdf_links_in_html(SUCUPIRA, "https://sucupira.capes.gov.br/x/view.jsf")
    assert pdfs == []
    assert items == ["https://sucupira.capes.gov.br/jspui/handle/123/456"]


def test_import_stores_each_outcome_with_the_work_and_reads_the_fetched_text(
    site: Site, tmp_path: Path
) -> None:
    ris = tmp_path / "c.ris"
    ris.write_text(
        "TY  - THES\nTI  - Educação inclusiva na rede pública\nPY  - 2021\n"
        f"UR  - {site.base}/jspui/handle/123/456\nER  - \n"
        "TY  - THES\nTI  - Trabalho sem divulgação autorizada\nPY  - 2020\n"
        f"UR  - {site.base}/restrito\nER  - \n",
        encoding="utf-8",
    )
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", cache_dir=tmp_path / "cache")
    try:
        report = import_library(
            store,
            "teses",
            [ris],
            fetch=True,
            fetch_dir=tmp_path / "pdfs",
            limits=FetchLimits(host_delay=0.0),
            allow_private=True,
        )
        assert (report.fetched, report.with_pdf) == (1, 1)
        assert [o.outcome for o in report.fetch] == ["fetched", "landing page without PDF"]
        assert report.as_dict()["fetch"][1]["url"] == f"{site.base}/restrito"
        [missing] = report.missing
        assert missing.reason.startswith("could not fetch (landing page without PDF)")
        docs = {d.title: d for d in store.documents("teses")}
        kept = docs["Educação inclusiva na rede pública"].metadata["fulltext"]
        assert kept["outcome"] == "fetched"
        assert docs["Trabalho sem divulgação autorizada"].metadata["fulltext"]["outcome"] == (
            "landing page without PDF"
        )
        # The fetched PDF is the work's full text: pages beyond the record page were indexed.
        assert docs["Educação inclusiva na rede pública"].n_chunks > 1
    finally:
        store.close()


def test_cli_shows_the_outcome_of_each_record(site: Site, colmeia_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "c.ris").write_text(
        "TY  - THES\nTI  - Trabalho sem divulgação autorizada\nPY  - 2020\n"
        f"UR  - {site.base}/restrito\nER  - \n",
        encoding="utf-8",
    )
    code, out, err = colmeia_cli(
        "review",
        "import",
        "c.ris",
        "-c",
        "teses",
        "--fetch",
        "--delay",
        "0",
        env={"COLMEIA_SEARCH_ALLOW_PRIVATE": "true"},
    )
    assert code == 0, err
    # the table may fold a cell over lines (its console's width is fixed when the CLI module is
    # first imported): read the words, not the line
    words = out.split()
    assert all(w in words for w in ("landing", "page", "without", "PDF")), out
    assert "restrito" in out


def test_a_fetch_connects_to_the_address_that_passed_the_check(
    site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # DNS rebinding needs a second lookup between the check and the connection: the name
    # must be resolved once per URL (by the check), and the connection made to that address
    import socket

    real = socket.getaddrinfo
    asked: list[str] = []

    def counting(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "repositorio.test":
            asked.append(host)
            return real("127.0.0.1", port, *args, **kwargs)
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", counting)
    port = site.base.rsplit(":", 1)[1]
    record = Record(
        title="Dissertação", links=[f"http://repositorio.test:{port}/jspui/handle/123/456"]
    )
    [outcome] = fetch_full_texts(
        [record],
        tmp_path,
        limits=FetchLimits(max_bytes=10_000_000, timeout=10, host_delay=0.0),
        allow_private=True,
    )
    assert outcome.outcome == "fetched", outcome
    assert site.paths() == ["/jspui/handle/123/456", "/jspui/bitstream/123/456/1/Dissertacao.pdf"]
    assert len(asked) == 2  # two URLs, each resolved by its check alone
