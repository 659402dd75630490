"""Small helpers shared by the extractors and chunkers: hashing, offsets, text hygiene."""

from __future__ import annotations

import bisect
import hashlib
import re
import unicodedata
from pathlib import Path

from colmeia.rag.types import ExtractedDocument

__all__ = [
    "PAGE_SEPARATOR",
    "PageLocator",
    "decode_bytes",
    "hash_file",
    "hash_text",
    "normalize_text",
]

PAGE_SEPARATOR = "\n\n"

# C0/C1 controls except tab/newline/CR, plus lone surrogates (they cannot be encoded to UTF-8).
_CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
# Invisible characters that only get in the way of matching (soft hyphen, zero-width, BOM).
_INVISIBLE_RE = re.compile("[\u00ad\u200b\u200c\u200d\u2060\ufeff]")
_SPACES_RE = re.compile("[ \t\u00a0\u2000-\u200a\u202f\u205f\u3000]+")
_TRAILING_SPACE_RE = re.compile(" +\n| +$")
_MANY_BLANKS_RE = re.compile("\n{3,}")


def normalize_text(text: str) -> str:
    """NFC, no control characters or lone surrogates, single spaces, at most one blank line."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL_RE.sub("", text)
    text = _INVISIBLE_RE.sub("", text)
    text = unicodedata.normalize("NFC", text)
    text = _SPACES_RE.sub(" ", text)
    text = _TRAILING_SPACE_RE.sub(lambda m: "\n" if m.group(0).endswith("\n") else "", text)
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
    """Maps character offsets in ``doc.text`` back to page numbers."""

    __slots__ = ("_numbers", "_starts")

    def __init__(self, doc: ExtractedDocument) -> None:
        starts: list[int] = []
        numbers: list[int] = []
        pos = 0
        for page in doc.pages:
            starts.append(pos)
            numbers.append(page.number)
            pos += len(page.text) + len(PAGE_SEPARATOR)
        self._starts = starts or [0]
        self._numbers = numbers or [1]

    def page_at(self, offset: int) -> int:
        """Page number holding character ``offset``."""
        i = bisect.bisect_right(self._starts, offset) - 1
        return self._numbers[max(i, 0)]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """First and last page of the half-open character range ``[start, end)``."""
        return self.page_at(start), self.page_at(max(start, end - 1))
