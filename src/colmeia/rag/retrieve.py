"""Hybrid retrieval: BM25 (+ dense vectors when an embedder is set) fused by their normalised
scores (or by reciprocal rank), filtered by document metadata, capped to N passages per document, optionally reranked.

Indexes are derived from the store and cached per collection *generation* (bumped by every
change): in memory for the process, and on disk under the store's index folder, so a search
after an ingestion rebuilds once and later searches load the saved files.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import shutil
import threading
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import numpy.typing as npt

from colmeia.errors import ConfigurationError, QueryError
from colmeia.rag.context_terms import CONTEXT_VERSION, context_terms
from colmeia.rag.expansion import (
    EXPANSION_FORM,
    ArticleExpansion,
    expansion_version,
    shipped_questions,
    subject_of,
)
from colmeia.rag.index.lexical import LexicalConfig, LexicalIndex, fold_accents, top_k
from colmeia.store.base import Store, StoredChunk

if TYPE_CHECKING:
    from colmeia.rag.index.dense import DenseIndex
    from colmeia.rag.index.embedders import Embedder

__all__ = [
    "DEFAULT_LEXICAL",
    "MAX_QUERY_CHARS",
    "Citation",
    "DocumentResult",
    "Filters",
    "Hit",
    "Retriever",
    "document_program",
    "group_by_document",
    "is_keyword_query",
    "rrf_fuse",
    "score_fuse",
    "validate_query",
]

log = logging.getLogger(__name__)

MAX_QUERY_CHARS = 10_000
# How lexical and dense candidates are combined (see score_fuse, rrf_fuse and docs/rag.md).
FUSIONS = ("zscore", "minmax", "rrf")
# Tuned on JurisTCU and FaQuAD (see docs/rag.md): BM25L with a small bigram bonus.
# Lexical and dense z-scores summed 0.7 / 0.3: chosen on the tuning half of JurisTCU (odd query
# ids; bench/rag_quality.py); 0.5 gave 0.733 there, 0.2-0.35 gave 0.737-0.743 (docs/rag.md).
DEFAULT_DENSE_WEIGHT = 0.3
# A keyword query ("restos a pagar", "fraude licitacao"): a few words, not a question. E5's
# query form was trained on questions and sentences and placed such queries poorly, and a
# short query's vector is the least sure of itself; so for keyword queries only, the vector
# side searches with the query's passage form too and with dense feedback (below). Questions
# and longer descriptions keep the plain query form. At most 5 words (3-12 all gained; 5 was
# best) on the tuning half of JurisTCU (odd ids; docs/rag.md).
KEYWORD_QUERY_WORDS = 5
_WORDS = re.compile(r"\w+")
# Dense pseudo-relevance feedback: the query vector moves toward the mean vector of the first
# fused passages (Rocchio) and the vectors are searched again. 15 passages at weight 0.5 were
# chosen on the tuning half of JurisTCU: 10-20 and 0.25-0.75 all gave 0.763-0.768 there.
DEFAULT_FEEDBACK_PASSAGES = 15
DEFAULT_FEEDBACK_WEIGHT = 0.5
DEFAULT_LEXICAL = LexicalConfig(k1=1.2, b=0.75, method="bm25l", delta=1.0, bigram_weight=0.1)

T = TypeVar("T")
# (score, collection, position, lexical rank, dense rank)
_Scored = tuple[float, str, int, int | None, int | None]


def is_keyword_query(query: str, max_words: int = KEYWORD_QUERY_WORDS) -> bool:
    """Whether ``query`` is a few keywords rather than a question or a description: at most
    ``max_words`` words and no question mark."""
    return "?" not in query and len(_WORDS.findall(query)) <= max_words


def validate_query(query: str) -> str:
    """The query stripped, or :class:`QueryError` when it is empty, huge or has no words."""
    if not isinstance(query, str):
        raise QueryError("the query must be text")
    q = query.strip()
    if not q:
        raise QueryError("the query is empty: type some words to search for")
    if len(q) > MAX_QUERY_CHARS:
        raise QueryError(
            f"the query has {len(q):,} characters; the limit is {MAX_QUERY_CHARS:,}. "
            "Search with the key sentence or a few keywords instead"
        )
    if not any(ch.isalnum() for ch in q):
        raise QueryError(f"the query {q[:40]!r} has no letters or digits: nothing to search for")
    return q


@dataclass(slots=True)
class Citation:
    """Where a passage comes from: document title, page and hierarchy path, and the file.

    ``page``/``page_end`` are PDF page numbers (1 = the file's first page);
    ``page_label``/``page_label_end`` the numbers printed on those pages when the cleaner
    found them (a thesis's PDF page 17 prints "1"). People cite printed numbers, so
    :meth:`label` shows those when known.
    """

    document: str
    page: int
    path: str
    source: str = ""
    page_end: int = 0
    page_label: str = ""
    page_label_end: str = ""

    def pages(self) -> str:
        """ "7", "7-8" (printed numbers when known, else PDF pages), or "" for one-page texts."""
        if self.page_label:
            end = self.page_label_end or self.page_label
            return self.page_label if end == self.page_label else f"{self.page_label}-{end}"
        if self.page and (self.page > 1 or self.page_end > 1):
            return f"{self.page}-{self.page_end}" if self.page_end > self.page else f"{self.page}"
        return ""

    @classmethod
    def of_chunk(cls, chunk: StoredChunk) -> Citation:
        """Where a stored passage comes from."""
        return cls(
            document=chunk.title or chunk.doc_id,
            page=chunk.page_start,
            path=chunk.path,
            source=chunk.source_path,
            page_end=chunk.page_end,
            page_label=str(chunk.metadata.get("page_label", "")),
            page_label_end=str(chunk.metadata.get("page_label_end", "")),
        )

    def label(self) -> str:
        """Human form: "Lei 8.078/1990, Art. 43, § 1º — p. 3"."""
        parts = [self.path or self.document]
        if self.path and self.document and self.document not in self.path:
            parts.insert(0, self.document)
        text = ", ".join(p for p in parts if p)
        pages = self.pages()
        if pages:
            text += f" (p. {pages})"
        return text

    def as_dict(self) -> dict[str, Any]:
        return {
            "document": self.document,
            "page": self.page,
            "page_end": self.page_end or self.page,
            "page_label": self.page_label,
            "page_label_end": self.page_label_end or self.page_label,
            "path": self.path,
            "source": self.source,
            "label": self.label(),
        }


@dataclass(slots=True)
class Hit:
    """One retrieved passage with its score, rank and citation."""

    chunk_id: str
    doc_id: str
    score: float
    text: str
    citation: Citation
    collection: str = ""
    rank: int = 0
    lexical_rank: int | None = None
    dense_rank: int | None = None
    heading: str = ""
    doc_type: str = ""
    year: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "doc_id": self.doc_id,
            "chunk_id": self.chunk_id,
            "collection": self.collection,
            "score": round(float(self.score), 6),
            "text": self.text,
            "heading": self.heading,
            "doc_type": self.doc_type,
            "year": self.year,
            "lexical_rank": self.lexical_rank,
            "dense_rank": self.dense_rank,
            "citation": self.citation.as_dict(),
        }


@dataclass(slots=True)
class DocumentResult:
    """A document and its best passages (at most N), scored by its best passage."""

    doc_id: str
    score: float
    title: str
    hits: list[Hit]


@dataclass(frozen=True, slots=True)
class Filters:
    """Metadata filters: document type, year (exact or a range) and graduate program.

    Type and program compare case- and accent-insensitively ("dissertacao" finds
    "Dissertação"); the program matches when the given words appear in the document's
    program ("direitos humanos" finds "Programa de Pós-Graduação em Direitos Humanos").
    """

    doc_type: str | None = None
    year: int | None = None
    year_from: int | None = None
    year_to: int | None = None
    program: str | None = None

    def active(self) -> bool:
        return any(
            v is not None
            for v in (self.doc_type, self.year, self.year_from, self.year_to, self.program)
        )


_PROGRAM_KEYS = ("program", "programa", "programme", "pos_graduacao")


def document_program(metadata: dict[str, Any]) -> str:
    """The graduate program a document's metadata names (CAPES ``Programa``, RIS imports)."""
    lower = {str(k).strip().lower(): v for k, v in metadata.items()}
    for key in _PROGRAM_KEYS:
        value = lower.get(key)
        if value:
            return " ".join(str(value).split())
    return ""


def _fold(text: str) -> str:
    return " ".join(fold_accents(text).split())


def group_by_document(hits: Sequence[Hit]) -> list[DocumentResult]:
    """Hits gathered per document, documents in the order of their best hit."""
    groups: dict[str, DocumentResult] = {}
    for hit in hits:
        group = groups.get(hit.doc_id)
        if group is None:
            groups[hit.doc_id] = DocumentResult(hit.doc_id, hit.score, hit.citation.document, [hit])
        else:
            group.hits.append(hit)
    return list(groups.values())


# ---------------------------------------------------------------------------- index cache
@dataclass(slots=True)
class _CollectionIndex:
    generation: int
    chunk_ids: list[str]
    doc_ids: list[str]
    doc_types: npt.NDArray[np.str_]  # folded (lower case, no accents)
    years: npt.NDArray[np.int32]  # 0 = unknown
    lexical: LexicalIndex
    spans: npt.NDArray[np.int64]  # (n, 2): each chunk's char range in its document
    programs: npt.NDArray[np.str_]  # folded
    dense: DenseIndex | None = None
    dense_embedder: str = ""
    # The context words of each dispositivo (``context_terms``), a field of its own so they
    # count less than the passage's own words; None when the collection has none.
    context: LexicalIndex | None = None
    # The generated lay questions of each passage's article (:mod:`colmeia.rag.expansion`):
    # one lexical document per article, spread to its passages; None without any.
    expansion: ArticleExpansion | None = None
    expansion_lexical: LexicalIndex | None = None
    # unit vectors of the generated questions (rows of ``expansion.questions``), on first use
    expansion_vectors: npt.NDArray[np.float32] | None = None
    chunk_pos: dict[str, int] = field(default_factory=dict)  # filled on first use

    def position(self, chunk_id: str) -> int | None:
        if not self.chunk_pos:
            self.chunk_pos = {cid: i for i, cid in enumerate(self.chunk_ids)}
        return self.chunk_pos.get(chunk_id)

    def mask(self, filters: Filters | None) -> npt.NDArray[np.bool_] | None:
        if filters is None or not filters.active():
            return None
        m = np.ones(len(self.chunk_ids), dtype=bool)
        if filters.doc_type is not None:
            m &= self.doc_types == _fold(filters.doc_type)
        if filters.year is not None:
            m &= self.years == filters.year
        if filters.year_from is not None:
            m &= (self.years >= filters.year_from) & (self.years > 0)
        if filters.year_to is not None:
            m &= (self.years <= filters.year_to) & (self.years > 0)
        if filters.program is not None:
            wanted = _fold(filters.program)
            if self.programs.size:
                m &= np.char.find(self.programs, wanted) >= 0
            else:
                m &= False
        return m


_MEMORY: dict[tuple[str, str, str], _CollectionIndex] = {}
_MEMORY_LOCK = threading.Lock()


# The weight of a dispositivo's context words (its article's caput, the section heading, the
# norm's ementa) beside its own words in the lexical score. Off by default: on the lay
# development questions 0.15 / 0.3 / 0.5 moved the first ranking by one question either way
# and the formal set lost a first place at each (docs/assistant.md, issue 32).
DEFAULT_CONTEXT_WEIGHT = 0.0
# The weights of an article's generated lay questions (:mod:`colmeia.rag.expansion`): the
# question's best cosine to them as a third list of the fusion (vectors), and the BM25 score of
# the best matching one added to the passage's own (words). With every article of the shipped
# laws expanded (issue 32, seventh round; docs/rag.md), lay questions only, on the lay
# development set (hit@1 / hit@5 of the assistant's answer): none 0.581 / 0.815; vectors 0.3
# 0.629 / 0.911, 0.5 0.637 / 0.935; with the words at 1.0: vectors 0.3 0.645 / 0.960, 0.5 0.677
# / 0.960, 0.7 0.702 / 0.952; words 2.0: 0.5 0.710 / 0.952, 0.7 0.726 / 0.952; words 3.0 with
# 0.7: 0.742 / 0.960. With the questions in the law's own terms added and the ranking's bonus
# (rag_grading._ASKED_WEIGHT 0.2): vectors / words 0.5 / 1.0 0.758 / 0.968, 0.5 / 2.0 0.774 /
# 0.968, 0.7 / 3.0 0.806 / 0.976 (each question scored alone; 0.806 / 0.968 with an article's
# questions as one text). The formal set: 0.883-0.950 / 1.0 throughout (0.900 / 0.983 before).
DEFAULT_EXPANSION_WEIGHT = 3.0
DEFAULT_EXPANSION_DENSE_WEIGHT = 0.7


def index_text(chunk: StoredChunk) -> str:
    """What the lexical index sees of a chunk: its title, hierarchy path, heading and text."""
    parts: list[str] = []
    for part in (chunk.title, chunk.path, chunk.heading, chunk.text):
        if part and part not in parts and part not in (chunk.doc_id, chunk.source_path):
            parts.append(part)
    return "\n".join(parts)


def _folder(store: Store, collection: str) -> Path:
    return store.index_dir / collection


def _load_or_build(
    store: Store, collection: str, generation: int, config: LexicalConfig
) -> _CollectionIndex:
    folder = _folder(store, collection)
    # The key also names what the index text holds, so an index saved before a change of
    # the context words is rebuilt, not reused.
    key = f"{config.key()}|context{CONTEXT_VERSION}|expansion{expansion_version()}/{EXPANSION_FORM}"
    tag = f"g{generation}-{hashlib.sha256(key.encode()).hexdigest()[:10]}"
    target = folder / tag
    positions = target / "positions.json"
    lexical = LexicalIndex.load(target / "lexical") if positions.exists() else None
    if lexical is not None and lexical.config == config:
        meta = json.loads(positions.read_text(encoding="utf-8"))
        context = LexicalIndex.load(target / "context") if meta.get("context") else None
        expanded = LexicalIndex.load(target / "expansion") if meta.get("expansion") else None
        if (
            "spans" in meta
            and (context is not None or not meta.get("context"))
            and (expanded is not None or not meta.get("expansion"))
        ):
            expansion = ArticleExpansion(meta["doc_ids"], shipped_questions())
            return _CollectionIndex(
                generation,
                meta["chunk_ids"],
                meta["doc_ids"],
                np.asarray(meta["doc_types"], dtype=np.str_),
                np.asarray(meta["years"], dtype=np.int32),
                lexical,
                np.asarray(meta["spans"], dtype=np.int64).reshape(-1, 2),
                np.asarray(meta["programs"], dtype=np.str_),
                context=context,
                expansion=expansion if expanded is not None else None,
                expansion_lexical=expanded,
            )
    chunks = store.chunks(collection)
    documents = store.documents(collection)
    programs = {d.doc_id: _fold(document_program(d.metadata)) for d in documents}
    contexts = context_terms(chunks, {d.doc_id: d.metadata for d in documents})
    lexical = LexicalIndex.build((index_text(c) for c in chunks), config)
    context_index = LexicalIndex.build(contexts, config) if any(contexts) else None
    aligned = ArticleExpansion([c.doc_id for c in chunks], shipped_questions())
    # One entry per question, not per article: an article is as near as its nearest question
    # (as on the vector side), so words matched across several of its questions do not add up.
    expanded = LexicalIndex.build(aligned.questions, config) if aligned else None
    built_expansion = aligned if expanded is not None else None
    built = _CollectionIndex(
        generation,
        [c.chunk_id for c in chunks],
        [c.doc_id for c in chunks],
        np.asarray([_fold(c.doc_type) for c in chunks], dtype=np.str_),
        np.asarray([c.year or 0 for c in chunks], dtype=np.int32),
        lexical,
        np.asarray([(c.char_start, c.char_end) for c in chunks], dtype=np.int64).reshape(-1, 2),
        np.asarray([programs.get(c.doc_id, "") for c in chunks], dtype=np.str_),
        context=context_index,
        expansion=built_expansion,
        expansion_lexical=expanded,
    )
    try:
        # Write beside, then swap in: a reader never sees half an index.
        tmp = folder / f".{tag}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        lexical.save(tmp / "lexical")
        if context_index is not None:
            context_index.save(tmp / "context")
        if expanded is not None:
            expanded.save(tmp / "expansion")
        (tmp / "positions.json").write_text(
            json.dumps(
                {
                    "chunk_ids": built.chunk_ids,
                    "doc_ids": built.doc_ids,
                    "doc_types": built.doc_types.tolist(),
                    "years": built.years.tolist(),
                    "spans": built.spans.tolist(),
                    "programs": built.programs.tolist(),
                    "context": context_index is not None,
                    "expansion": expanded is not None,
                }
            ),
            encoding="utf-8",
        )
        shutil.rmtree(target, ignore_errors=True)
        tmp.rename(target)
        for old in folder.iterdir():
            if old.name != tag and not old.name.startswith("."):
                shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        log.warning("could not save the index of %s under %s: %s", collection, folder, exc)
    return built


def _collection_index(store: Store, collection: str, config: LexicalConfig) -> _CollectionIndex:
    info = store.collection(collection)
    if info is None:
        raise ConfigurationError(
            f"no collection named {collection!r} in {store.url}; "
            "ingest documents first (`colmeia ingest PATH --collection NAME`) "
            "or see `colmeia collections`"
        )
    # the questions in use are part of what the index holds (COLMEIA_LAY_QUESTIONS may change
    # in a running process): another file of questions is another index
    key = (store.url, collection, f"{config.key()}|expansion{expansion_version()}")
    with _MEMORY_LOCK:
        cached = _MEMORY.get(key)
        if cached is not None and cached.generation == info.generation:
            return cached
        built = _load_or_build(store, collection, info.generation, config)
        _MEMORY[key] = built
        return built


def _dense_for(
    store: Store, collection: str, idx: _CollectionIndex, embedder: Embedder
) -> DenseIndex | None:
    info = store.collection(collection)
    if info is None or not info.embedder:
        return None
    if info.embedder != embedder.name:
        raise ConfigurationError(
            f"collection {collection!r} was embedded with {info.embedder!r} but the configured "
            f"embedder is {embedder.name!r}; configure the same one or re-ingest"
        )
    if idx.dense is not None:
        return idx.dense
    from colmeia.rag.index.dense import DenseIndex  # faiss loads only for dense search

    path = _folder(store, collection) / f"dense-g{idx.generation}.faiss"
    dense = DenseIndex.load(path)
    if dense is None:
        ids, matrix = store.vectors(collection)
        if not matrix.size:
            # The embedder is recorded but no passage has a vector (re-ingested without one):
            # search by words alone, as in a collection that was never embedded.
            return None
        pos = {cid: i for i, cid in enumerate(idx.chunk_ids)}
        aligned = np.zeros((len(idx.chunk_ids), matrix.shape[1]), np.float32)
        for cid, row in zip(ids, matrix, strict=True):
            if cid in pos:
                aligned[pos[cid]] = row
        dense = DenseIndex.build(aligned)
        try:
            for old in path.parent.glob("dense-g*.faiss"):
                old.unlink()
            dense.save(path)
        except OSError as exc:
            log.warning("could not save the vector index of %s: %s", collection, exc)
    idx.dense = dense
    return dense


def rrf_fuse(
    rankings: Sequence[Sequence[int]], rrf_k: int = 60
) -> list[tuple[int, float, list[int | None]]]:
    """Reciprocal rank fusion: ``(position, Σ 1/(rrf_k + rank), rank in each list)``, best first."""
    fused: dict[int, tuple[float, list[int | None]]] = {}
    for i, ranking in enumerate(rankings):
        for r, p in enumerate(ranking, start=1):
            score, ranks = fused.get(p, (0.0, [None] * len(rankings)))
            ranks[i] = r
            fused[p] = (score + 1.0 / (rrf_k + r), ranks)
    out = [(p, score, ranks) for p, (score, ranks) in fused.items()]
    out.sort(key=lambda t: (-t[1], t[0]))
    return out


def score_fuse(
    ranked: Sequence[tuple[Sequence[int], Sequence[float]]],
    weights: Sequence[float],
    normalize: str = "zscore",
) -> list[tuple[int, float, list[int | None]]]:
    """Weighted sum of normalised scores: ``(position, Σ wᵢ·ŝᵢ, rank in each list)``, best
    first. Each list's scores are normalised over its own candidates — ``zscore``: standard
    deviations from their mean; ``minmax``: scaled to [0, 1] — and a position a list did not
    return counts as that list's lowest candidate. Unlike rank fusion, a list's confidence
    survives: a passage that matches the query far better than the rest stays ahead of one a
    weaker list merely ranks first."""
    fused: dict[int, tuple[float, list[int | None]]] = {}
    floors: list[float] = []
    scaled_lists: list[dict[int, float]] = []
    for positions, scores in ranked:
        arr = np.asarray(scores, dtype=np.float64)
        if not len(arr):
            scaled = arr
        elif normalize == "minmax":
            lo, hi = float(arr.min()), float(arr.max())
            scaled = (arr - lo) / (hi - lo) if hi > lo else np.ones_like(arr)
        else:
            sd = float(arr.std())
            scaled = (arr - float(arr.mean())) / sd if sd > 0 else np.zeros_like(arr)
        floors.append(float(scaled.min()) if len(scaled) else 0.0)
        scaled_lists.append({int(p): float(v) for p, v in zip(positions, scaled, strict=True)})
    everything = {p for values in scaled_lists for p in values}
    ranks_of = [{int(p): r for r, p in enumerate(positions, start=1)} for positions, _ in ranked]
    for p in everything:
        total = 0.0
        for values, floor, weight in zip(scaled_lists, floors, weights, strict=True):
            total += weight * values.get(p, floor)
        fused[p] = (total, [r.get(p) for r in ranks_of])
    out = [(p, score, ranks) for p, (score, ranks) in fused.items()]
    out.sort(key=lambda t: (-t[1], t[0]))
    return out


def _run(coro: Coroutine[Any, Any, T]) -> T:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    coro.close()  # never run: closed, so no "coroutine was never awaited" warning follows
    raise RuntimeError("use the async method (asearch) inside a running event loop")


# ---------------------------------------------------------------------------- retriever
class Retriever:
    """Searches one or more collections of a store.

    Without an embedder (or when a collection has no vectors) ranking is BM25 alone; with one,
    BM25 and vector candidates are fused: by default (``fusion="zscore"``) each list's scores
    become standard deviations from its candidates' mean and are summed with weights
    ``1 - dense_weight`` and ``dense_weight``; ``"minmax"`` scales them to [0, 1] instead;
    ``"rrf"`` is reciprocal rank fusion (``1/(rrf_k + rank)``). Measured with the offline
    embedder (docs/rag.md): z-scores beat lexical alone on JurisTCU and FaQuAD and stay equal
    to it where lexical is already perfect; rank fusion fell below lexical on FaQuAD.

    ``per_document`` caps the passages of any one document, and the candidate list deepens
    until ``k`` passages pass the cap (a long thesis filling the first ``candidates`` does not
    leave the answer one work short). With ``merge_overlaps`` a passage overlapping a better
    one of the same document (paragraph windows share text) is left out: one passage per
    region of a text.

    Two things make the vector side stronger for a keyword query (:func:`is_keyword_query`
    with ``keyword_query_words``; docs/rag.md, JurisTCU): with ``both_query_forms`` it is
    searched with the mean of its query-form and passage-form vectors — a few keywords ("restos
    a pagar") read more like a passage than like a question —; and with ``feedback_passages`` >
    0 the vector moves toward the mean of the first fused passages (weight ``feedback_weight``)
    and the vectors are searched again before the final fusion. Questions and longer
    descriptions are searched with the query form alone.
    """

    def __init__(
        self,
        store: Store,
        collections: str | Sequence[str],
        *,
        embedder: Embedder | None = None,
        reranker: Any = None,
        lexical: LexicalConfig = DEFAULT_LEXICAL,
        candidates: int = 100,
        rrf_k: int = 60,
        per_document: int = 5,
        merge_overlaps: bool = True,
        fusion: str = "zscore",
        dense_weight: float = DEFAULT_DENSE_WEIGHT,
        both_query_forms: bool = True,
        feedback_passages: int = DEFAULT_FEEDBACK_PASSAGES,
        feedback_weight: float = DEFAULT_FEEDBACK_WEIGHT,
        keyword_query_words: int = KEYWORD_QUERY_WORDS,
        context_weight: float = DEFAULT_CONTEXT_WEIGHT,
        expansion_weight: float = DEFAULT_EXPANSION_WEIGHT,
        expansion_dense_weight: float = DEFAULT_EXPANSION_DENSE_WEIGHT,
    ) -> None:
        self.store = store
        self.collections = [collections] if isinstance(collections, str) else list(collections)
        if not self.collections:
            raise ConfigurationError("name at least one collection to search")
        self.embedder = embedder
        self.reranker = reranker
        self.lexical = lexical
        self.candidates = candidates
        self.rrf_k = rrf_k
        if fusion not in FUSIONS:
            raise ConfigurationError(f"fusion is one of {', '.join(FUSIONS)}, not {fusion!r}")
        self.fusion = fusion
        self.dense_weight = dense_weight
        self.both_query_forms = both_query_forms
        self.context_weight = context_weight
        self.expansion_weight = expansion_weight
        self.expansion_dense_weight = expansion_dense_weight
        self.feedback_passages = max(int(feedback_passages), 0)
        self.feedback_weight = feedback_weight
        self.keyword_query_words = keyword_query_words
        self.per_document = per_document
        self.merge_overlaps = merge_overlaps

    def warm(self) -> None:
        """Build or load the indexes now (after ingestion) rather than on the first search."""
        for name in self.collections:
            idx = _collection_index(self.store, name, self.lexical)
            if self.embedder is not None:
                _dense_for(self.store, name, idx, self.embedder)

    def embed_query(self, query: str) -> npt.NDArray[np.float32]:
        """The query's vector from the configured embedder (its query form when it has one)."""
        if self.embedder is None:
            raise ConfigurationError("no embedder configured: set COLMEIA_EMBEDDINGS_*")
        embed_query = getattr(self.embedder, "embed_query", None)
        q = validate_query(query)
        rows = embed_query([q]) if callable(embed_query) else self.embedder.embed([q])
        return np.asarray(rows[0], dtype=np.float32)

    def _keyword(self, query: str) -> bool:
        return is_keyword_query(query, self.keyword_query_words)

    def search_vector(self, query: str) -> npt.NDArray[np.float32]:
        """The vector a hybrid search starts from: :meth:`embed_query`, or for a keyword query
        with ``both_query_forms`` the unit mean of its query-form and passage-form vectors
        (equal for an embedder without a query form)."""
        qvec = self.embed_query(query)
        if not (self.both_query_forms and self._keyword(query)):
            return qvec
        assert self.embedder is not None  # embed_query raised otherwise
        as_passage = np.asarray(self.embedder.embed([validate_query(query)])[0], np.float32)
        return _unit(qvec + as_passage)

    def chunk_vectors(self, chunk_ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        """Stored vectors of these passages (those of the first collection that has them);
        empty without an embedder or vectors. Nothing is embedded again."""
        out: dict[str, npt.NDArray[np.float32]] = {}
        if self.embedder is None:
            return out
        for name in self.collections:
            idx = _collection_index(self.store, name, self.lexical)
            dense = _dense_for(self.store, name, idx, self.embedder)
            if dense is None:
                continue
            wanted = [(cid, idx.position(cid)) for cid in chunk_ids if cid not in out]
            found = [(cid, pos) for cid, pos in wanted if pos is not None]
            rows = dense.vectors(np.asarray([pos for _, pos in found], dtype=np.int64))
            out.update({cid: rows[i] for i, (cid, _) in enumerate(found)})
        return out

    def expansion_similarity(self, query: str, chunk_ids: Sequence[str]) -> dict[str, float]:
        """For each of these passages whose article has generated lay questions
        (:mod:`colmeia.rag.expansion`), the query's best cosine to those questions; passages
        without questions are left out, and so is everything without an embedder."""
        out: dict[str, float] = {}
        subject = subject_of(query)
        if self.embedder is None or not chunk_ids or not subject:
            return out
        qvec: npt.NDArray[np.float32] | None = None
        for name in self.collections:
            idx = _collection_index(self.store, name, self.lexical)
            if idx.expansion is None:
                continue
            qvec = self.embed_query(subject) if qvec is None else qvec
            best = self._expansion_best(idx, qvec)
            if best is None:
                continue
            per_passage = idx.expansion.per_passage(best)
            for cid in chunk_ids:
                pos = idx.position(cid)
                if cid not in out and pos is not None and idx.expansion.rows[pos] >= 0:
                    out[cid] = float(per_passage[pos])
        return out

    def _expansion_best(
        self, idx: _CollectionIndex, qvec: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float64] | None:
        """Each article's best cosine of its generated questions to ``qvec`` (None without
        questions or an embedder)."""
        if idx.expansion is None or self.embedder is None:
            return None
        expansion = idx.expansion
        vectors = idx.expansion_vectors
        if vectors is None:
            # The questions are questions: embedded in the query form, as the user's is.
            embed = getattr(self.embedder, "embed_query", None) or self.embedder.embed
            rows = np.asarray(embed(expansion.questions), dtype=np.float32)
            norms = np.linalg.norm(rows, axis=1, keepdims=True)
            vectors = (rows / np.where(norms > 0, norms, 1.0)).astype(np.float32)
            idx.expansion_vectors = vectors
        cosines = vectors @ _unit(qvec)
        best = np.full(len(expansion.articles), -1.0, dtype=np.float64)
        np.maximum.at(best, expansion.owners, cosines)
        return best

    def search(
        self,
        query: str,
        k: int = 10,
        *,
        filters: Filters | None = None,
        per_document: int | None = None,
    ) -> list[Hit]:
        """The ``k`` best passages, at most ``per_document`` from any one document."""
        hits = self._ranked(query, max(k, 1), filters, per_document)
        if self.reranker is not None and hits:
            hits = _run(self.reranker.rerank(validate_query(query), hits))
        return self._finish(hits, k)

    async def asearch(
        self,
        query: str,
        k: int = 10,
        *,
        filters: Filters | None = None,
        per_document: int | None = None,
    ) -> list[Hit]:
        """:meth:`search` for async callers (the index work runs in a thread)."""
        hits = await asyncio.to_thread(self._ranked, query, max(k, 1), filters, per_document)
        if self.reranker is not None and hits:
            hits = await self.reranker.rerank(validate_query(query), hits)
        return self._finish(hits, k)

    def search_documents(
        self,
        query: str,
        k: int = 10,
        *,
        filters: Filters | None = None,
        per_document: int | None = None,
        depth: int | None = None,
    ) -> list[DocumentResult]:
        """The ``k`` best documents, each with its best passages (for ranking documents)."""
        cap = per_document if per_document is not None else self.per_document
        hits = self.search(query, depth or max(k * cap, 100), filters=filters, per_document=cap)
        return group_by_document(hits)[:k]

    # ------------------------------------------------------------------ internals
    @staticmethod
    def _finish(hits: list[Hit], k: int) -> list[Hit]:
        hits = hits[:k]
        for i, hit in enumerate(hits, start=1):
            hit.rank = i
        return hits

    def _ranked(
        self, query: str, k: int, filters: Filters | None, per_document: int | None
    ) -> list[Hit]:
        q = validate_query(query)
        cap = self.per_document if per_document is None else per_document
        indexes = {
            name: _collection_index(self.store, name, self.lexical) for name in self.collections
        }
        # The query is embedded only when a collection has vectors: a collection ingested
        # without them is searched by words, and the model is not loaded for nothing.
        qvec = self.search_vector(q) if self._any_vectors() else None
        depth = max(self.candidates, k * max(cap, 1)) if cap else max(self.candidates, k)
        while True:
            scored: list[_Scored] = []
            exhausted = True
            for name, idx in indexes.items():
                items, full = self._rank_collection(name, idx, q, qvec, depth, filters)
                scored.extend(items)
                exhausted = exhausted and not full
            scored.sort(key=lambda t: (-t[0], t[1], t[2]))
            picked = self._pick(scored, indexes, k, cap)
            if len(picked) >= k or exhausted:
                return self._hydrate(picked, indexes)
            depth *= 4

    def _any_vectors(self) -> bool:
        if self.embedder is None:
            return False
        for name in self.collections:
            info = self.store.collection(name)
            if info is not None and info.embedder:
                return True
        return False

    def _pick(
        self, scored: list[_Scored], indexes: dict[str, _CollectionIndex], k: int, cap: int
    ) -> list[_Scored]:
        picked: list[_Scored] = []
        per_doc: dict[tuple[str, str], list[int]] = {}
        for item in scored:
            name, pos = item[1], item[2]
            idx = indexes[name]
            taken = per_doc.setdefault((name, idx.doc_ids[pos]), [])
            if cap and len(taken) >= cap:
                continue
            if self.merge_overlaps and taken:
                start, end = idx.spans[pos]
                if any(start < idx.spans[o][1] and idx.spans[o][0] < end for o in taken):
                    continue
            taken.append(pos)
            picked.append(item)
            if len(picked) >= k:
                break
        return picked

    def _rank_collection(
        self,
        name: str,
        idx: _CollectionIndex,
        q: str,
        qvec: npt.NDArray[np.float32] | None,
        depth: int,
        filters: Filters | None,
    ) -> tuple[list[_Scored], bool]:
        """Candidates of one collection, and whether a deeper search could find more."""
        mask = idx.mask(filters)
        n = max(len(idx.chunk_ids), 1)
        depth = min(depth, n)
        lex_pos, lex_scores = self._lexical_search(idx, q, depth, mask)
        if not idx.lexical.has_terms(q):
            # Only stopwords ("o que é"): fall back to matching them as plain words.
            plain = LexicalConfig(**{**_config_dict(self.lexical), "stopwords": False})
            alt = _collection_index(self.store, name, plain)
            lex_pos, lex_scores = alt.lexical.search(q, depth, mask)
        full = len(lex_pos) >= depth and depth < n
        dense = None
        if qvec is not None and self.embedder is not None:
            dense = _dense_for(self.store, name, idx, self.embedder)
        if dense is None:
            return [
                (float(s), name, int(p), r, None)
                for r, (p, s) in enumerate(zip(lex_pos, lex_scores, strict=True), start=1)
            ], full
        assert qvec is not None
        over = min(depth * 4, n) if mask is not None else depth
        asked = self._subject_vector(idx, q, qvec)
        fused, dense_full = self._fuse_dense(
            dense, qvec, lex_pos, lex_scores, depth, over, mask, idx, asked
        )
        if self.feedback_passages and fused and self._keyword(q):
            top = np.asarray([p for p, _, _ in fused[: self.feedback_passages]], np.int64)
            moved = qvec + self.feedback_weight * dense.vectors(top).mean(axis=0)
            fused, dense_full = self._fuse_dense(
                dense, _unit(moved), lex_pos, lex_scores, depth, over, mask, idx, asked
            )
        full = full or (dense_full and over < n)
        return [(score, name, p, ranks[0], ranks[1]) for p, score, ranks in fused], full

    def _subject_vector(
        self, idx: _CollectionIndex, q: str, qvec: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float32] | None:
        """The vector matched against the articles' questions: the query's own, or that of its
        subject when it names a norm or a dispositivo (:func:`subject_of`); None without one."""
        if idx.expansion is None or self.expansion_dense_weight <= 0:
            return None
        subject = subject_of(q)
        if not subject:
            return None
        return qvec if subject == " ".join(q.split()) else self.embed_query(subject)

    def _lexical_search(
        self,
        idx: _CollectionIndex,
        q: str,
        depth: int,
        mask: npt.NDArray[np.bool_] | None,
    ) -> tuple[npt.NDArray[np.signedinteger[Any]], npt.NDArray[np.floating[Any]]]:
        """The lexical candidates: the passage's own words, plus its context words and its
        article's generated questions at lower weights where the collection has them."""
        context = idx.context is not None and self.context_weight > 0
        expanded = idx.expansion_lexical is not None and self.expansion_weight > 0
        if not (context or expanded):
            return idx.lexical.search(q, depth, mask)
        scores = idx.lexical.scores(q)
        if context:
            assert idx.context is not None
            scores = scores + self.context_weight * idx.context.scores(q)
        if expanded:
            assert idx.expansion is not None and idx.expansion_lexical is not None
            subject = subject_of(q)
            if subject:
                per_question = idx.expansion_lexical.scores(subject)
                per_article = idx.expansion.best_of(per_question)
                scores = scores + self.expansion_weight * idx.expansion.per_passage(per_article)
        if mask is not None:
            scores[~mask] = 0.0
        return top_k(scores, depth)

    def _fuse_dense(
        self,
        dense: DenseIndex,
        qvec: npt.NDArray[np.float32],
        lex_pos: npt.NDArray[np.signedinteger[Any]],
        lex_scores: npt.NDArray[np.floating[Any]],
        depth: int,
        over: int,
        mask: npt.NDArray[np.bool_] | None,
        idx: _CollectionIndex | None = None,
        asked: npt.NDArray[np.float32] | None = None,
    ) -> tuple[list[tuple[int, float, list[int | None]]], bool]:
        """Vector candidates for ``qvec`` fused with the lexical ones (and with the passages
        whose article's generated questions lie nearest ``qvec``), and whether the vector
        search returned all it was asked for."""
        dense_pos, dense_scores = dense.search(qvec, over)
        full = len(dense_pos) >= over
        if mask is not None:
            keep = mask[dense_pos]
            dense_pos, dense_scores = dense_pos[keep], dense_scores[keep]
        dense_pos, dense_scores = dense_pos[:depth], dense_scores[:depth]
        lists = [
            (lex_pos.tolist(), lex_scores.tolist()),
            (dense_pos.tolist(), dense_scores.tolist()),
        ]
        weights = [1.0 - self.dense_weight, self.dense_weight]
        near = self._expansion_candidates(idx, asked, depth, mask) if asked is not None else None
        if near is not None:
            lists.append(near)
            weights.append(self.expansion_dense_weight)
        if self.fusion != "rrf":
            fused = score_fuse(lists, weights, self.fusion)
        else:
            fused = rrf_fuse([positions for positions, _ in lists], self.rrf_k)
        return fused, full

    def _expansion_candidates(
        self,
        idx: _CollectionIndex | None,
        qvec: npt.NDArray[np.float32],
        depth: int,
        mask: npt.NDArray[np.bool_] | None,
    ) -> tuple[list[int], list[float]] | None:
        """The passages whose article has a generated question nearest ``qvec`` (the best
        cosine of its article's questions), best first; None when there are none."""
        if idx is None or self.expansion_dense_weight <= 0:
            return None
        best = self._expansion_best(idx, qvec)
        if best is None:
            return None
        expansion = idx.expansion
        assert expansion is not None
        per_passage = expansion.per_passage(best)
        per_passage[expansion.rows < 0] = -np.inf
        if mask is not None:
            per_passage[~mask] = -np.inf
        order = np.argsort(-per_passage, kind="stable")[:depth]
        order = order[np.isfinite(per_passage[order])]
        if not len(order):
            return None
        return order.tolist(), per_passage[order].tolist()

    def _hydrate(
        self,
        picked: list[_Scored],
        indexes: dict[str, _CollectionIndex],
    ) -> list[Hit]:
        wanted: dict[str, list[str]] = {}
        for _, name, pos, _, _ in picked:
            wanted.setdefault(name, []).append(indexes[name].chunk_ids[pos])
        stored = {name: self.store.get_chunks(name, ids) for name, ids in wanted.items()}
        hits: list[Hit] = []
        for score, name, pos, lr, dr in picked:
            chunk = stored[name].get(indexes[name].chunk_ids[pos])
            if chunk is None:  # deleted between index build and now
                continue
            hits.append(
                Hit(
                    chunk_id=chunk.chunk_id,
                    doc_id=chunk.doc_id,
                    score=score,
                    text=chunk.text,
                    citation=Citation.of_chunk(chunk),
                    collection=name,
                    lexical_rank=lr,
                    dense_rank=dr,
                    heading=chunk.heading,
                    doc_type=chunk.doc_type,
                    year=chunk.year,
                )
            )
        return hits


def _unit(vector: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    norm = float(np.linalg.norm(vector))
    return (vector / norm if norm > 0 else vector).astype(np.float32, copy=False)


def _config_dict(config: LexicalConfig) -> dict[str, Any]:
    from dataclasses import asdict

    return asdict(config)
