"""The rankings of works an evaluation compares, run for one question at a time and timed.

Lexical (BM25), dense (the cosine of each work's best passage; needs an embedder), hybrid
(fused scores), reranked (the review's offline rerank of the first 20 works of hybrid, or of
lexical without an embedder), a model reranker's order when one is configured, and the search
of a question with the model's rewritings of it fused (``expand_model``). The question is
searched without an opening that only asks for works, as the review searches it
(:func:`~colmeia.apps.literature.questions.question_core`). Every ranking's seconds per
question are kept (the reranked time on top of the first stage's), so a report can give their
mean and spread.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from colmeia.apps.literature.expansion import expand_query, fused_search
from colmeia.apps.literature.questions import question_core
from colmeia.apps.literature.ranking import model_rerank_works, rerank_works
from colmeia.errors import ModelError
from colmeia.llm.base import ChatModel
from colmeia.rag.index.embedders import Embedder
from colmeia.rag.rerank import Reranker
from colmeia.rag.retrieve import Retriever
from colmeia.store.base import Store

__all__ = ["RERANK_HEAD", "WorkRankings", "rank_of"]

#: Works of the first stage the offline (and the model) rerank reorders.
RERANK_HEAD = 20


def rank_of(ranked: Sequence[str], target: str) -> int | None:
    """1-based position of ``target`` in ``ranked``; ``None`` when it is not there."""
    try:
        return list(ranked).index(target) + 1
    except ValueError:
        return None


def _dense_ranking(
    store: Store, collection: str, retriever: Retriever
) -> Callable[[str, int], list[str]]:
    """Works by their best passage's cosine similarity alone (exact scan)."""
    ids, matrix = store.vectors(collection)
    chunk_doc = {c.chunk_id: c.doc_id for c in store.chunks(collection)}
    docs = [chunk_doc.get(i, "") for i in ids]

    def rank(query: str, depth: int) -> list[str]:
        scores = matrix @ retriever.embed_query(query)
        out: list[str] = []
        for i in np.argsort(-scores):
            d = docs[int(i)]
            if d and d not in out:
                out.append(d)
                if len(out) >= depth:
                    break
        return out

    return rank


class WorkRankings:
    """Each ranking's list of works for a question (:meth:`rank`), with its time kept in
    :attr:`timings` (seconds per question, in the order asked) and what went wrong in
    :attr:`notes` (a failed model rerank keeps the offline order)."""

    def __init__(
        self,
        store: Store,
        collection: str,
        *,
        embedder: Embedder | None = None,
        reranker: Reranker | None = None,
        expand_model: ChatModel | None = None,
        depth: int = 100,
    ) -> None:
        self.by_id = {d.doc_id: d for d in store.documents(collection)}
        self.lexical = Retriever(store, collection)
        self.hybrid: Retriever | None = None
        self.dense: Callable[[str, int], list[str]] | None = None
        if embedder is not None:
            self.hybrid = Retriever(store, collection, embedder=embedder)
            self.dense = _dense_ranking(store, collection, self.hybrid)
        self.reranker = reranker
        self.expand_model = expand_model
        self.depth = depth
        names = ["lexical"]
        if self.hybrid is not None:
            names += ["dense", "hybrid"]
        names.append("reranked")
        self.expanded_name = f"{'lexical' if self.hybrid is None else 'hybrid'} + model expansion"
        if expand_model is not None:
            names.append(self.expanded_name)
        if reranker is not None:
            names.append("reranked (model)")
        self.names: list[str] = names
        self.timings: dict[str, list[float]] = {name: [] for name in names}
        self.notes: list[str] = []

    @property
    def first_stage(self) -> Retriever:
        """The search the rerank and generation start from: hybrid when there are vectors."""
        return self.lexical if self.hybrid is None else self.hybrid

    def _timed(self, name: str, started: float) -> None:
        self.timings[name].append(time.perf_counter() - started)

    async def rank(self, text: str) -> dict[str, list[str]]:
        """The works each ranking puts first for ``text`` (up to ``depth``), best first."""
        depth, out = self.depth, {}
        t = time.perf_counter()
        found = self.lexical.search_documents(text, depth, per_document=1)
        self._timed("lexical", t)
        out["lexical"] = [g.doc_id for g in found]
        base, first_stage, scores = out["lexical"], self.lexical, [g.score for g in found]
        if self.hybrid is not None and self.dense is not None:
            t = time.perf_counter()
            out["dense"] = self.dense(text, depth)
            self._timed("dense", t)
            t = time.perf_counter()
            groups = self.hybrid.search_documents(text, depth, per_document=1)
            self._timed("hybrid", t)
            base, first_stage = [g.doc_id for g in groups], self.hybrid
            scores, out["hybrid"] = [g.score for g in groups], base
        t = time.perf_counter()
        core = question_core(text)
        if core != text:  # the review searches the question without its opening
            groups = first_stage.search_documents(core, depth, per_document=1)
            base, scores = [g.doc_id for g in groups], [g.score for g in groups]
        kept = [i for i, x in enumerate(base[:RERANK_HEAD]) if x in self.by_id]
        head = [self.by_id[base[i]] for i in kept]
        order = rerank_works(text, head, first_stage, [scores[i] for i in kept])
        head = [head[j] for j in order]
        out["reranked"] = [d.doc_id for d in head] + base[RERANK_HEAD:]
        self._timed("reranked", t)  # on top of the first-stage time
        if self.reranker is not None:
            t = time.perf_counter()
            try:
                judged, _ = await model_rerank_works(text, head, self.reranker)
                out["reranked (model)"] = [head[j].doc_id for j in judged] + base[RERANK_HEAD:]
            except ModelError as exc:
                self.notes.append(f"model rerank failed on one query, offline order kept: {exc}")
                out["reranked (model)"] = out["reranked"]
            self._timed("reranked (model)", t)
        if self.expand_model is not None:
            t = time.perf_counter()
            variants = await expand_query(self.expand_model, text)
            fused = fused_search(self.first_stage, variants, depth, per_document=1)
            self._timed(self.expanded_name, t)
            out[self.expanded_name] = [g.doc_id for g in fused]
        return out
