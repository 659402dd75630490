"""Ingestion: files, folders and CSV rows → extract → clean → chunk → store (+ vectors).

Incremental and idempotent: every document is identified by its source id and content hash;
an unchanged document is skipped, a changed one has its chunks replaced, and documents can
be deleted by id or by file. A file that cannot be read is recorded with the reason and the
rest goes on.
"""

from __future__ import annotations

import logging
import os
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from colmeia.errors import ColmeiaError, ConfigurationError, DocumentError, RecordError
from colmeia.rag.index.embedders import Embedder
from colmeia.rag.index.windows import Window, embed_windows
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
    "ingest_documents",
    "list_files",
]

log = logging.getLogger(__name__)

# Column names are compared lower-cased and without accents ("Título" → "titulo").
_ID_NAMES = ("id", "doc_id", "docid", "urn", "identifier", "identificador", "codigo", "doi")
_LINK_NAMES = ("handle", "link", "url", "uri", "href")
_TEXT_NAMES = ("text", "texto", "content", "conteudo", "body", "abstract", "resumo")
_TITLE_NAMES = ("title", "titulo", "nome_trabalho", "titulo_trabalho")
_TYPE_NAMES = ("doc_type", "document_type", "tipo_documento", "tipo_trabalho", "tipo", "type")
_DATE_NAMES = (
    "date", "data", "year", "ano", "defesa", "data_defesa", "published", "publication_date",
    "data_publicacao", "issued", "pubdate",
)  # fmt: skip
_SAMPLE_ROWS = 1000
# A type column names a few categories, not one value per record.
_MAX_TYPES = 50


@dataclass(slots=True)
class CsvColumns:
    """Which CSV columns hold the record id, its text and (optionally) title and metadata.

    ``type_column`` gives each record's ``doc_type`` (``Tipo``: Dissertação/Tese) and
    ``date_column`` its year (``Defesa``: ``17/08/2017``), both used by search filters.
    ``layout="jurisprudence"`` reads the rows as court statements
    (:mod:`colmeia.rag.ingest.jurisprudence`) even without decision columns.
    """

    id_column: str
    text_column: str
    title_column: str | None = None
    metadata_columns: list[str] | None = None
    type_column: str | None = None
    date_column: str | None = None
    layout: str | None = None


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
    """What an ingestion did. ``added + updated + unchanged`` documents were seen intact (and
    the added/updated ones stored); ``removed`` ones had vanished from their source."""

    collection: str
    files: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
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
            "removed": self.removed,
            "chunks": self.chunks,
            "errors": [{"source": e.source, "reason": e.reason} for e in self.errors],
        }


ProgressFn = Callable[[IngestProgress], None]


# Files that travel with a data set but are not part of it: skipped when a folder is walked
# (a file named explicitly is still ingested).
_PAPERWORK = ("license", "licence", "notice", "copying", "authors")


def _is_paperwork(path: Path) -> bool:
    return path.stem.lower().split("-")[0] in _PAPERWORK


def list_files(paths: Iterable[Path]) -> tuple[list[Path], list[IngestError]]:
    """Files under ``paths``, sorted; folders are walked recursively.

    Hidden entries and license/notice files met while walking a folder are skipped.
    """
    files: list[Path] = []
    errors: list[IngestError] = []
    for p in paths:
        if p.is_dir():
            found = [
                f
                for f in sorted(p.rglob("*"))
                if f.is_file()
                and not any(part.startswith(".") for part in f.relative_to(p).parts)
                and not _is_paperwork(f)
            ]
            files.extend(found)
        elif p.is_file():
            files.append(p)
        else:
            errors.append(IngestError(str(p), "no such file or folder"))
    unique = list(dict.fromkeys(f.resolve() for f in files))
    return unique, errors


def _fold(name: str) -> str:
    decomposed = unicodedata.normalize("NFKD", name.strip().lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).replace(" ", "_")


def _is_index(values: Sequence[str]) -> bool:
    """0, 1, 2, … (or 1, 2, 3, …): the row numbers pandas writes as an unnamed first column."""
    if not values or not all(v.strip().isdigit() for v in values):
        return False
    first = int(values[0])
    return first in (0, 1) and all(int(v) == first + i for i, v in enumerate(values))


def detect_csv_columns(
    header: Sequence[str],
    given: CsvColumns | None = None,
    rows: Sequence[dict[str, str]] | None = None,
) -> CsvColumns:
    """Fill the CSV columns not given from their names and, with ``rows``, their values.

    The id is a column named like one (``id``, ``DOC_ID``, ``urn``, ``*_id``), else a link whose
    values are unique (``link_trabalho``, ``url``, ``handle``), else the unnamed first column a
    dataframe export writes (row numbers: the last resort, as they change when the export is
    sorted again). The text is ``text``/``texto``/``resumo``/…; the title ``title``/``titulo``;
    the type ``doc_type``/``tipo``/``type`` when it holds a few categories; the date a column
    named like one (``data``, ``defesa``, ``ano``) whose values read as dates. In a LexML export
    ``Tipo`` is the dispositivo's kind, not the document's, and is left alone.
    """
    from colmeia.rag.ingest.csv_records import is_lexml_header
    from colmeia.rag.ingest.dates import year_of

    columns = [h.strip() for h in header]
    folded = {_fold(h): h for h in reversed(columns)}  # first spelling wins
    sample = list(rows or [])

    def values(col: str) -> list[str]:
        return [(r.get(col) or "").strip() for r in sample]

    def unique(col: str) -> bool:
        vals = values(col)
        return all(vals) and len(set(vals)) == len(vals)

    def named(names: Sequence[str]) -> list[str]:
        return [folded[n] for n in names if n in folded]

    def pick_id() -> str | None:
        by_name = named(_ID_NAMES) + [
            h for f, h in folded.items() if f.endswith("_id") or f.startswith("id_")
        ]
        links = named(_LINK_NAMES) + [
            h
            for f, h in folded.items()
            if any(part in _LINK_NAMES for part in f.split("_")) and h not in by_name
        ]
        for col in dict.fromkeys(by_name + links):
            if col in by_name and not sample:
                return col
            if unique(col):
                return col
        if columns and not columns[0] and sample and _is_index(values("")):
            return ""
        return None

    id_col = given.id_column if given and given.id_column else pick_id()
    text_col = (
        given.text_column if given and given.text_column else next(iter(named(_TEXT_NAMES)), None)
    )
    if id_col is None or not text_col:
        raise ConfigurationError(
            "cannot tell which CSV columns hold the id and the text "
            f"(columns: {', '.join(c or '(unnamed)' for c in columns)});"
            " pass --id-column and --text-column"
        )
    taken = {id_col, text_col}
    lexml = is_lexml_header(columns)
    # Titles of LexML records are derived from their Rotulo, a better citation than any column.
    title_col = given.title_column if given and given.title_column else None
    if title_col is None and not lexml:
        title_col = next((c for c in named(_TITLE_NAMES) if c not in taken), None)
    taken.add(title_col or id_col)

    type_col = given.type_column if given and given.type_column else None
    if type_col is None and not lexml:
        for col in named(_TYPE_NAMES):
            kinds = {v for v in values(col) if v}
            if col not in taken and kinds and len(kinds) <= min(_MAX_TYPES, len(sample) // 2 + 1):
                type_col = col
                break

    date_col = given.date_column if given and given.date_column else None
    if date_col is None:
        for col in named(_DATE_NAMES):
            vals = [v for v in values(col) if v]
            if (
                col not in taken
                and vals
                and sum(year_of(v) is not None for v in vals) >= 0.8 * len(vals)
            ):
                date_col = col
                break
    return CsvColumns(
        id_col,
        text_col,
        title_col,
        given.metadata_columns if given else None,
        type_col,
        date_col,
    )


def _csv_sample(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    from colmeia.rag.ingest.csv_records import read_csv_sample

    return read_csv_sample(path, _SAMPLE_ROWS)


def _year(metadata: dict[str, Any]) -> int | None:
    """The year of a document from its metadata: ``year``/``ano``, else a date in any format."""
    from colmeia.rag.ingest.dates import year_of

    keys = {k.strip().lower(): k for k in metadata}
    for name in ("year", "ano", "date", "data", "published", "created", "creationdate"):
        key = keys.get(name)
        if key is not None:
            year = year_of(metadata[key])
            if year is not None:
                return year
    return None


@dataclass(slots=True)
class _Pending:
    doc: StoredDocument
    chunks: list[StoredChunk]
    source: str
    new: bool
    vectors: npt.NDArray[np.float32] | None = None  # embedded already (in a Ray task)


class _Writer:
    """Buffers documents so vectors are embedded and rows written in batches.

    A document counts only once it is written: ``on_written``/``on_failed`` are called per
    document after its batch. When a batch fails (store or embedder error) each of its
    documents is retried alone, so the failure is blamed on the document that causes it and
    the others are still stored. ``flush`` never raises.
    """

    def __init__(
        self,
        store: Store,
        collection: str,
        embedder: Embedder | None,
        batch_chunks: int,
        on_written: Callable[[_Pending], None],
        on_failed: Callable[[_Pending, str], None],
        pool_windows: bool = True,
    ) -> None:
        self.store = store
        self.collection = collection
        self.embedder = embedder
        self.batch_chunks = batch_chunks
        self.pool_windows = pool_windows
        self.on_written = on_written
        self.on_failed = on_failed
        self.pending: list[_Pending] = []
        self.pending_chunks = 0
        self.dim = 0

    def add(self, item: _Pending) -> None:
        self.pending.append(item)
        self.pending_chunks += len(item.chunks)
        if self.pending_chunks >= self.batch_chunks:
            self.flush()

    def flush(self) -> None:
        batch, self.pending, self.pending_chunks = self.pending, [], 0
        if not batch:
            return
        try:
            self._write(batch)
        except Exception as exc:
            if len(batch) == 1:
                self._fail(batch[0], exc)
                return
            log.warning("a batch of %d documents failed (%s); retrying one by one", len(batch), exc)
            same: list[str] = []
            for item in batch:
                if len(same) >= 3 and len(set(same[-3:])) == 1:
                    # The same failure three times in a row is not about the documents
                    # (server down, disk full): do not hammer it once per document.
                    self.on_failed(item, f"not stored: {same[-1]}")
                    continue
                try:
                    self._write([item])
                except Exception as one:
                    same.append(self._fail(item, one))
                else:
                    same.clear()
            return

    def _fail(self, item: _Pending, exc: Exception) -> str:
        if not isinstance(exc, ColmeiaError | OSError | ValueError):
            log.exception("unexpected failure storing %s", item.source)
        reason = str(exc) if isinstance(exc, ColmeiaError) else f"{type(exc).__name__}: {exc}"
        self.on_failed(item, f"not stored: {reason}")
        return reason

    def _write(self, batch: list[_Pending]) -> None:
        vectors: list[npt.NDArray[np.float32] | None] = [item.vectors for item in batch]
        todo = [i for i, item in enumerate(batch) if item.vectors is None]
        if self.embedder is not None and todo:
            windows = [w for i in todo for w in _windows(batch[i].chunks, self.pool_windows)]
            matrix = embed_windows(self.embedder, windows)
            if len(matrix) != len(windows):
                raise ValueError(f"the embedder returned {len(matrix)} vectors for {len(windows)}")
            start = 0
            for i in todo:
                vectors[i] = matrix[start : start + len(batch[i].chunks)]
                start += len(batch[i].chunks)
        for vecs in vectors:
            if vecs is not None and len(vecs):
                self.dim = int(vecs.shape[1])
        for item, vecs in zip(batch, vectors, strict=True):
            self.store.replace_document(self.collection, item.doc, item.chunks, vecs)
            self.on_written(item)


def _windows(chunks: Sequence[StoredChunk], pool_windows: bool) -> list[Window]:
    # Paragraph windows overlap: pool them from paragraphs embedded once each.
    return [
        Window(
            c.doc_id if pool_windows and c.metadata.get("chunker") == "paragraphs" else c.chunk_id,
            c.char_start,
            c.char_end,
            c.text,
        )
        for c in chunks
    ]


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


class _Session:
    """One ingestion into one collection: documents in, a report out (see :func:`ingest`)."""

    def __init__(
        self,
        store: Store,
        collection: str,
        *,
        chunker: str,
        embedder: Embedder | None,
        cut_front_matter: bool | None,
        cut_references: bool | None,
        batch_chunks: int,
        pool_windows: bool = True,
    ) -> None:
        from colmeia.rag.ingest import chunker_for

        validate_collection_name(collection)
        self.existed = store.collection(collection) is not None
        info = store.collection(collection)
        if embedder is not None and info is not None and info.embedder not in ("", embedder.name):
            raise ConfigurationError(
                f"collection {collection!r} holds vectors from {info.embedder!r}, not "
                f"{embedder.name!r}; use the same embedder or ingest into a new collection"
            )
        self.the_chunker: Chunker = chunker_for(chunker)
        store.ensure_collection(collection)
        self.store = store
        self.collection = collection
        self.embedder = embedder
        self.cut_front_matter = cut_front_matter
        self.cut_references = cut_references
        self.report = IngestReport(collection)
        self.hashes = store.document_hashes(collection)
        self.seen: set[str] = set()
        self.root = ""  # ids and paths of files under this folder become relative to it
        self.intact: set[str] = set()  # read whole this time (stored, queued or unchanged)
        self.writer = _Writer(
            store, collection, embedder, batch_chunks, self._written, self._failed, pool_windows
        )

    def _written(self, item: _Pending) -> None:
        self.report.chunks += len(item.chunks)
        if item.new:
            self.report.added += 1
        else:
            self.report.updated += 1

    def _failed(self, item: _Pending, reason: str) -> None:
        self.report.errors.append(IngestError(item.source, reason))

    def handle(
        self,
        doc: ExtractedDocument,
        prepared: tuple[ExtractedDocument, list[Chunk]] | None = None,
        vectors: npt.NDArray[np.float32] | None = None,
    ) -> None:
        """Clean, chunk and queue one document (unchanged ones are only counted).

        ``prepared``: the document already cleaned and chunked elsewhere (a Ray worker, by
        :func:`prepare_file`), as ``(cleaned, chunks)``; ``vectors``: its chunks' vectors.
        """
        report = self.report
        if self.root and doc.path.startswith(self.root):
            relative = doc.path[len(self.root) :]
            if doc.source_id == doc.path:
                doc.source_id = relative
            doc.path = relative
        source = doc.path or doc.source_id
        if doc.source_id in self.seen:
            report.errors.append(IngestError(source, f"duplicate id {doc.source_id!r}"))
            return
        self.seen.add(doc.source_id)
        old = self.hashes.get(doc.source_id)
        if old == doc.content_hash:
            report.unchanged += 1
            self.intact.add(doc.source_id)
            return
        if prepared is None:
            cleaned, raw_chunks = _clean_and_chunk(
                doc, self.the_chunker, self.cut_front_matter, self.cut_references
            )
        else:
            cleaned, raw_chunks = prepared
            cleaned.source_id, cleaned.path = doc.source_id, doc.path  # made relative above
        chunks = _to_stored(cleaned, raw_chunks)
        if not chunks:
            report.errors.append(IngestError(source, "no text to index after cleaning"))
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
        self.intact.add(doc.source_id)
        if vectors is not None and len(vectors) != len(chunks):
            raise ValueError(f"{len(vectors)} vectors for {len(chunks)} chunks")
        self.writer.add(_Pending(stored, chunks, source, old is None, vectors))

    def remove_stale(self, paths: Sequence[Path]) -> None:
        """Delete documents that came from ``paths`` but were not read intact this time
        (the file was deleted, or is now broken, or the CSV row is gone)."""
        files = {str(p.resolve()) for p in paths} | {str(p) for p in paths}
        folders = tuple(str(p.resolve()) + os.sep for p in paths if p.is_dir() or not p.exists())
        if self.root:
            files |= {f[len(self.root) :] for f in files if f.startswith(self.root)}
            folders += tuple(f[len(self.root) :] for f in folders if f.startswith(self.root))
        stale = [
            d.doc_id
            for d in self.store.documents(self.collection)
            if d.doc_id not in self.intact
            and d.path
            and (d.path in files or d.path.startswith(folders))
        ]
        if stale:
            self.report.removed = self.store.delete_documents(self.collection, stale)

    def finish(self) -> IngestReport:
        """Write what is buffered; a new collection that got no document is not left behind."""
        self.writer.flush()
        if self.embedder is not None and self.writer.dim:
            try:
                self.store.set_embedder(self.collection, self.embedder.name, self.writer.dim)
            except ColmeiaError as exc:
                self.report.errors.append(IngestError(self.collection, str(exc)))
        if not self.existed and not self.report.documents:
            self.store.delete_collection(self.collection)
        return self.report


def ingest(
    store: Store,
    collection: str,
    paths: Sequence[Path],
    *,
    chunker: str = "auto",
    csv_columns: CsvColumns | None = None,
    embedder: Embedder | None = None,
    cut_front_matter: bool | None = None,
    cut_references: bool | None = None,
    progress: ProgressFn | None = None,
    batch_chunks: int = 256,
    remove_missing: bool = True,
    relative_to: Path | None = None,
    pool_windows: bool = True,
    ray_workers: int = 0,
    ray_address: str | None = None,
    ray_embedder: Callable[[], Embedder | None] | None = None,
    memory_mb: int = 0,
) -> IngestReport:
    """Ingest files and folders (CSV files: one document per row) into ``collection``.

    ``memory_mb`` > 0 reads, cleans and chunks each file in a child process bounded to that
    many MB (:mod:`colmeia.rag.bounded`): a file that needs more fails with "too much memory"
    and the others go on; 0 reads in this process, unbounded.

    ``ray_workers`` > 0 parses, cleans and chunks the files in that many Ray tasks at a time
    (``ray_address``: ``None`` starts a local Ray, ``auto``/``ray://…`` join a cluster); the
    store and the search index stay with this process. ``ray_embedder`` (a picklable function
    that builds the same embedder as ``embedder``, e.g. ``functools.partial(
    embedder_from_settings, settings)``) embeds in the Ray tasks too; without it the vectors
    are made here, in batches.

    ``relative_to`` makes the ids and paths of files under that folder relative to it (a
    server keeps uploads in a folder of its own; its users should see ``lei.pdf``).

    Documents are counted once stored. ``cut_front_matter``/``cut_references`` default to
    on for academic works (theses, dissertations) and off otherwise. With ``remove_missing``
    a document that came from these paths before but was not read intact now (file deleted or
    broken, CSV row gone) is deleted, so it stops being found. A collection this call created
    is removed again when no document could be stored in it.

    With ``pool_windows`` the vectors of overlapping paragraph windows are pooled from their
    paragraphs, each embedded once (see :mod:`colmeia.rag.index.windows`); ``False`` embeds
    every window whole (about 11x the model time on a thesis).
    """
    run = _Session(
        store,
        collection,
        chunker=chunker,
        embedder=embedder,
        cut_front_matter=cut_front_matter,
        cut_references=cut_references,
        batch_chunks=batch_chunks,
        pool_windows=pool_windows,
    )
    if relative_to is not None:
        run.root = str(relative_to.resolve()) + os.sep
    report = run.report
    files, report.errors = list_files(paths)
    report.files = len(files)

    def tick(done: int, current: str) -> None:
        if progress is not None:
            progress(IngestProgress(done, len(files), report.documents, report.chunks, current))

    tick(0, "")
    if ray_workers:
        # Parse, clean and chunk in Ray tasks; this process keeps the store, the checks
        # (unchanged, duplicate ids) and the order, so the result equals a local run's.
        from colmeia.executors.ray_map import ray_map_ordered

        options = PrepareOptions(
            chunker,
            csv_columns,
            cut_front_matter,
            cut_references,
            embedder=ray_embedder if embedder is not None else None,
            pool_windows=pool_windows,
        )
        results = ray_map_ordered(
            prepare_file, files, options, workers=ray_workers, address=ray_address
        )
        for done, (path, prepared) in enumerate(results, start=1):
            if isinstance(prepared, Exception):  # a bug in a worker: this file fails, not all
                reason = f"failed in a Ray worker: {type(prepared).__name__}: {prepared}"
                report.errors.append(IngestError(str(path), reason.splitlines()[0]))
            else:
                _take_prepared(run, path, prepared)
            tick(done, str(path))
    elif memory_mb:
        from colmeia.rag.bounded import BoundedReader, FileFailed

        options = PrepareOptions(chunker, csv_columns, cut_front_matter, cut_references)
        with BoundedReader(memory_mb) as reader:
            for done, path in enumerate(files, start=1):
                read = reader.read(prepare_file, path, options)
                if isinstance(read, FileFailed):
                    log.warning("not ingested: %s: %s", path, read.reason)
                    report.errors.append(IngestError(str(path), read.reason))
                else:
                    _take_prepared(run, path, read)
                tick(done, str(path))
    else:
        for done, path in enumerate(files, start=1):
            for doc in _read_file(path, csv_columns, report.errors):
                _guarded(report.errors, path, run.handle, doc)
            tick(done, str(path))
    run.finish()
    if remove_missing and store.collection(collection) is not None:
        run.remove_stale(paths)
    tick(len(files), "")
    return report


def _take_prepared(run: _Session, path: Path, prepared: PreparedFile) -> None:
    """Store what a worker read of ``path`` (its errors go to the report)."""
    run.report.errors.extend(prepared.errors)
    for n, (doc, cleaned, chunks) in enumerate(prepared.documents):
        vecs = prepared.vectors[n] if prepared.vectors else None
        _guarded(run.report.errors, path, run.handle, doc, (cleaned, chunks), vecs)


def ingest_documents(
    store: Store,
    collection: str,
    documents: Iterable[ExtractedDocument],
    *,
    chunker: str = "auto",
    embedder: Embedder | None = None,
    cut_front_matter: bool | None = None,
    cut_references: bool | None = None,
    progress: ProgressFn | None = None,
    total: int = 0,
    batch_chunks: int = 256,
    pool_windows: bool = True,
) -> IngestReport:
    """Ingest documents already extracted (records joined with their PDFs, say); same
    bookkeeping as :func:`ingest`. ``total`` is only for the progress callback."""
    run = _Session(
        store,
        collection,
        chunker=chunker,
        embedder=embedder,
        cut_front_matter=cut_front_matter,
        cut_references=cut_references,
        batch_chunks=batch_chunks,
        pool_windows=pool_windows,
    )
    report = run.report
    for done, doc in enumerate(documents, start=1):
        run.handle(doc)
        report.files = done
        if progress is not None:
            progress(IngestProgress(done, total, report.documents, report.chunks, doc.title))
    return run.finish()


def _clean_and_chunk(
    doc: ExtractedDocument,
    chunker: Chunker,
    cut_front_matter: bool | None,
    cut_references: bool | None,
) -> tuple[ExtractedDocument, list[Chunk]]:
    from colmeia.rag.ingest import clean_document

    if doc.metadata.get("cleaned") is True:
        cleaned = doc  # cleaned by the caller (a work: its record page + its cleaned PDF)
    else:
        cleaned = clean_document(
            doc, cut_front_matter=cut_front_matter, cut_references=cut_references
        )
    return cleaned, list(chunker.chunk(cleaned))


def _failed(errors: list[IngestError], path: Path, exc: Exception) -> None:
    """An error row for ``path``: the reason a colmeia error gives, else the exception's."""
    if isinstance(exc, DocumentError):
        errors.append(IngestError(str(path), exc.reason))
    elif isinstance(exc, ColmeiaError):
        errors.append(IngestError(str(path), str(exc)))
    else:
        log.exception("unexpected failure ingesting %s", path)
        errors.append(IngestError(str(path), f"{type(exc).__name__}: {exc}"))


def _guarded(errors: list[IngestError], path: Path, fn: Callable[..., None], *args: Any) -> None:
    """Run ``fn``; a failure becomes an error row for ``path`` and the ingestion goes on."""
    try:
        fn(*args)
    except (ColmeiaError, OSError, UnicodeError, ValueError) as exc:
        _failed(errors, path, exc)


def _read_file(
    path: Path, csv_columns: CsvColumns | None, errors: list[IngestError]
) -> Iterator[ExtractedDocument]:
    """The documents of one file (a CSV gives one per row); what fails goes to ``errors``."""
    from colmeia.rag.ingest import extract, iter_csv_records

    try:
        yield from _documents(path, csv_columns, errors, extract, iter_csv_records)
    except (ColmeiaError, OSError, UnicodeError, ValueError) as exc:
        _failed(errors, path, exc)


@dataclass(frozen=True, slots=True)
class PrepareOptions:
    """How :func:`prepare_file` reads, cleans, chunks (and embeds) a file."""

    chunker: str
    csv_columns: CsvColumns | None
    cut_front_matter: bool | None
    cut_references: bool | None
    embedder: Callable[[], Embedder | None] | None = None
    pool_windows: bool = True


@dataclass(slots=True)
class PreparedFile:
    """One file read, cleaned and chunked: its documents as ``(read, cleaned, chunks)``, and
    with an embedder the vectors of each document's stored chunks."""

    documents: list[tuple[ExtractedDocument, ExtractedDocument, list[Chunk]]]
    errors: list[IngestError]
    vectors: list[npt.NDArray[np.float32]] = field(default_factory=list)


_WORKER_EMBEDDERS: dict[int, Embedder | None] = {}


def _worker_embedder(factory: Callable[[], Embedder | None]) -> Embedder | None:
    """One embedder per factory per worker process: loading a model per file would dominate."""
    key = hash(repr(factory))
    if key not in _WORKER_EMBEDDERS:
        _WORKER_EMBEDDERS[key] = factory()
    return _WORKER_EMBEDDERS[key]


def prepare_file(path: Path, options: PrepareOptions) -> PreparedFile:
    """Read, clean and chunk one file without touching a store (runs in a Ray task).

    A document that fails to clean or chunk is reported like in a local run; the store-side
    checks (unchanged, duplicate id) are the caller's.
    """
    from colmeia.rag.ingest import chunker_for

    chunker = chunker_for(options.chunker)
    errors: list[IngestError] = []
    documents = []
    for doc in _read_file(path, options.csv_columns, errors):
        try:
            cleaned, chunks = _clean_and_chunk(
                doc, chunker, options.cut_front_matter, options.cut_references
            )
        except ColmeiaError as exc:
            errors.append(IngestError(doc.path or doc.source_id, str(exc)))
            continue
        documents.append((doc, cleaned, chunks))
    prepared = PreparedFile(documents, errors)
    embedder = _worker_embedder(options.embedder) if options.embedder else None
    if embedder is not None and documents:
        # The same windows the writer would embed: chunk texts do not depend on the ids
        # the caller may still make relative.
        stored = [_to_stored(cleaned, chunks) for _, cleaned, chunks in documents]
        windows = [w for chunks in stored for w in _windows(chunks, options.pool_windows)]
        matrix = embed_windows(embedder, windows)
        start = 0
        for doc_chunks in stored:
            prepared.vectors.append(matrix[start : start + len(doc_chunks)])
            start += len(doc_chunks)
    return prepared


def _documents(
    path: Path,
    csv_columns: CsvColumns | None,
    errors: list[IngestError],
    extract: Callable[[Path], ExtractedDocument],
    iter_csv_records: Callable[..., Iterator[ExtractedDocument]],
) -> Iterator[ExtractedDocument]:
    if path.suffix.lower() != ".csv":
        yield extract(path)
        return
    header, sample = _csv_sample(path)

    def on_error(exc: Exception) -> None:
        if isinstance(exc, DocumentError):
            errors.append(IngestError(exc.path, exc.reason))
        elif isinstance(exc, RecordError):
            errors.append(IngestError(f"{path}: {exc.record}", exc.reason))
        else:
            errors.append(IngestError(str(path), str(exc)))

    from colmeia.rag.ingest.jurisprudence import has_decision_columns, iter_jurisprudence

    if (csv_columns is not None and csv_columns.layout == "jurisprudence") or (
        has_decision_columns(header)
    ):
        yield from iter_jurisprudence(path, on_error)
        return
    cols = detect_csv_columns(header, csv_columns, sample)
    yield from iter_csv_records(
        path,
        id_column=cols.id_column,
        text_column=cols.text_column,
        title_column=cols.title_column,
        metadata_columns=cols.metadata_columns,
        type_column=cols.type_column,
        date_column=cols.date_column,
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
