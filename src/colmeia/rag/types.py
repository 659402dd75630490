"""Data that flows through the RAG core: extracted documents, pages and chunks.

Plain dataclasses: they stay inside the process. Files and HTTP use Pydantic models.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["Chunk", "Chunker", "ExtractedDocument", "Page"]


@dataclass(slots=True)
class Page:
    """The text of one page (1-based ``number``); formats without pages have one page.

    ``label`` is the page number printed on the page when the cleaner found one (theses count
    pages from the cover but print numbers from the introduction: PDF page 17 is "1"), and
    citations show it. ``carry`` is how many characters at the end of ``text`` were printed on
    the next page (a paragraph the page break split, joined back), ``carry_page`` and
    ``carry_label`` that page's number and label.
    """

    number: int
    text: str
    label: str = ""
    carry: int = 0
    carry_page: int = 0
    carry_label: str = ""


@dataclass(slots=True)
class ExtractedDocument:
    """A source turned into text, page by page, before chunking.

    ``source_id`` is what users see as ``doc_id``: the CSV id column for row records, or the
    file path for files. ``content_hash`` identifies the content (re-ingest detection).
    """

    source_id: str
    title: str
    pages: list[Page]
    content_hash: str
    path: str = ""
    doc_type: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return "\n\n".join(p.text for p in self.pages)


@dataclass(slots=True)
class Chunk:
    """A passage to index, with everything needed to cite it.

    ``char_start``/``char_end`` are offsets into the document's cleaned text
    (``ExtractedDocument.text`` after cleaning); ``path`` is the hierarchy path, e.g.
    ``"Lei 8.078/1990, Art. 43, § 1º"``; ``heading`` the enclosing headings
    (Título/Capítulo/Seção or the section title of a thesis).
    """

    doc_id: str
    chunk_id: str
    text: str
    page_start: int = 1
    page_end: int = 1
    char_start: int = 0
    char_end: int = 0
    path: str = ""
    heading: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)


class Chunker(Protocol):
    """Text → chunks, keeping pages, offsets and hierarchy."""

    name: str

    def chunk(self, doc: ExtractedDocument) -> list[Chunk]: ...
