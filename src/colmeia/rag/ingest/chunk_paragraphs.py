"""Paragraph n-gram chunker: windows of 1..N consecutive paragraphs within a word range.

This is the literature-review scheme: every window of 1 to ``max_paragraphs`` consecutive
paragraphs whose length is within ``[min_words, max_words]`` becomes a chunk, so a passage is
findable both alone and with its neighbours. Two additions make sure nothing is lost: a
paragraph longer than ``max_words`` is first split at sentence boundaries, and a paragraph no
kept window covers (short and isolated, or a short document) still gets a chunk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from colmeia.rag.ingest._common import SpanChunks
from colmeia.rag.types import Chunk, ExtractedDocument

__all__ = ["ParagraphNgramChunker", "paragraph_spans", "sentence_spans"]

_BLOCK_RE = re.compile(r"[^\n]+(?:\n[ \t]*[^\s\n][^\n]*)*")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?…;:])[\"”’)]*\s+(?=[\"“(\[]?[A-ZÀ-ÖØ-Þ0-9§•\-–])")
_WORD_RE = re.compile(r"\S+")
_HEADING_RE = re.compile(
    r"^(?:(?:\d{1,2}(?:\.\d{1,2}){0,4}\.?|[IVX]{1,5}\s*[-–.])\s+\S.{0,120}|[A-ZÀ-ÖØ-Þ][A-ZÀ-ÖØ-Þ0-9 ,:;\-–]{2,100})$"
)


def paragraph_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Spans of the non-blank blocks (paragraphs) of ``text[start:end]``, stripped of spaces."""
    spans: list[tuple[int, int]] = []
    for m in _BLOCK_RE.finditer(text, start, len(text) if end is None else end):
        s, e = m.start(), m.end()
        while s < e and text[s] in " \t":
            s += 1
        while e > s and text[e - 1] in " \t":
            e -= 1
        if s < e:
            spans.append((s, e))
    return spans


def sentence_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Sentence spans inside ``text[start:end]`` (a pragmatic Portuguese/Spanish splitter)."""
    spans: list[tuple[int, int]] = []
    s = start
    for m in _SENTENCE_END_RE.finditer(text, start, end):
        spans.append((s, m.start()))
        s = m.end()
    if s < end:
        spans.append((s, end))
    return [(a, b) for a, b in spans if b > a]


def _word_count(text: str, start: int, end: int) -> int:
    return sum(1 for _ in _WORD_RE.finditer(text, start, end))


@dataclass(slots=True)
class _Unit:
    start: int
    end: int
    words: int
    heading: str


class ParagraphNgramChunker:
    """Windows of 1..``max_paragraphs`` consecutive paragraphs of ``min_words``..``max_words``.

    Chunk text is exactly ``doc.text[char_start:char_end]`` (no normalisation), so a window keeps
    the blank lines between its paragraphs.
    """

    name = "paragraphs"

    def __init__(self, min_words: int = 100, max_words: int = 500, max_paragraphs: int = 5) -> None:
        if not 0 < min_words <= max_words:
            raise ValueError("need 0 < min_words <= max_words")
        if max_paragraphs < 1:
            raise ValueError("max_paragraphs must be at least 1")
        self.min_words = min_words
        self.max_words = max_words
        self.max_paragraphs = max_paragraphs

    def _units(self, text: str) -> list[_Unit]:
        units: list[_Unit] = []
        heading = ""
        for s, e in paragraph_spans(text):
            words = _word_count(text, s, e)
            if words <= 14 and _HEADING_RE.match(text, s, e) and text[e - 1] not in ".;,":
                heading = " ".join(text[s:e].split())
            if words <= self.max_words:
                units.append(_Unit(s, e, words, heading))
                continue
            # Too long for one chunk: pack whole sentences up to max_words.
            cur_s, cur_w = -1, 0
            cur_e = s
            for a, b in sentence_spans(text, s, e):
                w = _word_count(text, a, b)
                if w > self.max_words:
                    if cur_s >= 0:
                        units.append(_Unit(cur_s, cur_e, cur_w, heading))
                        cur_s, cur_w = -1, 0
                    words_in = list(_WORD_RE.finditer(text, a, b))
                    for i in range(0, len(words_in), self.max_words):
                        part = words_in[i : i + self.max_words]
                        units.append(_Unit(part[0].start(), part[-1].end(), len(part), heading))
                    continue
                if cur_s >= 0 and cur_w + w > self.max_words:
                    units.append(_Unit(cur_s, cur_e, cur_w, heading))
                    cur_s, cur_w = -1, 0
                if cur_s < 0:
                    cur_s = a
                cur_e, cur_w = b, cur_w + w
            if cur_s >= 0:
                units.append(_Unit(cur_s, cur_e, cur_w, heading))
        return units

    def chunk(self, doc: ExtractedDocument) -> list[Chunk]:
        """Chunks of ``doc`` (its cleaned text), in reading order."""
        text = doc.text
        units = self._units(text)
        windows: list[tuple[int, int]] = []  # (first unit, last unit), inclusive
        covered = [False] * len(units)
        n = len(units)
        for i in range(n):
            words = 0
            for j in range(i, min(i + self.max_paragraphs, n)):
                words += units[j].words
                if words > self.max_words:
                    break
                if words >= self.min_words:
                    windows.append((i, j))
                    for k in range(i, j + 1):
                        covered[k] = True
        for i in range(n):
            if covered[i]:
                continue
            # Grow around the orphan while it stays within max_words, preferring what follows.
            lo = hi = i
            words = units[i].words
            while words < self.min_words and hi - lo + 1 < self.max_paragraphs:
                if hi + 1 < n and words + units[hi + 1].words <= self.max_words:
                    hi += 1
                    words += units[hi].words
                elif lo > 0 and words + units[lo - 1].words <= self.max_words:
                    lo -= 1
                    words += units[lo].words
                else:
                    break
            for k in range(lo, hi + 1):
                covered[k] = True
            windows.append((lo, hi))
        windows = sorted(set(windows))
        spans = SpanChunks(doc, text)
        base_path = str(doc.metadata.get("path", ""))
        base_heading = str(doc.metadata.get("heading", ""))
        chunks: list[Chunk] = []
        for ordinal, (i, j) in enumerate(windows):
            chunks.append(
                spans.make(
                    ordinal,
                    units[i].start,
                    units[j].end,
                    path=base_path,
                    heading=units[i].heading or base_heading,
                    metadata={
                        "chunker": self.name,
                        "paragraphs": j - i + 1,
                        "words": sum(u.words for u in units[i : j + 1]),
                    },
                )
            )
        return chunks
