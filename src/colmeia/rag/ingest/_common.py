"""Small helpers shared by the extractors and chunkers: hashing, offsets, text hygiene."""

from __future__ import annotations

import bisect
import hashlib
import re
import unicodedata
from pathlib import Path
from typing import Any

from colmeia.rag.types import Chunk, ExtractedDocument, Page

__all__ = [
    "PAGE_SEPARATOR",
    "PageLocator",
    "SpanChunks",
    "decode_bytes",
    "hash_file",
    "hash_text",
    "normalize_text",
]

PAGE_SEPARATOR = "\n\n"

# C0/C1 controls except tab/newline/CR, lone surrogates and invisible characters (soft hyphen,
# zero-width, BOM) are deleted; exotic spaces become plain spaces. One translate() pass in C.
_DELETE = [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0)]
_DELETE += [*range(0xD800, 0xE000), 0xFFFE, 0xFFFF, 0x00AD, 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF]
_SPACES = [0x09, 0xA0, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000]
_TABLE: dict[int, str | None] = {c: None for c in _DELETE}
_TABLE.update({c: " " for c in _SPACES})
_NEEDS_TABLE_RE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\xa0\xad\u2000-\u200d\u202f\u205f\u2060\u3000\ud800-\udfff\ufeff\ufffe\uffff\t]"
)
# Kept with the indent marks: the PDF layout marks (rag/ingest/pdf_layout.py, U+001C-U+001F).
_TABLE_KEEP_TAB = {c: v for c, v in _TABLE.items() if c not in (0x09, 0x1C, 0x1D, 0x1E, 0x1F)}
_INNER_TAB_RE = re.compile(r"(?<=[^\n\t])\t")
_LEADING_TABS_RE = re.compile(r"^[\t ]*\t[\t ]*", re.M)
_MULTI_SPACE_RE = re.compile(" {2,}")
_TRAILING_SPACE_RE = re.compile(" +(?=\n)|^ +", re.M)
_MANY_BLANKS_RE = re.compile("\n{3,}")


def normalize_text(text: str, *, keep_indent: bool = False) -> str:
    """NFC, no control characters or lone surrogates, single spaces, at most one blank line.

    With ``keep_indent`` one tab leading a line stays (PDF extraction marks a paragraph's
    indented first line so; the cleaner reads the mark and removes it), and so do the PDF
    layout marks (footnote lines, superscripts, column gaps)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    table = _TABLE_KEEP_TAB if keep_indent else _TABLE
    if keep_indent and "\t" in text:
        text = _LEADING_TABS_RE.sub("\t", _INNER_TAB_RE.sub(" ", text))
    if _NEEDS_TABLE_RE.search(text):
        text = text.translate(table)
    if not text.isascii() and not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    if "  " in text:
        text = _MULTI_SPACE_RE.sub(" ", text)
    if " \n" in text or "\n " in text or text.startswith(" "):
        text = _TRAILING_SPACE_RE.sub("", text)
    if "\n\n\n" in text:
        text = _MANY_BLANKS_RE.sub("\n\n", text)
    return text.strip("\n ")


def hash_file(path: Path, *, block: int = 1 << 20) -> str:
    """sha256 of a file's bytes, read in blocks so memory stays flat."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(block):
            h.update(chunk)
    return h.hexdigest()


def hash_text(*parts: str) -> str:
    """sha256 of text parts (separated so that ("ab", "c") and ("a", "bc") differ)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x1f")
    return h.hexdigest()


def decode_bytes(data: bytes) -> str:
    """UTF-8 (with or without BOM) first; otherwise cp1252, then latin-1 (never fails)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


class PageLocator:
    """Maps character offsets in ``doc.text`` back to page numbers and printed labels."""

    __slots__ = ("_ends", "_pages", "_starts")

    def __init__(self, doc: ExtractedDocument) -> None:
        starts: list[int] = []
        ends: list[int] = []
        pos = 0
        for page in doc.pages:
            starts.append(pos)
            ends.append(pos + len(page.text))
            pos += len(page.text) + len(PAGE_SEPARATOR)
        self._starts = starts or [0]
        self._ends = ends or [0]
        self._pages = list(doc.pages) or [Page(1, "")]

    def _at(self, offset: int) -> tuple[int, str]:
        i = max(bisect.bisect_right(self._starts, offset) - 1, 0)
        page = self._pages[i]
        if page.carry and offset >= self._ends[i] - page.carry:
            return page.carry_page, page.carry_label
        return page.number, page.label

    def page_at(self, offset: int) -> int:
        """Page number holding character ``offset``."""
        return self._at(offset)[0]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """First and last page of the half-open character range ``[start, end)``."""
        return self.page_at(start), self.page_at(max(start, end - 1))

    def labels(self, start: int, end: int) -> tuple[str, str]:
        """Printed page labels of the first and last page of ``[start, end)`` (``""`` unknown)."""
        return self._at(start)[1], self._at(max(start, end - 1))[1]


class SpanChunks:
    """Builds chunks from character ranges of one document's text, with pages and ids."""

    __slots__ = ("_doc", "_locator", "_text")

    def __init__(self, doc: ExtractedDocument, text: str) -> None:
        self._doc = doc
        self._text = text
        self._locator = PageLocator(doc)

    def make(
        self,
        ordinal: int,
        start: int,
        end: int,
        *,
        path: str,
        heading: str,
        metadata: dict[str, Any],
    ) -> Chunk:
        """The chunk for ``text[start:end]``, numbered ``ordinal`` within the document."""
        first, last = self._locator.span(start, end)
        label, label_end = self._locator.labels(start, end)
        if label:
            metadata = {**metadata, "page_label": label, "page_label_end": label_end or label}
        return Chunk(
            doc_id=self._doc.source_id,
            chunk_id=f"{self._doc.source_id}#{ordinal}",
            text=self._text[start:end],
            page_start=first,
            page_end=last,
            char_start=start,
            char_end=end,
            path=path,
            heading=heading,
            metadata=metadata,
        )
