"""Files → :class:`ExtractedDocument`: picks the extractor by content (magic bytes) and suffix.

Every failure is a :class:`DocumentError` naming the file and the reason, so a batch can report
it and go on with the other files.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Literal

from colmeia.errors import DocumentError
from colmeia.rag.ingest._common import hash_file, normalize_text
from colmeia.rag.ingest.archive import DEFAULT_LIMITS, ArchiveLimits, check_archive
from colmeia.rag.ingest.pdf_limits import DEFAULT_PDF_LIMITS, PdfLimits
from colmeia.rag.types import ExtractedDocument, Page

__all__ = ["SUPPORTED_SUFFIXES", "detect_format", "extract"]

logger = logging.getLogger(__name__)

SUPPORTED_SUFFIXES: dict[str, str] = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
}

_KNOWN_UNSUPPORTED = {
    ".doc": "legacy Word .doc is not supported; save it as .docx or PDF",
    ".odt": "OpenDocument text is not supported; save it as .docx or PDF",
    ".rtf": "RTF is not supported; save it as .docx or PDF",
    ".csv": "CSV files hold records, not a document: ingest them row by row "
    "(iter_csv_records / `colmeia ingest --id-column ... --text-column ...`)",
    ".xlsx": "spreadsheets are not supported; export the sheet as CSV and ingest its rows",
    ".pptx": "presentations are not supported; export them as PDF",
}

Engine = Literal["auto", "pdfium", "docling"]


def _sniff(head: bytes, suffix: str) -> str | None:
    if b"%PDF-" in head[:1024]:
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        return "docx" if suffix == ".docx" else "zip"
    lowered = head[:512].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if lowered.startswith((b"<!doctype html", b"<html")):
        return "html"
    return None


def detect_format(path: Path, head: bytes) -> str:
    """Format name for ``path`` from its first bytes and suffix; DocumentError if unsupported."""
    suffix = path.suffix.lower()
    sniffed = _sniff(head, suffix)
    by_suffix = SUPPORTED_SUFFIXES.get(suffix)
    if by_suffix == "pdf" and sniffed != "pdf":
        raise DocumentError(
            str(path),
            "the file has a .pdf name but is not a PDF (no %PDF- header); it is corrupt or "
            "mislabelled",
        )
    if by_suffix == "docx" and sniffed != "docx":
        raise DocumentError(
            str(path), "the file has a .docx name but is not a Word (zip) package; it is corrupt"
        )
    if sniffed in ("pdf", "html") and by_suffix not in ("markdown", "text"):
        return sniffed
    if by_suffix is not None:
        return by_suffix
    if suffix in _KNOWN_UNSUPPORTED:
        raise DocumentError(str(path), _KNOWN_UNSUPPORTED[suffix])
    supported = ", ".join(sorted(SUPPORTED_SUFFIXES))
    raise DocumentError(
        str(path),
        f"unsupported format {suffix or '(no extension)'!s}; supported: .csv (one document per "
        f"row), {supported}",
    )


def _check_file(path: Path, max_bytes: int) -> tuple[int, bytes]:
    name = str(path)
    try:
        st = path.stat()
    except FileNotFoundError:
        raise DocumentError(name, "no such file; check the path") from None
    except OSError as exc:
        raise DocumentError(name, f"the file cannot be accessed ({exc.strerror or exc})") from exc
    if path.is_dir():
        raise DocumentError(name, "this is a directory, not a file; pass the files inside it")
    if not path.is_file():
        raise DocumentError(name, "not a regular file (device, socket or pipe); cannot be read")
    if st.st_size > max_bytes:
        raise DocumentError(
            name,
            f"the file is {st.st_size / 1e6:.1f} MB, over the {max_bytes / 1e6:.1f} MB limit "
            "(max_bytes); split it or raise the limit",
        )
    if st.st_size == 0:
        raise DocumentError(name, "the file is empty (0 bytes)")
    try:
        with path.open("rb") as fh:
            head = fh.read(4096)
    except PermissionError:
        raise DocumentError(
            name, "permission denied: the file cannot be read; fix its permissions"
        ) from None
    except OSError as exc:
        raise DocumentError(name, f"the file cannot be read ({exc.strerror or exc})") from exc
    if not os.access(path, os.R_OK):
        raise DocumentError(name, "permission denied: the file cannot be read; fix its permissions")
    return st.st_size, head


def _read_all(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise DocumentError(str(path), f"the file cannot be read ({exc.strerror or exc})") from exc


def extract(
    path: Path,
    *,
    doc_type: str | None = None,
    max_bytes: int = 200_000_000,
    engine: Engine = "auto",
    archive_limits: ArchiveLimits = DEFAULT_LIMITS,
    pdf_limits: PdfLimits = DEFAULT_PDF_LIMITS,
) -> ExtractedDocument:
    """Extract the text of one file, page by page.

    ``doc_type`` is a label kept on the document (e.g. ``"lei"``, ``"tese"``) for filtering;
    it defaults to the detected format (``"pdf"``, ``"docx"``, ``"html"``, ``"markdown"``,
    ``"text"``). ``engine="docling"`` uses the optional Docling extra for PDFs (its models must
    be on disk); ``"auto"``/``"pdfium"`` use pypdfium2. Zip-based files (DOCX) are checked
    against ``archive_limits`` before parsing, PDFs against ``pdf_limits`` (pages, seconds
    per page). The text is normalised (NFC, no control
    characters) but not cleaned: call :func:`clean_document` for PDF line joining etc.

    Raises:
        DocumentError: the file is missing, unreadable, empty, too big, of an unsupported
            format, corrupt, encrypted, or has no text (image-only PDF).
    """
    path = Path(path)
    name = str(path)
    size, head = _check_file(path, max_bytes)
    fmt = detect_format(path, head)

    title = ""
    raw_pages: list[Page]
    if fmt == "pdf":
        if engine == "docling":
            from colmeia.rag.ingest.docling_extract import extract_docling

            raw_pages = [Page(i + 1, t) for i, t in enumerate(extract_docling(path))]
        else:
            from colmeia.rag.ingest.pdf import cover_title, iter_pdf_pages, pdf_title, usable_title

            raw_pages = list(iter_pdf_pages(path, display=name, limits=pdf_limits))
            title = pdf_title(path)
            if not usable_title(title):
                title = cover_title(path) or title
    elif fmt == "docx":
        from colmeia.rag.ingest.office import extract_docx

        check_archive(path, archive_limits)
        title, text = extract_docx(path)
        raw_pages = [Page(1, text)]
    elif fmt == "html":
        from colmeia.rag.ingest.html import extract_html

        title, text = extract_html(path, _read_all(path))
        raw_pages = [Page(1, text)]
    elif fmt == "markdown":
        from colmeia.rag.ingest.text import extract_markdown

        title, texts = extract_markdown(_read_all(path))
        raw_pages = [Page(i + 1, t) for i, t in enumerate(texts)]
    else:
        from colmeia.rag.ingest.text import extract_plain

        data = _read_all(path)
        if data[:8192].count(b"\x00") > 16:
            raise DocumentError(name, "the file looks binary (many NUL bytes), not text")
        title, texts = extract_plain(data)
        raw_pages = [Page(i + 1, t) for i, t in enumerate(texts)]

    # PDFium pages mark indented lines with a leading tab (paragraph starts): keep the marks
    # for the cleaner, which reads and removes them.
    keep = fmt == "pdf" and engine != "docling"
    pages = [Page(p.number, normalize_text(p.text, keep_indent=keep)) for p in raw_pages]
    if not any(p.text.strip() for p in pages):
        raise DocumentError(name, f"no text could be extracted from this {fmt} file")
    title = " ".join(title.split()) or path.stem
    return ExtractedDocument(
        source_id=name,
        title=title,
        pages=pages,
        content_hash=hash_file(path),
        path=name,
        doc_type=doc_type or fmt,
        metadata={"format": fmt, "filename": path.name, "size_bytes": size, "n_pages": len(pages)},
    )
