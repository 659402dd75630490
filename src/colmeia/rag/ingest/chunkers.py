"""Pick a chunker by name: ``paragraphs``, ``recursive``, ``legal`` or ``auto``."""

from __future__ import annotations

from typing import Any

from colmeia.errors import ConfigurationError
from colmeia.rag.ingest.chunk_legal import LegalChunker, looks_like_norm
from colmeia.rag.ingest.chunk_paragraphs import ParagraphNgramChunker
from colmeia.rag.ingest.chunk_recursive import RecursiveChunker
from colmeia.rag.types import Chunk, Chunker, ExtractedDocument

__all__ = ["CHUNKER_NAMES", "AutoChunker", "chunker_for"]

CHUNKER_NAMES = ("auto", "paragraphs", "recursive", "legal")


class AutoChunker:
    """Legal structure for documents that look like a norm, paragraph n-grams otherwise."""

    name = "auto"

    def __init__(self, legal: LegalChunker | None = None, other: Chunker | None = None) -> None:
        self.legal = legal or LegalChunker()
        self.other: Chunker = other or ParagraphNgramChunker()

    def chunk(self, doc: ExtractedDocument) -> list[Chunk]:
        """Chunks of ``doc`` from whichever chunker fits it."""
        if looks_like_norm(doc.text):
            return self.legal.chunk(doc)
        return self.other.chunk(doc)


def chunker_for(name: str, **options: Any) -> Chunker:
    """The chunker called ``name``; ``options`` go to its constructor."""
    key = name.strip().lower()
    if key == "paragraphs":
        return ParagraphNgramChunker(**options)
    if key == "recursive":
        return RecursiveChunker(**options)
    if key == "legal":
        return LegalChunker(**options)
    if key == "auto":
        return AutoChunker(**options)
    raise ConfigurationError(f"unknown chunker {name!r}; choose one of: {', '.join(CHUNKER_NAMES)}")
