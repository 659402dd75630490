"""PDF text extraction with pypdfium2, one page at a time."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

from colmeia.errors import DocumentError
from colmeia.rag.types import Page

__all__ = ["iter_pdf_pages", "pdf_title"]

logger = logging.getLogger(__name__)


def _open(path: Path) -> object:
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    try:
        # Loading from a path lets PDFium read the file lazily instead of holding it in memory.
        return pdfium.PdfDocument(path)
    except pdfium.PdfiumError as exc:
        code = getattr(exc, "err_code", None)
        if code == pdfium_c.FPDF_ERR_PASSWORD:
            reason = "the PDF is encrypted (password protected); remove the password and try again"
        elif code == pdfium_c.FPDF_ERR_SECURITY:
            reason = "the PDF uses an unsupported encryption scheme; save an unencrypted copy"
        elif code == pdfium_c.FPDF_ERR_FILE:
            reason = "the file could not be opened by the PDF reader (missing or unreadable)"
        else:
            reason = (
                "the PDF is corrupt or truncated and cannot be parsed "
                f"({exc}); re-download or re-export it"
            )
        raise DocumentError(str(path), reason) from exc


def pdf_title(path: Path) -> str:
    """The Title from the PDF's metadata, or ``""``."""
    import pypdfium2 as pdfium

    pdf = _open(path)
    assert isinstance(pdf, pdfium.PdfDocument)
    try:
        return str(pdf.get_metadata_value("Title") or "").strip()
    finally:
        pdf.close()


def iter_pdf_pages(path: Path, *, display: str | None = None) -> Iterator[Page]:
    """Yield each page's raw text (1-based page numbers); one page in memory at a time.

    Raises DocumentError for corrupt/encrypted PDFs and for PDFs with no text layer at all.
    """
    import pypdfium2 as pdfium

    name = display or str(path)
    pdf = _open(path)
    assert isinstance(pdf, pdfium.PdfDocument)
    any_text = False
    try:
        n = len(pdf)
        for i in range(n):
            try:
                page = pdf[i]
                textpage = page.get_textpage()
                try:
                    text = textpage.get_text_range()
                finally:
                    textpage.close()
                    page.close()
            except pdfium.PdfiumError as exc:
                logger.warning("%s: page %d could not be read (%s); skipped", name, i + 1, exc)
                text = ""
            text = text.replace("\r\n", "\n").replace("\r", "\n")
            if text.strip():
                any_text = True
            elif i + 1 == n and not any_text:
                break
            yield Page(number=i + 1, text=text)
    finally:
        pdf.close()
    if not any_text:
        raise DocumentError(
            name,
            f"the PDF has no text layer on any of its {n} page(s) (scanned or image-only); "
            "run OCR on it first (e.g. ocrmypdf) and ingest the OCR'd file",
        )
