"""Passages for the RAG agent beyond one search: lists fused by reciprocal rank, stored
passages as hits, an article's caput, and the words the nearest passages share
(:func:`neighbour_terms`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from colmeia.apps.assistant.legal import parse_legal_path
from colmeia.apps.assistant.relations import content_terms
from colmeia.rag.retrieve import Citation, Hit
from colmeia.store.base import StoredChunk

__all__ = ["neighbour_terms"]


def _caput_id(hit: Hit) -> str:
    """The chunk id of the caput of the article a § or inciso belongs to ("" for a caput)."""
    m = re.match(r"^(.*!art\d+[a-z\-]*)_(?!cpt)", hit.doc_id)
    return f"{m.group(1)}_cpt#0" if m else ""


_NEIGHBOURS = 5
_MIN_SHARED = 2
# The official texts' editorial notes — "(Redação dada pela Medida Provisória nº 869, de
# 2018)", "(Incluído pela Lei nº 13.853, de 2019)", "(VETADO)" — say how the text changed,
# not what it is about: their words ("redação", "provisória") are no vocabulary to search by.
_ANNOTATION = re.compile(
    r"\((?:[^()]*?\b(?:reda[çc][ãa]o|inclu[íi]d|acrescid|revogad|vetad|vide|regulamento|"
    r"produ[çc][ãa]o de efeito|vig[êe]ncia)[^()]*)\)",
    re.IGNORECASE,
)


def _subdivision(hit: Hit) -> bool:
    """Whether the passage is a paragraph, inciso or alínea, not its article's caput."""
    ref = parse_legal_path(hit.citation.path)
    return bool(ref.paragraph or ref.inciso or ref.alinea)


def neighbour_terms(question: str, hits: Sequence[Hit], idf: Callable[[str], float], n: int) -> str:
    """The ``n`` rarest words of the passages nearest the question by vectors (the first
    ``_NEIGHBOURS`` of the dense list) that the question does not already use; "" without
    vectors or when ``n`` is 0."""
    if n <= 0:
        return ""
    near = sorted((h for h in hits if h.dense_rank is not None), key=lambda h: h.dense_rank or 0)
    if not near:
        return ""
    asked = set(content_terms(question))
    weight: dict[str, float] = {}
    count: dict[str, int] = {}
    surface: dict[str, str] = {}
    for hit in near[:_NEIGHBOURS]:
        body = _ANNOTATION.sub(" ", re.sub(r"^\[.*?\]\s*", "", hit.text))
        seen: set[str] = set()
        for word in re.findall(r"[^\W\d_]{4,}", body.lower()):
            stems = content_terms(word)
            if not stems or stems[0] in asked or stems[0] in seen:
                continue
            # once per passage: a long list repeating "desde que" is not saying it louder
            stem = stems[0]
            seen.add(stem)
            weight[stem] = weight.get(stem, 0.0) + idf(stem)
            count[stem] = count.get(stem, 0) + 1
            surface.setdefault(stem, word)
    # A word of one neighbour only is that passage's own; words the near passages share say
    # what the law calls the question's subject (pseudo-relevance feedback).
    shared = [t for t in weight if count[t] >= _MIN_SHARED]
    best = sorted(shared, key=lambda t: -weight[t])[:n]
    return " ".join(surface[t] for t in best)


def _fuse(
    lists: Sequence[Sequence[Hit]], k: int = 60, weights: Sequence[float] | None = None
) -> list[Hit]:
    """Reciprocal rank fusion of hit lists (one list: itself), each list's part times its
    weight (1 when ``weights`` is not given)."""
    if len(lists) == 1:
        return list(lists[0])
    score: dict[str, float] = {}
    first: dict[str, Hit] = {}
    for i, hits in enumerate(lists):
        weight = weights[i] if weights is not None else 1.0
        for rank, hit in enumerate(hits):
            score[hit.chunk_id] = score.get(hit.chunk_id, 0.0) + weight / (k + rank)
            first.setdefault(hit.chunk_id, hit)
    return sorted(first.values(), key=lambda h: -score[h.chunk_id])


def _hit(chunk: StoredChunk, collection: str) -> Hit:
    """A stored passage as a hit (for passages found other than by search)."""
    return Hit(
        chunk.chunk_id,
        chunk.doc_id,
        0.0,
        chunk.text,
        Citation(
            chunk.title or chunk.doc_id,
            chunk.page_start,
            chunk.path,
            chunk.source_path,
            chunk.page_end,
        ),
        collection,
        heading=chunk.heading,
        doc_type=chunk.doc_type,
        year=chunk.year,
    )
