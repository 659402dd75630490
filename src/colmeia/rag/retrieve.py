"""Hybrid retrieval: BM25 (+ dense vectors when an embedder is set) fused by reciprocal rank,
filtered by document metadata, capped to N passages per document, optionally reranked.

Indexes are derived from the store and cached per collection *generation* (bumped by every
change): in memory for the process, and on disk under the store's index folder, so a search
after an ingestion rebuilds once and later searches load the saved files.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import shutil
import threading
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from colmeia.errors import ConfigurationError, QueryError
from colmeia.rag.index.dense import DenseIndex
from colmeia.rag.index.embedders import Embedder
from colmeia.rag.index.lexical import LexicalConfig, LexicalIndex
from colmeia.store.base import Store, StoredChunk

__all__ = [
    "DEFAULT_LEXICAL",
    "MAX_QUERY_CHARS",
    "Citation",
    "DocumentResult",
    "Filters",
    "Hit",
    "Retriever",
    "group_by_document",
    "rrf_fuse",
    "validate_query",
]

log = logging.getLogger(__name__)

MAX_QUERY_CHARS = 10_000
# Tuned on JurisTCU and FaQuAD (see docs/rag.md): BM25L with a small bigram bonus.
DEFAULT_LEXICAL = LexicalConfig(k1=1.2, b=0.75, method="bm25l", delta=1.0, bigram_weight=0.1)

T = TypeVar("T")


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
    """Where a passage comes from: document title, page and hierarchy path, and the file."""

    document: str
    page: int
    path: str
    source: str = ""
    page_end: int = 0

    def label(self) -> str:
        """Human form: "Lei 8.078/1990, Art. 43, § 1º — p. 3"."""
        parts = [self.path or self.document]
        if self.path and self.document and self.document not in self.path:
            parts.insert(0, self.document)
        text = ", ".join(p for p in parts if p)
        if self.page and (self.page > 1 or self.page_end > 1):
            pages = f"{self.page}-{self.page_end}" if self.page_end > self.page else f"{self.page}"
            text += f" (p. {pages})"
        return text

    def as_dict(self) -> dict[str, Any]:
        return {
            "document": self.document,
            "page": self.page,
            "page_end": self.page_end or self.page,
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
    """Metadata filters: document type and year (exact or a range)."""

    doc_type: str | None = None
    year: int | None = None
    year_from: int | None = None
    year_to: int | None = None

    def active(self) -> bool:
        return any(v is not None for v in (self.doc_type, self.year, self.year_from, self.year_to))


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
    doc_types: npt.NDArray[np.str_]
    years: npt.NDArray[np.int32]  # 0 = unknown
    lexical: LexicalIndex
    dense: DenseIndex | None = None
    dense_embedder: str = ""
    doc_pos: dict[str, list[int]] = field(default_factory=dict)

    def mask(self, filters: Filters | None) -> npt.NDArray[np.bool_] | None:
        if filters is None or not filters.active():
            return None
        m = np.ones(len(self.chunk_ids), dtype=bool)
        if filters.doc_type is not None:
            m &= self.doc_types == filters.doc_type
        if filters.year is not None:
            m &= self.years == filters.year
        if filters.year_from is not None:
            m &= (self.years >= filters.year_from) & (self.years > 0)
        if filters.year_to is not None:
            m &= (self.years <= filters.year_to) & (self.years > 0)
        return m


_MEMORY: dict[tuple[str, str, str], _CollectionIndex] = {}
_MEMORY_LOCK = threading.Lock()


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
    tag = f"g{generation}-{hashlib.sha256(config.key().encode()).hexdigest()[:10]}"
    target = folder / tag
    positions = target / "positions.json"
    lexical = LexicalIndex.load(target / "lexical") if positions.exists() else None
    if lexical is not None and lexical.config == config:
        meta = json.loads(positions.read_text(encoding="utf-8"))
        return _CollectionIndex(
            generation,
            meta["chunk_ids"],
            meta["doc_ids"],
            np.asarray(meta["doc_types"], dtype=np.str_),
            np.asarray(meta["years"], dtype=np.int32),
            lexical,
        )
    chunks = store.chunks(collection)
    lexical = LexicalIndex.build((index_text(c) for c in chunks), config)
    built = _CollectionIndex(
        generation,
        [c.chunk_id for c in chunks],
        [c.doc_id for c in chunks],
        np.asarray([c.doc_type for c in chunks], dtype=np.str_),
        np.asarray([c.year or 0 for c in chunks], dtype=np.int32),
        lexical,
    )
    try:
        # Write beside, then swap in: a reader never sees half an index.
        tmp = folder / f".{tag}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        lexical.save(tmp / "lexical")
        (tmp / "positions.json").write_text(
            json.dumps(
                {
                    "chunk_ids": built.chunk_ids,
                    "doc_ids": built.doc_ids,
                    "doc_types": built.doc_types.tolist(),
                    "years": built.years.tolist(),
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
    key = (store.url, collection, config.key())
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
    path = _folder(store, collection) / f"dense-g{idx.generation}.faiss"
    dense = DenseIndex.load(path)
    if dense is None:
        ids, matrix = store.vectors(collection)
        pos = {cid: i for i, cid in enumerate(idx.chunk_ids)}
        aligned = np.zeros((len(idx.chunk_ids), matrix.shape[1] if matrix.size else 1), np.float32)
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


def _run(coro: Coroutine[Any, Any, T]) -> T:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    raise RuntimeError("use the async method (asearch) inside a running event loop")


# ---------------------------------------------------------------------------- retriever
class Retriever:
    """Searches one or more collections of a store.

    Without an embedder (or when a collection has no vectors) ranking is BM25 alone; with one,
    BM25 and vector candidates are fused by reciprocal rank (``1/(rrf_k + rank)``).
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
        self.per_document = per_document

    def warm(self) -> None:
        """Build or load the indexes now (after ingestion) rather than on the first search."""
        for name in self.collections:
            idx = _collection_index(self.store, name, self.lexical)
            if self.embedder is not None:
                _dense_for(self.store, name, idx, self.embedder)

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
        qvec = None
        if self.embedder is not None:
            qvec = self.embedder.embed([q])[0]
        scored: list[tuple[float, str, int, int | None, int | None]] = []
        indexes: dict[str, _CollectionIndex] = {}
        for name in self.collections:
            idx = _collection_index(self.store, name, self.lexical)
            indexes[name] = idx
            scored.extend(self._rank_collection(name, idx, q, qvec, k, cap, filters))
        scored.sort(key=lambda t: (-t[0], t[1], t[2]))
        picked: list[tuple[float, str, int, int | None, int | None]] = []
        per_doc: dict[tuple[str, str], int] = {}
        for item in scored:
            name, pos = item[1], item[2]
            doc = indexes[name].doc_ids[pos]
            n = per_doc.get((name, doc), 0)
            if cap and n >= cap:
                continue
            per_doc[(name, doc)] = n + 1
            picked.append(item)
            if len(picked) >= k:
                break
        return self._hydrate(picked, indexes)

    def _rank_collection(
        self,
        name: str,
        idx: _CollectionIndex,
        q: str,
        qvec: npt.NDArray[np.float32] | None,
        k: int,
        cap: int,
        filters: Filters | None,
    ) -> list[tuple[float, str, int, int | None, int | None]]:
        mask = idx.mask(filters)
        depth = max(self.candidates, k * max(cap, 1)) if cap else max(self.candidates, k)
        depth = min(depth, max(len(idx.chunk_ids), 1))
        lex_pos, lex_scores = idx.lexical.search(q, depth, mask)
        if not idx.lexical.has_terms(q):
            # Only stopwords ("o que é"): fall back to matching them as plain words.
            plain = LexicalConfig(**{**_config_dict(self.lexical), "stopwords": False})
            alt = _collection_index(self.store, name, plain)
            lex_pos, lex_scores = alt.lexical.search(q, depth, mask)
        dense = None
        if qvec is not None and self.embedder is not None:
            dense = _dense_for(self.store, name, idx, self.embedder)
        if dense is None:
            return [
                (float(s), name, int(p), r, None)
                for r, (p, s) in enumerate(zip(lex_pos, lex_scores, strict=True), start=1)
            ]
        assert qvec is not None
        over = depth * 4 if mask is not None else depth
        dense_pos, _ = dense.search(qvec, over)
        if mask is not None:
            dense_pos = dense_pos[mask[dense_pos]]
        dense_pos = dense_pos[:depth]
        fused = rrf_fuse([lex_pos.tolist(), dense_pos.tolist()], self.rrf_k)
        return [(score, name, p, ranks[0], ranks[1]) for p, score, ranks in fused]

    def _hydrate(
        self,
        picked: list[tuple[float, str, int, int | None, int | None]],
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
                    citation=Citation(
                        document=chunk.title or chunk.doc_id,
                        page=chunk.page_start,
                        path=chunk.path,
                        source=chunk.source_path,
                        page_end=chunk.page_end,
                    ),
                    collection=name,
                    lexical_rank=lr,
                    dense_rank=dr,
                    heading=chunk.heading,
                    doc_type=chunk.doc_type,
                    year=chunk.year,
                )
            )
        return hits


def _config_dict(config: LexicalConfig) -> dict[str, Any]:
    from dataclasses import asdict

    return asdict(config)
