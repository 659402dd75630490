"""Full text for records: from a record's links to the work's PDF, politely and within limits.

Catalogue links rarely name a PDF: a CAPES/Sucupira record points at a landing page, a
repository (DSpace) at an item page whose PDF is a ``/bitstream/`` link, a DOI at a redirect to
the publisher's page. So a link is followed like a reader would: redirects by hand (every hop
checked with :func:`colmeia.tools.builtins.fetch_url.check_url` *before* connecting), and an
HTML page is read for the PDF it offers — the ``citation_pdf_url`` meta tag (Google Scholar's,
which DSpace, OJS and most repositories print), its ``eprints``/``bepress``/``DC`` twins,
``<link rel="alternate" type="application/pdf">``, then anchors to bitstreams or ``.pdf`` files
and, one page deeper, anchors to a repository item (Sucupira's "link do trabalho").

Each host is asked at most once per ``FetchLimits.host_delay`` seconds, a PDF larger than
``max_bytes`` is refused from its ``Content-Length`` or cut off when the stream passes it, and a
record's whole fetch has ``timeout`` seconds. Every record gets an outcome (see
:data:`OUTCOMES`) with the address and the reason, so a failed fetch is named, never dropped.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from colmeia.apps.literature.records import Record
from colmeia.errors import ColmeiaError, UnsafeTargetError

__all__ = [
    "DOI_RESOLVER",
    "OUTCOMES",
    "FetchLimits",
    "FetchOutcome",
    "HostPacer",
    "fetch_full_texts",
    "pdf_links_in_html",
    "record_links",
]

log = logging.getLogger(__name__)

#: What happened to one record's fetch.
OUTCOMES = (
    "fetched",  # a PDF was saved
    "already here",  # the PDF was matched locally or fetched by an earlier run
    "landing page without PDF",  # the pages were read but offer no PDF
    "refused",  # an address colmeia may not contact (checked before connecting)
    "too large",  # over max_bytes
    "timeout",  # the record's fetch ran out of time
    "failed",  # HTTP errors, not a PDF, connection errors
    "no link",  # the record has no http(s) link or DOI
)
_SAFE_RE = re.compile(r"[^A-Za-z0-9._-]+")
_PDF_META = (
    "citation_pdf_url",
    "bepress_citation_pdf_url",
    "eprints.document_url",
    "wkhealth_pdf_url",
    "dc.identifier.pdf",
)
_BITSTREAM_RE = re.compile(r"/bitstreams?/|/server/api/core/bitstreams/|/download\b", re.I)
_ITEM_RE = re.compile(r"/handle/\d+/\d+|/items/[0-9a-f-]{8,}|/record/\d+|doi\.org/", re.I)
_HTML_CAP = 2_000_000


@dataclass(frozen=True, slots=True)
class FetchLimits:
    """How much fetching one work may cost, and how often one host may be asked."""

    max_bytes: int = 60_000_000
    timeout: float = 60.0
    host_delay: float = 1.0  # seconds between two requests to the same host
    max_pages: int = 4  # HTML pages read per record (landing → repository item → …)
    max_redirects: int = 6


@dataclass(slots=True)
class FetchOutcome:
    """What fetching one record's full text did."""

    id: str
    title: str
    outcome: str  # one of OUTCOMES
    url: str = ""  # the PDF's address when fetched, else the last address tried
    detail: str = ""
    bytes: int = 0
    path: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class HostPacer:
    """At most one request per ``delay`` seconds to each host (politeness); other hosts wait
    for nothing."""

    def __init__(self, delay: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.delay = delay
        self._clock = clock
        self._next: dict[str, float] = {}
        self._lock = asyncio.Lock()

    async def reserve(self, host: str) -> float:
        """Book the host's next turn; the seconds to wait for it (0 when the host is free)."""
        async with self._lock:
            now = self._clock()
            at = max(now, self._next.get(host, now))
            self._next[host] = at + self.delay
        return at - now

    async def wait(self, host: str) -> None:
        await asyncio.sleep(await self.reserve(host))  # a bare yield when the host is free


class _Outcome(Exception):
    """Ends one record's fetch with an outcome (internal)."""

    def __init__(self, outcome: str, url: str, detail: str) -> None:
        # no message of its own: _fetch_one turns it into a FetchOutcome, never into text
        # (BaseException.__new__ keeps the arguments as ``args`` all the same)
        self.outcome, self.url, self.detail = outcome, url, detail


DOI_RESOLVER = "https://doi.org/"


def record_links(rec: Record, doi_resolver: str = DOI_RESOLVER) -> list[str]:
    """The record's http(s) links, those naming a PDF first, then its DOI at the resolver."""
    links = [u.strip() for u in rec.links if u.strip().lower().startswith(("http://", "https://"))]
    if rec.doi:
        links.append(doi_resolver.removesuffix("/") + "/" + rec.doi.strip())
    return sorted(dict.fromkeys(links), key=lambda u: ".pdf" not in u.lower())


def pdf_links_in_html(html: str, base: str) -> tuple[list[str], list[str]]:
    """``(pdf links, item links)`` an HTML page offers, absolute, best first.

    PDF links: the ``citation_pdf_url`` meta tag and its twins, ``<link rel=alternate
    type=application/pdf>``, then anchors to bitstreams or ``.pdf`` files. Item links:
    anchors to a repository item or a DOI (a catalogue page such as Sucupira's points there)."""
    import lxml.html  # type: ignore[import-untyped]

    try:
        doc = lxml.html.document_fromstring(html)
    except Exception:  # lxml raises several types for junk: no links then
        return [], []
    found: list[str] = []
    for name in _PDF_META:
        for el in doc.xpath(
            "//meta[translate(@name,'ABCDEFGHIJKLMNOPQRSTUVWXYZ','abcdefghijklmnopqrstuvwxyz')=$n]",
            n=name,
        ):
            if el.get("content"):
                found.append(el.get("content"))
    for el in doc.xpath("//link[@href]"):
        if (el.get("type") or "").lower() == "application/pdf":
            found.append(el.get("href"))
    anchors = [(a.get("href") or "", a.text_content().strip()) for a in doc.xpath("//a")]
    for href, text in anchors:
        path = urlsplit(href).path.lower()
        if path.endswith(".pdf") or _BITSTREAM_RE.search(href) or "pdf" in text.lower().split():
            found.append(href)
    items = [href for href, _ in anchors if _ITEM_RE.search(href)]
    base_href = doc.xpath("//base/@href")
    root = str(base_href[0]) if base_href else base

    def absolute(urls: list[str]) -> list[str]:
        # a mailto: or javascript: link is dropped by the http(s) test below; a bare fragment
        # would otherwise become the page's own address
        out = [urljoin(root, u.strip()) for u in urls if u and not u.startswith("#")]
        return [u for u in dict.fromkeys(out) if u.lower().startswith(("http://", "https://"))]

    return absolute(found), absolute(items)


async def _follow(
    client: Any,
    url: str,
    target: Path,
    limits: FetchLimits,
    pacer: HostPacer,
    allow_private: bool,
    seen: set[str],
) -> tuple[str, int]:
    """Fetch ``url``; a PDF is saved to ``target`` (``(pdf url, bytes)``), an HTML page is
    searched for a PDF, one page deeper for a repository item. Raises :class:`_Outcome`."""
    import httpx

    from colmeia.tools.builtins.fetch_url import check_url, pinned_stream

    pages: list[str] = [url]
    last_html = url  # the last page read, named in the outcome
    while pages:
        current = pages.pop(0)
        if current in seen:
            continue
        if len(seen) >= limits.max_pages + limits.max_redirects:
            break
        seen.add(current)
        part = target.with_suffix(target.suffix + ".part")
        for _ in range(limits.max_redirects + 1):
            try:
                checked = await check_url(current, allow_private=allow_private)
            except UnsafeTargetError as exc:
                raise _Outcome("refused", current, str(exc)) from None
            await pacer.wait(checked.host)
            have = part.stat().st_size if part.exists() and _resumes(part, current) else 0
            headers = {"Range": f"bytes={have}-"} if have else {}
            # connect to the address that passed the check (no second DNS answer)
            async with pinned_stream(client, checked, headers) as resp:
                if resp.status_code in (301, 302, 303, 307, 308) and "location" in resp.headers:
                    current = str(httpx.URL(checked.url).join(resp.headers["location"]))
                    seen.add(current)
                    continue
                if resp.status_code == 416 and have:
                    _accept(part, target, current)
                    return current, have
                if resp.status_code >= 400:
                    raise _Outcome("failed", current, f"the server answered {resp.status_code}")
                ctype = resp.headers.get("content-type", "").lower()
                length = int(resp.headers.get("content-length") or 0)
                pieces = resp.aiter_bytes()
                first = b""
                async for chunk in pieces:
                    first = chunk
                    if chunk:
                        break
                is_pdf = "pdf" in ctype or b"%PDF-" in first[:1024]
                # a 206 is only ever the answer to our Range: a file, whatever its type says
                if is_pdf or resp.status_code == 206:
                    resumed = resp.status_code == 206 and bool(have) and _continues_at(resp, have)
                    if not resumed and length > limits.max_bytes:
                        raise _Outcome("too large", current, _too_large(length, limits))
                    part.with_suffix(".url").write_text(current, encoding="utf-8")
                    size = await _save(resumed, have, first, pieces, part, limits, current)
                    _accept(part, target, current)
                    return current, size
                body = first
                async for chunk in pieces:
                    body += chunk
                    if len(body) > _HTML_CAP:
                        break
                if "html" not in ctype and not body.lstrip()[:1] == b"<":
                    raise _Outcome("failed", current, f"neither a PDF nor a web page ({ctype})")
                last_html = current
                # httpx's encoding is the declared charset, else utf-8: never None in fact
                text = body.decode(resp.encoding or "utf-8", "replace")
                pdfs, items = pdf_links_in_html(text, checked.url)
                # PDFs the page offers first, then the items it points to (one level deeper);
                # an address already read is skipped when its turn comes
                pages = pdfs + pages + items
            break
        else:
            raise _Outcome("failed", current, "too many redirects")
    raise _Outcome(
        "landing page without PDF",
        last_html,
        "the page offers no PDF (no citation_pdf_url, bitstream or .pdf link)",
    )


def _resumes(part: Path, url: str) -> bool:
    """Whether ``url`` is where the interrupted download in ``part`` came from (recorded beside
    it; without the record, a link that names a PDF or a bitstream)."""
    mark = part.with_suffix(".url")
    if mark.exists():
        return mark.read_text(encoding="utf-8").strip() == url
    return urlsplit(url).path.lower().endswith(".pdf") or bool(_BITSTREAM_RE.search(url))


def _too_large(size: int, limits: FetchLimits) -> str:
    return f"{size / 1e6:.1f} MB is over the {limits.max_bytes / 1e6:g} MB limit"


def _continues_at(resp: Any, have: int) -> bool:
    """Whether a 206 answer's bytes start where the ``have`` bytes on disk end. Its
    Content-Range says where they start; a server that sends none is taken at its word."""
    m = re.match(r"bytes (\d+)-", resp.headers.get("content-range", ""))
    return m is None or int(m.group(1)) == have


async def _save(
    resumed: bool,
    have: int,
    first: bytes,
    pieces: Any,
    part: Path,
    limits: FetchLimits,
    url: str,
) -> int:
    # bytes that do not continue the half on disk replace it (checked for a PDF header after)
    mode = "ab" if resumed else "wb"
    size = have if resumed else 0
    with part.open(mode) as fh:
        chunk = first
        while True:
            size += len(chunk)
            if size > limits.max_bytes:
                fh.close()
                _discard(part)
                raise _Outcome("too large", url, _too_large(size, limits))
            fh.write(chunk)
            try:
                chunk = await pieces.__anext__()
            except StopAsyncIteration:
                break
    return size


def _discard(part: Path) -> None:
    # both exist: _follow records the address before _save opens the part
    part.unlink()
    part.with_suffix(".url").unlink()


def _accept(part: Path, target: Path, url: str) -> None:
    with part.open("rb") as fh:
        if b"%PDF-" not in fh.read(1024):
            part.unlink()
            part.with_suffix(".url").unlink(missing_ok=True)
            raise _Outcome("failed", url, "the download is not a PDF (no %PDF- header)")
    part.rename(target)
    part.with_suffix(".url").unlink(missing_ok=True)


async def _fetch_one(
    client: Any,
    rec: Record,
    target: Path,
    limits: FetchLimits,
    pacer: HostPacer,
    allow_private: bool,
    doi_resolver: str,
) -> FetchOutcome:
    links = record_links(rec, doi_resolver)
    if not links:
        return FetchOutcome(rec.id, rec.title, "no link", detail="no http(s) link and no DOI")
    worst: FetchOutcome | None = None
    seen: set[str] = set()
    started = time.monotonic()
    for url in links:
        left = limits.timeout - (time.monotonic() - started)
        try:
            if left <= 0:
                raise TimeoutError
            pdf_url, size = await asyncio.wait_for(
                _follow(client, url, target, limits, pacer, allow_private, seen), left
            )
        except _Outcome as out:
            got = FetchOutcome(rec.id, rec.title, out.outcome, out.url, out.detail)
        except TimeoutError:
            got = FetchOutcome(
                rec.id, rec.title, "timeout", url, f"no PDF within {limits.timeout:g} s"
            )
        except ColmeiaError as exc:
            got = FetchOutcome(rec.id, rec.title, "failed", url, str(exc))
        except Exception as exc:  # httpx transport errors and the like: named, not raised
            got = FetchOutcome(rec.id, rec.title, "failed", url, f"{type(exc).__name__}: {exc}")
        else:
            return FetchOutcome(rec.id, rec.title, "fetched", pdf_url, "", size, str(target))
        # Keep the most telling reason across links: a refusal or a size says more than a 404.
        rank = ("refused", "too large", "timeout", "landing page without PDF", "failed")
        if worst is None or rank.index(got.outcome) < rank.index(worst.outcome):
            worst = got
        # after a timeout the links left find no time left: each is a timeout at once
    assert worst is not None
    return worst


def fetch_full_texts(
    records: Sequence[Record],
    folder: Path,
    *,
    have: dict[str, Path] | None = None,
    limits: FetchLimits | None = None,
    allow_private: bool = False,
    progress: Callable[[int, int], None] | None = None,
    doi_resolver: str = DOI_RESOLVER,
) -> list[FetchOutcome]:
    """Fetch the PDF of every record without one into ``folder`` (``<id>.pdf``); one outcome
    per record, in order. A ``.part`` left by an interrupted run is continued with a range
    request; a PDF already in ``folder`` is not fetched again."""
    return asyncio.run(
        afetch_full_texts(
            records,
            folder,
            have=have,
            limits=limits,
            allow_private=allow_private,
            progress=progress,
            doi_resolver=doi_resolver,
        )
    )


def _make_folder(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)


async def afetch_full_texts(
    records: Sequence[Record],
    folder: Path,
    *,
    have: dict[str, Path] | None = None,
    limits: FetchLimits | None = None,
    allow_private: bool = False,
    progress: Callable[[int, int], None] | None = None,
    doi_resolver: str = DOI_RESOLVER,
) -> list[FetchOutcome]:
    """:func:`fetch_full_texts` inside a running event loop."""
    import httpx

    _make_folder(folder)
    have = have or {}
    lim = limits or FetchLimits()
    pacer = HostPacer(lim.host_delay)
    out: list[FetchOutcome] = []
    timeout = httpx.Timeout(lim.timeout)
    async with httpx.AsyncClient(timeout=timeout, follow_redirects=False) as client:
        for i, rec in enumerate(records, start=1):
            target = folder / (_SAFE_RE.sub("_", rec.id) + ".pdf")
            if rec.id in have:
                out.append(FetchOutcome(rec.id, rec.title, "already here", path=str(have[rec.id])))
            elif target.exists():
                out.append(FetchOutcome(rec.id, rec.title, "already here", path=str(target)))
            else:
                got = await _fetch_one(client, rec, target, lim, pacer, allow_private, doi_resolver)
                log.info("full text of %s: %s %s", rec.id, got.outcome, got.url)
                out.append(got)
            if progress is not None:
                progress(i, len(records))
    return out
