"""How much of a PDF the ingester reads: a page count and seconds per page.

PDFium cannot be interrupted inside a page, so the time limit is checked after each page: a
page that took longer than ``max_page_seconds`` ends the file (refused, naming the page) instead
of letting every following page of a pathological file take as long.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_PDF_LIMITS", "PdfLimits"]


@dataclass(frozen=True, slots=True)
class PdfLimits:
    """Most pages read from one PDF and the longest one page may take."""

    max_pages: int = 5_000
    max_page_seconds: float = 20.0


DEFAULT_PDF_LIMITS = PdfLimits()
