"""Ingestion: files, folders and CSV rows → extract → clean → chunk → store (+ vectors).

Incremental and idempotent: every document is identified by its source id and content hash;
an unchanged document is skipped, a changed one has its chunks replaced, and documents can
be deleted by id or by file. A file that cannot be read is recorded with the reason and the
rest goes on.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from colmeia.errors import ColmeiaError, ConfigurationError, DocumentError, RecordError
from colmeia.rag.index.embedders import Embedder
from colmeia.rag.types import Chunk, Chunker, ExtractedDocument
from colmeia.store.base import Store, StoredChunk, StoredDocument, validate_collection_name

__all__ = [
    "CsvColumns",
    "IngestError",
    "IngestProgress",
    "IngestReport",
    "delete_documents",
    "detect_csv_columns",
    "ingest",
    "list_files",
]

log = logging.getLogger(__name__)

_ID_NAMES = ("id", "doc_id", "docid", "urn", "identifier", "identificador", "codigo")
_TEXT_NAMES = ("text", "texto", "content", "conteudo", "body", "abstract", "resumo")


@dataclass(slots=True)
class CsvColumns:
    """Which CSV columns hold the record id, its text and (optionally) title and metadata."""

    id_column: str
    text_column: str
    title_column: str | None = None
    metadata_columns: list[str] | None = None


@dataclass(slots=True)
class IngestError:
    """One source that could not be ingested, and why."""

    source: str
    reason: str


@dataclass(slots=True)
class IngestProgress:
    """Where ingestion is: files done out of total, and documents/chunks written so far."""

    files_done: int
    files_total: int
    documents: int
    chunks: int
    current: str = ""


@dataclass(slots=True)
class IngestReport:
    """What an ingestion did. ``added + updated + unchanged`` documents were seen intact."""

    collection: str
    files: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    chunks: int = 0
    errors: list[IngestError] = field(default_factory=list)

    @property
    def documents(self) -> int:
        return self.added + self.updated + self.unchanged

    def as_dict(self) -> dict[str, Any]:
        return {
            "collection": self.collection,
            "files": self.files,
            "documents": self.documents,
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "chunks": self.chunks,
            "errors": [{"source": e.source, "reason": e.reason} for e in self.errors],
        }


ProgressFn = Callable[[IngestProgress], None]


def list_files(paths: Iterable[Path]) -> tuple[list[Path], list[IngestError]]:
    """Files under ``paths`` (folders walked recursively, hidden entries skipped), sorted."""
    files: list[Path] = []
    errors: list[IngestError] = []
    for p in paths:
        if p.is_dir():
            found = [
                f
                for f in sorted(p.rglob("*"))
                if f.is_file() and not any(part.startswith(".") for part in f.relative_to(p).parts)
            ]
            files.extend(found)
        elif p.is_file():
            files.append(p)
        else:
            errors.append(IngestError(str(p), "no such file or folder"))
    unique = list(dict.fromkeys(f.resolve() for f in files))
    return unique, errors


def detect_csv_columns(header: Sequence[str], given: CsvColumns | None = None) -> CsvColumns:
    """Fill the CSV columns not given from common names (id/DOC_ID/urn, text/TEXTO, …)."""
    lower = {h.strip().lower(): h for h in header}

    def pick(names: Sequence[str]) -> str | None:
        return next((lower[n] for n in names if n in lower), None)

    id_col = given.id_column if given and given.id_column else pick(_ID_NAMES)
    text_col = given.text_column if given and given.text_column else pick(_TEXT_NAMES)
    if not id_col or not text_col:
        raise ConfigurationError(
            f"cannot tell which CSV columns hold the id and the text (columns: {', '.join(header)});"
            " pass --id-column and --text-column"
        )
    # Titles are not guessed: a wrong guess (a raw label column) would hide a better title
    # the record reader derives itself (LexML citations).
    title_col = given.title_column if given and given.title_column else None
    return CsvColumns(id_col, text_col, title_col, given.metadata_columns if given else None)


def _csv_header(path: Path) -> list[str]:
    import csv

    with path.open(encoding="utf-8-sig", newline="") as fh:
        return next(csv.reader(fh), [])


def _year(metadata: dict[str, Any]) -> int | None:
    for key in ("year", "ano", "Year", "ANO"):
        value = metadata.get(key)
        if value is None:
            continue
        try:
            year = int(str(value).strip()[:4])
        except ValueError:
            continue
        if 1000 <= year <= 2999:
            return year
    return None


class _Writer:
    """Buffers documents so vectors are embedded and rows written in batches."""

    def __init__(
        self, store: Store, collection: str, embedder: Embedder | None, batch_chunks: int
    ) -> None:
        self.store = store
        self.collection = collection
        self.embedder = embedder
        self.batch_chunks = batch_chunks
        self.pending: list[tuple[StoredDocument, list[StoredChunk]]] = []
        self.pending_chunks = 0
        self.dim = 0

    def add(self, doc: StoredDocument, chunks: list[StoredChunk]) -> None:
        self.pending.append((doc, chunks))
        self.pending_chunks += len(chunks)
        if self.pending_chunks >= self.batch_chunks:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        vectors: list[npt.NDArray[np.float32] | None] = [None] * len(self.pending)
        if self.embedder is not None:
            texts = [c.text for _, chunks in self.pending for c in chunks]
            matrix = self.embedder.embed(texts) if texts else np.empty((0, 0), np.float32)
            if len(matrix):
                self.dim = int(matrix.shape[1])
            start = 0
            for i, (_, chunks) in enumerate(self.pending):
                vectors[i] = matrix[start : start + len(chunks)]
                start += len(chunks)
        for (doc, chunks), vecs in zip(self.pending, vectors, strict=True):
            self.store.replace_document(self.collection, doc, chunks, vecs)
        self.pending.clear()
        self.pending_chunks = 0


def _to_stored(doc: ExtractedDocument, chunks: Sequence[Chunk]) -> list[StoredChunk]:
    return [
        StoredChunk(
            chunk_id=f"{doc.source_id}#{i}",
            doc_id=doc.source_id,
            seq=i,
            text=c.text.replace("\x00", ""),
            page_start=c.page_start,
            page_end=c.page_end,
            char_start=c.char_start,
            char_end=c.char_end,
            path=c.path,
            heading=c.heading,
            metadata=dict(c.metadata),
        )
        for i, c in enumerate(chunks)
        if c.text.strip()
    ]


def ingest(
    store: Store,
    collection: str,
    paths: Sequence[Path],
    *,
    chunker: str = "auto",
    csv_columns: CsvColumns | None = None,
    embedder: Embedder | None = None,
    cut_front_matter: bool = False,
    cut_references: bool = False,
    progress: ProgressFn | None = None,
    batch_chunks: int = 256,
) -> IngestReport:
    """Ingest files and folders (CSV files: one document per row) into ``collection``."""
    from colmeia.rag.ingest import chunker_for, clean_document, extract, iter_csv_records

    validate_collection_name(collection)
    store.ensure_collection(collection)
    info = store.collection(collection)
    if embedder is not None and info is not None and info.embedder not in ("", embedder.name):
        raise ConfigurationError(
            f"collection {collection!r} holds vectors from {info.embedder!r}, not "
            f"{embedder.name!r}; use the same embedder or ingest into a new collection"
        )
    the_chunker: Chunker = chunker_for(chunker)
    report = IngestReport(collection)
    files, report.errors = list_files(paths)
    report.files = len(files)
    hashes = store.document_hashes(collection)
    writer = _Writer(store, collection, embedder, batch_chunks)
    seen: set[str] = set()

    def handle(doc: ExtractedDocument) -> None:
        if doc.source_id in seen:
            report.errors.append(
                IngestError(f"{doc.path or doc.source_id}", f"duplicate id {doc.source_id!r}")
            )
            return
        seen.add(doc.source_id)
        old = hashes.get(doc.source_id)
        if old == doc.content_hash:
            report.unchanged += 1
            return
        cleaned = clean_document(
            doc, cut_front_matter=cut_front_matter, cut_references=cut_references
        )
        chunks = _to_stored(cleaned, the_chunker.chunk(cleaned))
        if not chunks:
            report.errors.append(
                IngestError(doc.path or doc.source_id, "no text to index after cleaning")
            )
            return
        stored = StoredDocument(
            doc_id=doc.source_id,
            content_hash=doc.content_hash,
            title=cleaned.title,
            path=cleaned.path,
            doc_type=cleaned.doc_type,
            year=_year(cleaned.metadata),
            metadata=dict(cleaned.metadata),
            n_chunks=len(chunks),
        )
        writer.add(stored, chunks)
        hashes[doc.source_id] = doc.content_hash
        report.chunks += len(chunks)
        if old is None:
            report.added += 1
        else:
            report.updated += 1

    def tick(done: int, current: str) -> None:
        if progress is not None:
            progress(IngestProgress(done, len(files), report.documents, report.chunks, current))

    tick(0, "")
    for done, path in enumerate(files, start=1):
        try:
            for doc in _documents(path, csv_columns, report, extract, iter_csv_records):
                handle(doc)
        except DocumentError as exc:
            report.errors.append(IngestError(str(path), exc.reason))
        except ColmeiaError as exc:
            report.errors.append(IngestError(str(path), str(exc)))
        except (OSError, UnicodeError, ValueError) as exc:
            log.exception("unexpected failure ingesting %s", path)
            report.errors.append(IngestError(str(path), f"{type(exc).__name__}: {exc}"))
        tick(done, str(path))
    writer.flush()
    if embedder is not None and writer.dim:
        store.set_embedder(collection, embedder.name, writer.dim)
    return report


def _documents(
    path: Path,
    csv_columns: CsvColumns | None,
    report: IngestReport,
    extract: Callable[[Path], ExtractedDocument],
    iter_csv_records: Callable[..., Iterator[ExtractedDocument]],
) -> Iterator[ExtractedDocument]:
    if path.suffix.lower() != ".csv":
        yield extract(path)
        return
    cols = detect_csv_columns(_csv_header(path), csv_columns)

    def on_error(exc: Exception) -> None:
        if isinstance(exc, DocumentError):
            report.errors.append(IngestError(exc.path, exc.reason))
        elif isinstance(exc, RecordError):
            report.errors.append(IngestError(f"{path}: {exc.record}", exc.reason))
        else:
            report.errors.append(IngestError(str(path), str(exc)))

    yield from iter_csv_records(
        path,
        id_column=cols.id_column,
        text_column=cols.text_column,
        title_column=cols.title_column,
        metadata_columns=cols.metadata_columns,
        on_error=on_error,
    )


def delete_documents(
    store: Store,
    collection: str,
    *,
    doc_ids: Sequence[str] = (),
    paths: Sequence[Path] = (),
) -> int:
    """Delete documents by id, or every document that came from ``paths`` (files or folders)."""
    if store.collection(collection) is None:
        raise ConfigurationError(f"no collection named {collection!r}; see `colmeia collections`")
    targets = set(doc_ids)
    if paths:
        wanted = {str(p.resolve()) for p in paths} | {str(p) for p in paths}
        folders = tuple(str(p.resolve()) + os.sep for p in paths if p.is_dir())
        for d in store.documents(collection):
            if d.path in wanted or d.doc_id in wanted or (folders and d.path.startswith(folders)):
                targets.add(d.doc_id)
    return store.delete_documents(collection, sorted(targets))
