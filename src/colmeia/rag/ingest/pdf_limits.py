"""How much of a PDF the ingester reads: a page count, seconds per page, inflated bytes.

PDFium cannot be interrupted inside a page, so the time limit is checked after each page: a
page that took longer than ``max_page_seconds`` ends the file (refused, naming the page) instead
of letting every following page of a pathological file take as long.

Nor can PDFium be told how much a compressed stream may inflate to: a 612 KB PDF whose one
stream inflates to 600 MB held the reader at 1.4 GB. :func:`inflated_size` inflates every
Flate stream of the file first, a megabyte at a time and only counting, and stops as soon as
the total passes ``max_inflated_mb``: such a file is refused before PDFium opens it.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DEFAULT_PDF_LIMITS", "PdfLimits", "inflated_size"]

_STREAM = re.compile(rb"(?<!end)stream\r?\n")
_STEP = 1 << 20


@dataclass(frozen=True, slots=True)
class PdfLimits:
    """Most pages read from one PDF, the longest one page may take, and the most its
    compressed streams may inflate to together."""

    max_pages: int = 5_000
    max_page_seconds: float = 20.0
    max_inflated_mb: float = 512.0


def inflated_size(path: Path, limit: int) -> int:
    """The bytes the file's Flate streams inflate to, counted up to just past ``limit`` (the
    count stops there). Streams that are not zlib data (images, other filters) count zero."""
    data = memoryview(path.read_bytes())
    raw = data.obj
    assert isinstance(raw, bytes)
    total = 0
    for found in _STREAM.finditer(raw):
        start = found.end()
        end = raw.find(b"endstream", start)
        chunk = data[start : end if end >= 0 else len(raw)]
        inflater = zlib.decompressobj()
        try:
            total += len(inflater.decompress(chunk, _STEP))
            while inflater.unconsumed_tail and not inflater.eof and total <= limit:
                out = inflater.decompress(inflater.unconsumed_tail, _STEP)
                if not out:
                    break  # nothing more comes out of what is left
                total += len(out)
        except zlib.error:
            continue
        if total > limit:
            break
    return total


DEFAULT_PDF_LIMITS = PdfLimits()
