"""PDF text extraction with pypdfium2, one page at a time."""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from colmeia.errors import DocumentError
from colmeia.rag.ingest.pdf_layout import INDENT, annotate_layout
from colmeia.rag.ingest.pdf_limits import DEFAULT_PDF_LIMITS, PdfLimits, inflated_size
from colmeia.rag.types import Page

__all__ = ["INDENT", "cover_title", "iter_pdf_pages", "pdf_title"]

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


_NOT_TITLE_RE = re.compile(
    r"^(?:UNIVERSI|FACULDADE|DEPARTAMENT|PROGRAMA|INSTITUT|ESCOLA|CENTRO|MINIST|SECRETARIA|"
    r"PONTIF|FUNDA|ORIENTADOR|CO-?ORIENTADOR|DISSERTA|TESE\b|MONOGRAFIA|TRABALHO DE CONCLUS|"
    r"BRAS[ÍI]LIA|S[ÃA]O PAULO|RIO DE JANEIRO)|\b(?:19|20)\d\d\b|^[\W\d]*$",
    re.IGNORECASE,
)
_JUNK_TITLE_RE = re.compile(
    r"^(?:microsoft word|untitled|sem t[íi]tulo|document\d*$)|\.(?:docx?|pdf|tex)$", re.I
)


def usable_title(title: str) -> bool:
    """Whether a PDF's metadata title reads like a title (not "Microsoft Word - x.doc")."""
    t = " ".join(title.split())
    return len(t) >= 8 and " " in t and not _JUNK_TITLE_RE.search(t)


def cover_title(path: Path, *, pages: int = 2) -> str:
    """The title printed on the cover: the longest run of lines set in the largest font on the
    first pages, leaving out institution, degree, city and date lines; ``""`` if none."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    pdf = _open(path)
    assert isinstance(pdf, pdfium.PdfDocument)
    best = ""
    try:
        for i in range(min(pages, len(pdf))):
            page = pdf[i]
            textpage = page.get_textpage()
            try:
                lines: list[tuple[str, float]] = []
                chars: list[str] = []
                size = 0.0
                for k in range(textpage.count_chars()):
                    code = pdfium_c.FPDFText_GetUnicode(textpage, k)
                    if code in (10, 13):
                        if "".join(chars).strip():
                            lines.append(("".join(chars).strip(), size))
                        chars, size = [], 0.0
                        continue
                    chars.append(chr(code))
                    size = max(size, round(float(pdfium_c.FPDFText_GetFontSize(textpage, k)), 1))
                if "".join(chars).strip():
                    lines.append(("".join(chars).strip(), size))
            finally:
                textpage.close()
                page.close()
            kept = [(t, s) for t, s in lines if not _NOT_TITLE_RE.search(t)]
            if not kept:
                continue
            top = max(s for _, s in kept)
            runs: list[list[str]] = [[]]
            for t, s in lines:
                if s == top and not _NOT_TITLE_RE.search(t):
                    runs[-1].append(t)
                elif runs[-1]:
                    runs.append([])
            title = max((" ".join(r) for r in runs), key=len)
            if len(title) > len(best) and len(title.split()) >= 3:
                best = title
            if best:
                break
    finally:
        pdf.close()
    return " ".join(best.split())[:300]


_INDENT_MIN, _INDENT_MAX = 6.0, 60.0  # points: 2 mm to 2 cm (block quotes go 4 cm in)


def mark_indented_lines(textpage: object, text: str) -> str:
    """``text`` with a tab before each line whose first character sits 6-60 points right of
    the page's left margin: the first-line indent of a paragraph, the one sign of a paragraph
    that ends exactly at the right margin. The margin is the leftmost start shared by at least
    two lines and 15 % of them (a page number or a figure label alone does not move it)."""
    count = getattr(textpage, "count_chars", None)
    if count is None or len(text) != count():
        return text  # characters and text do not line up (astral characters): no marks
    lines = text.split("\n")
    starts: list[float | None] = []
    pos = 0
    for line in lines:
        lead = len(line) - len(line.lstrip(" "))
        if line.strip() and line[lead] not in "\r\ufffe":
            left, _, _, _ = textpage.get_charbox(pos + lead)  # type: ignore[attr-defined]
            starts.append(float(left))
        else:
            starts.append(None)
        pos += len(line) + 1
    placed = [x for x in starts if x is not None]
    bins = Counter(round(x / 2) for x in placed)
    shared = [b for b, c in bins.items() if c >= max(2, 0.15 * len(placed))]
    if not shared:
        return text
    margin = 2 * min(shared)
    return "\n".join(
        INDENT + line.lstrip(" ")
        if x is not None and _INDENT_MIN <= x - margin <= _INDENT_MAX
        else line
        for line, x in zip(lines, starts, strict=True)
    )


def iter_pdf_pages(
    path: Path, *, display: str | None = None, limits: PdfLimits = DEFAULT_PDF_LIMITS
) -> Iterator[Page]:
    """Yield each page's raw text (1-based page numbers); one page in memory at a time.

    Raises DocumentError for corrupt/encrypted PDFs, for PDFs with no text layer at all, with
    more pages than ``limits.max_pages`` or with a page slower than ``limits.max_page_seconds``.
    """
    import time

    import pypdfium2 as pdfium

    name = display or str(path)
    bound = int(limits.max_inflated_mb * 1024 * 1024)
    if inflated_size(path, bound) > bound:
        raise DocumentError(
            name,
            f"its compressed streams inflate to over {limits.max_inflated_mb:g} MB (a PDF "
            "bomb, or a file to split); the file was not ingested",
        )
    pdf = _open(path)
    assert isinstance(pdf, pdfium.PdfDocument)
    any_text = False
    try:
        n = len(pdf)
        if n > limits.max_pages:
            raise DocumentError(
                name, f"the PDF has {n} pages, over the limit of {limits.max_pages}; split it"
            )
        for i in range(n):
            started = time.monotonic()
            try:
                page = pdf[i]
                textpage = page.get_textpage()
                try:
                    raw = textpage.get_text_range()
                    try:
                        text = annotate_layout(textpage, raw)
                    except (ArithmeticError, LookupError, ValueError) as exc:
                        # The layout marks are a help, not the text: a page whose geometry
                        # they cannot read is kept with its indents only.
                        logger.warning("%s: page %d layout not read (%s)", name, i + 1, exc)
                        text = raw
                    if text == raw:
                        text = mark_indented_lines(textpage, raw)
                finally:
                    textpage.close()
                    page.close()
            except pdfium.PdfiumError as exc:
                logger.warning("%s: page %d could not be read (%s); skipped", name, i + 1, exc)
                text = ""
            took = time.monotonic() - started
            if took > limits.max_page_seconds:
                raise DocumentError(
                    name,
                    f"page {i + 1} took {took:.0f} s to read, over the limit of "
                    f"{limits.max_page_seconds:g} s per page; the file was not ingested",
                )
            # PDFium marks a hyphen it found at a line end with U+FFFE and drops the break;
            # deleting the mark fuses "pode-se" into "podese". Give back the hyphen and the
            # break: the cleaner decides, knowing the document's words, which hyphens stay.
            text = text.replace("\ufffe", "-\n").replace("\r\n", "\n").replace("\r", "\n")
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
