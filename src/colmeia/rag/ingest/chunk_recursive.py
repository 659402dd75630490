"""Recursive chunker over Chonkie (paragraphs → sentences → words), offline, with overlap."""

from __future__ import annotations

from typing import Any, Literal

from colmeia.rag.ingest._common import SpanChunks
from colmeia.rag.types import Chunk, ExtractedDocument

__all__ = ["RecursiveChunker"]


class RecursiveChunker:
    """Chonkie's ``RecursiveChunker`` with a character or word tokenizer (nothing downloaded).

    ``chunk_size`` counts characters (``tokenizer="character"``) or words (``"word"``).
    Chonkie has no overlap of its own here, so ``overlap`` characters of the preceding text are
    prepended to each chunk (starting at a word boundary); offsets reflect that.
    """

    name = "recursive"

    def __init__(
        self,
        chunk_size: int = 1200,
        overlap: int = 0,
        *,
        tokenizer: Literal["character", "word"] = "character",
        min_characters_per_chunk: int = 24,
    ) -> None:
        if chunk_size <= 0:
            raise ValueError("chunk_size must be positive")
        if not 0 <= overlap < chunk_size:
            raise ValueError("overlap must be in [0, chunk_size)")
        self.chunk_size = chunk_size
        self.overlap = overlap
        self.tokenizer = tokenizer
        self.min_characters_per_chunk = min_characters_per_chunk
        self._impl: Any = None

    def _chonkie(self) -> Any:
        if self._impl is None:
            # Imported lazily: chonkie takes seconds to import and most runs never need it.
            from chonkie import RecursiveChunker as _Chonkie

            self._impl = _Chonkie(
                tokenizer=self.tokenizer,
                chunk_size=self.chunk_size,
                min_characters_per_chunk=self.min_characters_per_chunk,
            )
        return self._impl

    def chunk(self, doc: ExtractedDocument) -> list[Chunk]:
        """Chunks of ``doc`` in reading order."""
        text = doc.text
        if not text.strip():
            return []
        spans = SpanChunks(doc, text)
        base_path = str(doc.metadata.get("path", ""))
        base_heading = str(doc.metadata.get("heading", ""))
        chunks: list[Chunk] = []
        cursor = 0
        for piece in self._chonkie().chunk(text):
            body = piece.text.strip()
            if not body:  # blank space between pieces is never a chunk
                continue
            # Chonkie's offsets drift with the word tokenizer (1.7: a character a piece, the
            # last piece's end short of its final character); its text is the document's own:
            # the piece is where its text next occurs.
            start = text.index(body, cursor)
            end = cursor = start + len(body)
            # Begin ``overlap`` characters earlier, at a word start, never mid-word.
            ov = max(0, start - self.overlap)
            while 0 < ov < start and not text[ov - 1].isspace():
                ov += 1
            start = ov
            chunks.append(
                spans.make(
                    len(chunks),
                    start,
                    end,
                    path=base_path,
                    heading=base_heading,
                    metadata={"chunker": self.name},
                )
            )
        return chunks
