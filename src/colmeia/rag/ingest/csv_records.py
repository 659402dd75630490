"""CSV rows → one :class:`ExtractedDocument` each (JurisTCU statements, LexML dispositivos, theses).

Bad rows are reported one by one through ``on_error`` and skipped; the rest goes on.
A type column (``Tipo``: Dissertação, Tese) gives each record its ``doc_type`` and a date column
(``Defesa``: ``17/08/2017``, any common format) its ``year``.
LexML exports (columns ``Tipo, Rotulo, Texto, urn``) are recognised: the bracketed context
that prefixes each text is moved to ``heading``/``metadata``, container rows (título,
capítulo, seção, whole article) that only repeat their children are skipped, vetoed and revoked
dispositivos (``"(VETADO)."``) are not records (no text in force), each record gets a citation
path such as ``"Lei 8.078/1990, Art. 43, § 1º"``, its norm's kind as ``doc_type`` (``"Lei"``) and
its date from the URN (``urn:lex:br:federal:lei:1990-09-11;8078`` → 1990).
"""

from __future__ import annotations

import csv
import logging
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from colmeia.errors import DocumentError
from colmeia.rag.ingest._common import decode_bytes, hash_text, normalize_text
from colmeia.rag.ingest.chunk_legal import lapsed_status
from colmeia.rag.ingest.dates import iso_date, year_of
from colmeia.rag.ingest.lexml_names import lexml_kind, lexml_label
from colmeia.rag.types import ExtractedDocument, Page

__all__ = [
    "ErrorHandler",
    "is_lexml_header",
    "iter_csv_records",
    "lexml_kind",
    "lexml_label",
    "lexml_path",
    "read_csv_sample",
]

logger = logging.getLogger(__name__)

ErrorHandler = Callable[[DocumentError], None]

_LEXML_COLUMNS = {"Tipo", "Rotulo", "Texto", "urn"}
# Rows whose text is the concatenation of their children: indexing them would duplicate text.
_LEXML_CONTAINERS = frozenset({"TIT", "CAP", "SEC", "SUB", "LIV", "PRT", "ART"})
_URN_DATE_RE = re.compile(r"^urn:lex:[^;!]*?:(\d{4}-\d{2}-\d{2})(?:[;:!]|$)")
_ROTULO_PART_RE = re.compile(r"^(Art\.\s*[\dA-Z\-]+[º°]?)\.?$")


def _raise_field_limit() -> None:
    limit = sys.maxsize
    while True:
        try:
            csv.field_size_limit(limit)
            return
        except OverflowError:
            limit //= 10


def is_lexml_header(columns: Sequence[str]) -> bool:
    """True when a CSV header is a LexML export's (``Tipo, Rotulo, Texto, urn``)."""
    return {c.strip() for c in columns} >= _LEXML_COLUMNS


def lexml_date(urn: str, stem: str = "") -> str | None:
    """The norm's date (ISO) from its URN, else from the file stem (``lei_8078_19900911``)."""
    m = _URN_DATE_RE.match(urn.strip())
    if m:
        return iso_date(m.group(1))
    tail = stem.strip().rsplit("_", 1)[-1]
    return iso_date(tail) if len(tail) == 8 else None


def lexml_path(rotulo: str) -> str:
    """``"lei_8078_19900911, Art. 26., caput, Inciso II, Alínea a"`` →
    ``"Lei 8.078/1990, Art. 26, inciso II, alínea a"``."""
    parts = [p.strip() for p in rotulo.split(",") if p.strip()]
    if not parts:
        return rotulo
    out = [lexml_label(parts[0])]
    for part in parts[1:]:
        low = part.lower()
        if low == "caput":
            continue
        if low.startswith("inciso "):
            part = "inciso " + part[7:]
        elif low.startswith("alínea "):
            part = "alínea " + part[7:]
        elif low.startswith("item "):
            part = "item " + part[5:]
        part = part.rstrip(".") if not part.endswith("º.") else part[:-1]
        m = _ROTULO_PART_RE.match(part)
        out.append(m.group(1) if m else part)
    return ", ".join(out)


def _split_lexml_text(text: str) -> tuple[str, list[str]]:
    """``"[ ementa | H1 | H2 | ] body"`` → ``("body", ["ementa", "H1", "H2"])``."""
    if not text.startswith("["):
        return text, []
    end = text.find("]")
    if end < 0:
        return text, []
    context = [p.strip() for p in text[1:end].split(" | ")]
    context = [p.strip(" |") for p in context if p.strip(" |")]
    return text[end + 1 :].strip(), context


def _open_text(path: Path) -> Iterator[str]:
    # Decoding the whole file handles cp1252/latin-1 exports too; CSVs here are small enough.
    data = path.read_bytes()
    yield from decode_bytes(data).splitlines(keepends=True)


def read_csv_sample(path: Path, limit: int = 1000) -> tuple[list[str], list[dict[str, str]]]:
    """The header and up to ``limit`` rows, decoded as :func:`iter_csv_records` decodes them.

    A row that does not parse ends the sample (the reader reports it later, row by row).

    Raises:
        DocumentError: the file cannot be read or its header cannot be parsed.
    """
    _raise_field_limit()
    try:
        reader = csv.reader(_open_text(Path(path)))
        header = [c.strip() for c in next(reader, [])]
    except OSError as exc:
        raise DocumentError(str(path), f"the CSV cannot be read ({exc.strerror or exc})") from exc
    except csv.Error as exc:
        raise DocumentError(str(path), f"the CSV header cannot be parsed ({exc})") from exc
    rows: list[dict[str, str]] = []
    try:
        for raw in reader:
            rows.append(dict(zip(header, raw, strict=False)))
            if len(rows) >= limit:
                break
    except csv.Error:
        pass
    return header, rows


def iter_csv_records(
    path: Path,
    *,
    id_column: str,
    text_column: str,
    title_column: str | None = None,
    metadata_columns: Sequence[str] | None = None,
    on_error: ErrorHandler | None = None,
    doc_type: str = "record",
    lexml: bool | None = None,
    type_column: str | None = None,
    date_column: str | None = None,
) -> Iterator[ExtractedDocument]:
    """Yield one document per CSV row.

    ``source_id`` is the row's id; ``content_hash`` hashes the row's text and metadata (so an
    edited row is re-ingested, an unchanged one is not). Columns other than id/text/title go to
    ``metadata`` (only ``metadata_columns`` when given). ``type_column`` gives each row's
    ``doc_type`` (``doc_type`` is the default for rows where it is empty); ``date_column`` gives
    ``metadata["year"]`` (and ``metadata["date"]``, ISO, for full dates) from a date in any
    common format. Rows with an empty id or text, or a duplicate id, are passed to ``on_error``
    as :class:`DocumentError` (``path`` names the file, row and id) and skipped; without
    ``on_error`` they are logged as warnings. ``lexml`` forces/disables LexML handling (default:
    detected from the columns).

    Raises:
        DocumentError: the file cannot be read, is empty, or lacks the id/text columns.
    """
    path = Path(path)
    name = str(path)
    _raise_field_limit()
    try:
        lines = _open_text(path)
        reader = csv.DictReader(lines)
        header = reader.fieldnames
    except OSError as exc:
        raise DocumentError(name, f"the CSV cannot be read ({exc.strerror or exc})") from exc
    except csv.Error as exc:
        raise DocumentError(name, f"the CSV header cannot be parsed ({exc})") from exc
    if not header:
        raise DocumentError(name, "the CSV is empty (no header row)")
    columns = [c.strip() for c in header]
    wanted = (id_column, text_column, title_column, type_column, date_column)
    missing = [c for c in wanted if c and c not in columns]
    if missing:
        raise DocumentError(
            name,
            f"column(s) {', '.join(missing)} not found; the header has: {', '.join(columns)}",
        )
    is_lexml = is_lexml_header(columns) if lexml is None else lexml
    if metadata_columns is None:
        meta_cols = [c for c in columns if c and c not in (id_column, text_column, title_column)]
    else:
        meta_cols = list(metadata_columns)
    label = lexml_label(path.stem) if is_lexml else ""
    default_type = (lexml_kind(path.stem) or doc_type) if is_lexml else doc_type
    lapsed = 0

    def report(row_no: int, record_id: str, reason: str) -> None:
        where = f"{name}, row {row_no}" + (f" (id {record_id})" if record_id else "")
        err = DocumentError(where, reason)
        if on_error is not None:
            on_error(err)
        else:
            logger.warning("%s", err)

    seen: set[str] = set()
    row_no = 1
    while True:
        try:
            raw = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            row_no += 1
            report(row_no, "", f"the row cannot be parsed as CSV ({exc})")
            continue
        row_no += 1
        row = {(k or "").strip(): v for k, v in raw.items() if isinstance(v, str)}
        record_id = (row.get(id_column) or "").strip()
        text = normalize_text(row.get(text_column) or "")
        if raw.get(None):
            report(row_no, record_id, "the row has more fields than the header; check quoting")
            continue
        if not record_id:
            report(row_no, "", f"empty id in column {id_column!r}")
            continue
        if record_id in seen:
            report(row_no, record_id, f"duplicate id {record_id!r}; the first row with it was kept")
            continue
        if is_lexml and row.get("Tipo", "").strip().upper() in _LEXML_CONTAINERS:
            continue
        heading = ""
        metadata: dict[str, Any] = {c: normalize_text(row.get(c) or "") for c in meta_cols}
        title = normalize_text(row.get(title_column) or "") if title_column else ""
        row_type = normalize_text(row.get(type_column) or "") if type_column else ""
        if date_column:
            _add_date(metadata, row.get(date_column) or "")
        if is_lexml:
            text, context = _split_lexml_text(text)
            if text and lapsed_status(text):
                # Vetoed/revoked: no text in force to search; the citation paths of its
                # siblings come from their own Rotulo, so nothing else changes.
                lapsed += 1
                seen.add(record_id)
                continue
            if not date_column:
                _add_date(metadata, lexml_date(row.get("urn", ""), path.stem) or "")
            cite = lexml_path(row.get("Rotulo", ""))
            metadata["path"] = cite
            metadata["document"] = label
            metadata["context"] = " | ".join(context)
            # The first context item is the norm's ementa; the rest are its headings.
            heading = " > ".join(context[1:]) if len(context) > 1 else ""
            metadata["heading"] = heading
            title = title or cite
        if not text:
            report(row_no, record_id, f"empty text in column {text_column!r}")
            continue
        seen.add(record_id)
        yield ExtractedDocument(
            source_id=record_id,
            title=title or record_id,
            pages=[Page(1, text)],
            content_hash=hash_text(text, title, *(f"{k}={v}" for k, v in sorted(metadata.items()))),
            path=name,
            doc_type=row_type or default_type,
            metadata=metadata,
        )
    if lapsed:
        logger.info("%s: %d vetoed or revoked dispositivos not indexed", name, lapsed)


def _add_date(metadata: dict[str, Any], value: str) -> None:
    year = year_of(value)
    if year is not None:
        metadata["year"] = year
    full = iso_date(value)
    if full is not None and "date" not in metadata:
        metadata["date"] = full
