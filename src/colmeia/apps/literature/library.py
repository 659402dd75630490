"""A review's library: records joined with their PDFs, ingested as one document per work.

Local PDFs are matched to records by file name (title, DOI or handle in it), then by the DOI or
the title printed on the first pages. PDFs are fetched from record links only when asked, with
a size and time limit, resumably (a ``.part`` file is continued with an HTTP range request), and
never from private, loopback or link-local addresses unless explicitly allowed (the same checks
as the ``fetch_url`` tool, made before connecting). Works without a readable PDF are still
ingested from their record (title, abstract, keywords) and listed as missing or unreadable.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from colmeia.apps.literature.fulltext import (
    DOI_RESOLVER,
    FetchLimits,
    FetchOutcome,
    fetch_full_texts,
    record_links,
)
from colmeia.apps.literature.record_sentences import embed_record_sentences
from colmeia.apps.literature.records import Record, load_records, normalize_title
from colmeia.errors import DocumentError
from colmeia.rag.index.embedders import Embedder
from colmeia.rag.index.vector_cache import CachedEmbedder
from colmeia.rag.ingest._common import hash_text
from colmeia.rag.pipeline import IngestProgress, IngestReport, ingest_documents
from colmeia.rag.types import ExtractedDocument, Page
from colmeia.store.base import Store

__all__ = [
    "FetchLimits",
    "LibraryReport",
    "MissingWork",
    "fetch_pdfs",
    "import_library",
    "match_pdfs",
    "work_document",
]

log = logging.getLogger(__name__)

_SAFE_RE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(slots=True)
class MissingWork:
    """A work with no usable full text, and why (its record is still searchable)."""

    id: str
    title: str
    reason: str


@dataclass(slots=True)
class LibraryReport:
    """What an import did: records, duplicates, PDFs matched/fetched, what is missing."""

    collection: str
    records: int = 0
    duplicates: int = 0
    with_pdf: int = 0
    fetched: int = 0
    missing: list[MissingWork] = field(default_factory=list)
    fetch: list[FetchOutcome] = field(default_factory=list)  # one per record tried (--fetch)
    problems: list[tuple[str, str]] = field(default_factory=list)
    ingest: IngestReport | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "collection": self.collection,
            "records": self.records,
            "duplicates": self.duplicates,
            "with_pdf": self.with_pdf,
            "fetched": self.fetched,
            "missing": [{"id": m.id, "title": m.title, "reason": m.reason} for m in self.missing],
            "fetch": [o.as_dict() for o in self.fetch],
            "problems": [{"source": s, "reason": r} for s, r in self.problems],
            "ingest": self.ingest.as_dict() if self.ingest else None,
        }


def _stem_key(path: Path) -> str:
    return normalize_title(path.stem.replace("_", " ").replace("-", " "))


def _doi_key(doi: str) -> str:
    return normalize_title(doi.replace("/", " ").replace(".", " "))


def _first_pages_text(path: Path, pages: int = 2) -> str:
    from colmeia.rag.ingest.pdf import iter_pdf_pages
    from colmeia.rag.ingest.pdf_layout import strip_marks

    out = []
    try:
        for i, page in enumerate(iter_pdf_pages(path)):
            out.append(strip_marks(page.text))
            if i + 1 >= pages:
                break
    except DocumentError:
        return ""
    return "\n".join(out)


def match_pdfs(records: Sequence[Record], folder: Path) -> tuple[dict[str, Path], list[Path]]:
    """``record id → PDF`` for the PDFs under ``folder``, and the PDFs no record claimed.

    By file name first (the title, DOI, handle or record id in it), then by what the first
    pages print (the DOI, or the title). Each record's keys are computed once: a catalogue of
    1,500 records against 200 PDFs is 300,000 comparisons."""
    pdfs = sorted(p for p in folder.rglob("*") if p.suffix.lower() == ".pdf" and p.is_file())
    found: dict[str, Path] = {}
    left = list(pdfs)
    titles = {r.id: normalize_title(r.title) for r in records}
    ids: dict[str, list[str]] = {}
    for rec in records:
        keys = [_doi_key(rec.doi)] if rec.doi else []
        keys += [normalize_title(rec.handle.replace("/", " "))] if rec.handle else []
        keys.append(_stem_key(Path(_SAFE_RE.sub("_", rec.id))))
        ids[rec.id] = [k for k in keys if k]
    for pdf in list(left):
        key = _stem_key(pdf)
        for rec in records:
            if rec.id in found:
                continue
            title = titles[rec.id]
            if (
                (len(key) >= 12 and title.startswith(key))
                or key == title
                or any(i in key for i in ids[rec.id])
            ):
                found[rec.id] = pdf
                left.remove(pdf)
                break
    for pdf in list(left):
        text = _first_pages_text(pdf)
        lowered = text.lower()
        folded = normalize_title(text)
        for rec in records:
            if rec.id in found:
                continue
            if rec.doi and rec.doi.lower() in lowered:
                found[rec.id] = pdf
                left.remove(pdf)
                break
            title = titles[rec.id]
            if len(title) >= 20 and title[:80] in folded:
                found[rec.id] = pdf
                left.remove(pdf)
                break
    return found, left


def fetch_pdfs(
    records: Sequence[Record],
    folder: Path,
    *,
    have: dict[str, Path] | None = None,
    limits: FetchLimits | None = None,
    allow_private: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[dict[str, Path], list[MissingWork]]:
    """Download the PDFs of records that have none yet into ``folder`` (``<id>.pdf``),
    following landing pages to their PDF (see :mod:`colmeia.apps.literature.fulltext`).

    Returns the PDFs fetched and the works whose links all failed, with the outcome and reason."""
    have = have or {}
    todo = [r for r in records if r.id not in have and record_links(r)]
    outcomes = fetch_full_texts(
        todo, folder, limits=limits, allow_private=allow_private, progress=progress
    )
    fetched = {o.id: Path(o.path) for o in outcomes if o.path}
    failed = [_missing(o) for o in outcomes if not o.path]
    return fetched, failed


def _missing(o: FetchOutcome) -> MissingWork:
    if o.outcome == "no link":
        return MissingWork(o.id, o.title, "no PDF (no link or DOI to fetch it from)")
    return MissingWork(o.id, o.title, f"could not fetch ({o.outcome}): {o.url}: {o.detail}")


def work_document(
    rec: Record, pdf: Path | None, fetched: FetchOutcome | None = None
) -> tuple[ExtractedDocument, str]:
    """The document for one work: its record (title, abstract, keywords) as a first page
    numbered 0, then the cleaned PDF pages. Returns it and, when the PDF could not be used,
    why."""
    from colmeia.rag.ingest import clean_document, extract

    head = [rec.title]
    if rec.abstract:
        head += ["RESUMO", " ".join(rec.abstract.split())]
    if rec.keywords:
        head.append("Palavras-chave: " + "; ".join(rec.keywords))
    # One block (lines, no blank line): the record is one passage, not the 1-5 paragraph
    # windows of a thesis's text, which would hold (and embed) its abstract six times.
    pages = [Page(0, "\n".join(head), "")]
    problem = ""
    content = hash_text(*(f"{k}={v}" for k, v in sorted(rec.as_dict().items())))
    if pdf is not None:
        try:
            raw = extract(pdf, doc_type="tese")
            cleaned = clean_document(raw)
            pages += cleaned.pages
            content = hash_text(content, raw.content_hash)
        except DocumentError as exc:
            problem = exc.reason
    metadata: dict[str, Any] = {
        "format": "work",
        "cleaned": True,
        "authors": rec.authors,
        "year": rec.year,
        "program": rec.program,
        "institution": rec.institution,
        "abstract": rec.abstract,
        "keywords": rec.keywords,
        "doi": rec.doi,
        "handle": rec.handle,
        "links": rec.links,
        "type": rec.doc_type,
        "pdf": str(pdf) if pdf is not None and not problem else "",
        "record_source": rec.source,
    }
    if fetched is not None:
        # Kept with the work: where its full text came from, or why there is none.
        metadata["fulltext"] = {
            "outcome": fetched.outcome,
            "url": fetched.url,
            "detail": fetched.detail,
        }
    doc = ExtractedDocument(
        source_id=rec.id,
        title=rec.title,
        pages=pages,
        content_hash=content,
        path=str(pdf) if pdf is not None else "",
        doc_type=rec.doc_type,
        metadata=metadata,
    )
    return doc, problem


def import_library(
    store: Store,
    collection: str,
    sources: Sequence[Path],
    *,
    pdf_dir: Path | None = None,
    fetch: bool = False,
    fetch_dir: Path | None = None,
    limits: FetchLimits | None = None,
    allow_private: bool = False,
    doi_resolver: str = DOI_RESOLVER,
    embedder: Embedder | None = None,
    progress: Callable[[IngestProgress], None] | None = None,
    pool_windows: bool = True,
) -> LibraryReport:
    """Records from ``sources`` (RIS/BibTeX/CSV) + their PDFs → ``collection``.

    ``pool_windows=False`` embeds every paragraph window whole instead of pooling windows
    from paragraphs embedded once (see :mod:`colmeia.rag.index.windows`)."""
    loaded = load_records(sources)
    report = LibraryReport(collection, len(loaded.records), loaded.duplicates)
    report.problems = [(p.source, p.reason) for p in loaded.problems]
    records = loaded.records
    pdfs: dict[str, Path] = {}
    if pdf_dir is not None:
        pdfs, unclaimed = match_pdfs(records, pdf_dir)
        report.problems += [(str(p), "no record matches this PDF") for p in unclaimed]
    if fetch:
        todo = [r for r in records if r.id not in pdfs]
        report.fetch = fetch_full_texts(
            todo,
            fetch_dir or (pdf_dir or Path(".")) / "fetched",
            limits=limits,
            allow_private=allow_private,
            doi_resolver=doi_resolver,
        )
        got = {o.id: Path(o.path) for o in report.fetch if o.path}
        pdfs.update(got)
        report.fetched = sum(1 for o in report.fetch if o.outcome == "fetched")
        report.missing += [_missing(o) for o in report.fetch if not o.path]
    failed_ids = {m.id for m in report.missing}
    outcomes = {o.id: o for o in report.fetch}

    def documents() -> Iterator[ExtractedDocument]:
        for rec in records:
            doc, problem = work_document(rec, pdfs.get(rec.id), outcomes.get(rec.id))
            if problem:
                report.missing.append(MissingWork(rec.id, rec.title, f"unreadable PDF: {problem}"))
            elif rec.id in pdfs:
                report.with_pdf += 1
            elif rec.id not in failed_ids:
                report.missing.append(MissingWork(rec.id, rec.title, "no PDF"))
            yield doc

    report.ingest = ingest_documents(
        store,
        collection,
        documents(),
        chunker="paragraphs",
        embedder=embedder,
        cut_front_matter=False,
        cut_references=False,
        progress=progress,
        total=len(records),
        pool_windows=pool_windows,
    )
    if isinstance(embedder, CachedEmbedder):
        # The rerank reads each record's sentences from the cache (record_sentences); the
        # shipped catalogue's come from the vector seed.
        embed_record_sentences(
            embedder, [(r.title, {"abstract": r.abstract, "keywords": r.keywords}) for r in records]
        )
    return report
