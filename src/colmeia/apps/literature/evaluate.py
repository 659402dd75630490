"""``colmeia eval review``: the published evaluation, repeated on any collection of works.

One synthetic query per work, made from its abstract (by the model when one is configured;
offline, from abstract sentences after the first), the work being the single relevant item.
Queries that repeat most of the title are left out: against an index that holds titles they
leak the answer. Lexical, dense, hybrid and reranked rankings of works are measured in one run
(mean rank over ALL queries with not-found counted as depth + 1, MRR, P@1, not-found@5), plus a
sweep of the candidate count K. Generation metrics (context relevance, faithfulness with a
random-context control, answer relevance, similarity to the abstract) need a model.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from colmeia.apps.literature.review import rerank_works
from colmeia.eval.retrieval import single_target_metrics
from colmeia.llm.base import ChatModel, Message
from colmeia.llm.prompts import render_prompt
from colmeia.rag.index.embedders import Embedder
from colmeia.rag.index.lexical import Analyzer
from colmeia.rag.retrieve import Retriever
from colmeia.store.base import Store, StoredDocument

__all__ = ["EvalReport", "SyntheticQuery", "evaluate_review", "offline_query", "title_leak"]

_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-ZÀ-Ý])")


@dataclass(slots=True)
class SyntheticQuery:
    """A query made from one work's abstract; that work is the one right answer."""

    doc_id: str
    text: str
    source: str  # "offline" or "model"


class _Query(BaseModel):
    question: str = Field(description="The research question, 10-25 words.")


def title_leak(query: str, title: str, analyzer: Analyzer | None = None) -> float:
    """Share of the title's content words that the query repeats (1.0 = the whole title)."""
    a = analyzer or Analyzer()
    words = set(a.tokens(title))
    return len(words & set(a.tokens(query))) / len(words) if words else 0.0


def offline_query(abstract: str, title: str, *, max_words: int = 60) -> str:
    """A query from the abstract without a model: the sentences after the first (which
    usually restates the title), the one that repeats least of the title first, up to
    ``max_words`` words."""
    sentences = [s.strip() for s in _SENTENCE_RE.split(" ".join(abstract.split())) if s.strip()]
    if not sentences:
        return ""
    body = sentences[1:] or sentences
    analyzer = Analyzer()
    body.sort(key=lambda s: (title_leak(s, title, analyzer), -min(len(s.split()), max_words)))
    words: list[str] = []
    for s in body:
        words += s.split()
        if len(words) >= 25:
            break
    return " ".join(words[:max_words])


@dataclass(slots=True)
class EvalReport:
    """Figures of one run, ready for a table, a JSON line and an HTML report."""

    collection: str
    queries: int
    excluded_title: int
    depth: int
    variants: dict[str, dict[str, object]] = field(default_factory=dict)
    k_sweep: dict[int, dict[str, object]] = field(default_factory=dict)
    generation: dict[str, object] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "collection": self.collection,
            "queries": self.queries,
            "excluded_title_queries": self.excluded_title,
            "depth": self.depth,
            "variants": self.variants,
            "k_sweep": {str(k): v for k, v in self.k_sweep.items()},
            "generation": self.generation,
            "seconds_per_query": self.seconds,
            "notes": self.notes,
        }


def _rank(ranked: Sequence[str], target: str) -> int | None:
    try:
        return list(ranked).index(target) + 1
    except ValueError:
        return None


def _dense_ranking(
    store: Store, collection: str, embedder: Embedder
) -> Callable[[str, int], list[str]]:
    ids, matrix = store.vectors(collection)
    chunk_doc = {c.chunk_id: c.doc_id for c in store.chunks(collection)}
    docs = [chunk_doc.get(i, "") for i in ids]

    def rank(query: str, depth: int) -> list[str]:
        embed_query = getattr(embedder, "embed_query", None)
        q = embed_query([query])[0] if callable(embed_query) else embedder.embed([query])[0]
        scores = matrix @ q
        out: list[str] = []
        for i in np.argsort(-scores):
            d = docs[int(i)]
            if d and d not in out:
                out.append(d)
                if len(out) >= depth:
                    break
        return out

    return rank


def evaluate_review(
    store: Store,
    collection: str,
    *,
    embedder: Embedder | None = None,
    model: ChatModel | None = None,
    limit: int | None = None,
    depth: int = 100,
    ks: Sequence[int] = (10, 25, 50, 100, 200),
    seed: int = 0,
    progress: Callable[[int, int, str], None] | None = None,
    run: Callable[[Any], Any] | None = None,
) -> EvalReport:
    """Measure work retrieval on synthetic queries (see the module docstring).

    ``run`` executes a coroutine (``asyncio.run`` by default) for the model calls."""
    import asyncio

    runner = run or asyncio.run
    docs = [d for d in store.documents(collection) if d.metadata.get("abstract") or d.n_chunks]
    rng = random.Random(seed)
    if limit is not None and limit < len(docs):
        docs = rng.sample(docs, limit)
    analyzer = Analyzer()
    queries: list[SyntheticQuery] = []
    excluded = 0
    for d in docs:
        abstract = str(d.metadata.get("abstract") or d.metadata.get("Resumo") or "")
        if not abstract:
            got = store.get_chunks(collection, [f"{d.doc_id}#0"])
            abstract = got[f"{d.doc_id}#0"].text if got else ""
        text = ""
        source = "offline"
        if model is not None:
            prompt = render_prompt(
                "colmeia.apps.literature", "query.j2", title=d.title, abstract=abstract
            )
            q = runner(model.structured([Message.user(prompt)], _Query, temperature=0.7))
            text, source = q.question, "model"
        else:
            text = offline_query(abstract, d.title)
        if not text or title_leak(text, d.title, analyzer) > 0.5:
            excluded += 1
            continue
        queries.append(SyntheticQuery(d.doc_id, text, source))
    report = EvalReport(collection, len(queries), excluded, depth)
    report.notes.append(
        "mean_rank counts a query not found within depth as depth + 1 (over all queries); "
        "mean_rank_found is over found queries only (the published definition)"
    )
    by_id = {d.doc_id: d for d in store.documents(collection)}
    lexical = Retriever(store, collection)
    hybrid = Retriever(store, collection, embedder=embedder) if embedder is not None else None
    dense = _dense_ranking(store, collection, embedder) if embedder is not None else None
    ranks: dict[str, list[int | None]] = {"lexical": []}
    if embedder is not None:
        ranks.update({"dense": [], "hybrid": [], "reranked": []})
    else:
        ranks["reranked"] = []
    spent: dict[str, float] = dict.fromkeys(ranks, 0.0)
    for i, q in enumerate(queries, start=1):
        t = time.perf_counter()
        lex = [g.doc_id for g in lexical.search_documents(q.text, depth, per_document=1)]
        spent["lexical"] += time.perf_counter() - t
        ranks["lexical"].append(_rank(lex, q.doc_id))
        base = lex
        if hybrid is not None and dense is not None:
            t = time.perf_counter()
            ranks["dense"].append(_rank(dense(q.text, depth), q.doc_id))
            spent["dense"] += time.perf_counter() - t
            t = time.perf_counter()
            base = [g.doc_id for g in hybrid.search_documents(q.text, depth, per_document=1)]
            spent["hybrid"] += time.perf_counter() - t
            ranks["hybrid"].append(_rank(base, q.doc_id))
        t = time.perf_counter()
        head = [by_id[x] for x in base[:20] if x in by_id]
        order = rerank_works(q.text, head, embedder)
        reranked = [head[j].doc_id for j in order] + base[20:]
        spent["reranked"] += time.perf_counter() - t  # on top of the first-stage time
        ranks["reranked"].append(_rank(reranked, q.doc_id))
        if progress is not None:
            progress(i, len(queries), q.doc_id[-30:])
    for name, found in ranks.items():
        report.variants[name] = single_target_metrics(found, depth).as_dict()
        report.seconds[name] = round(spent[name] / max(len(queries), 1), 4)
    for k in ks:
        swept = Retriever(store, collection, embedder=embedder, candidates=k)
        values = []
        for q in queries:
            top = [g.doc_id for g in swept.search_documents(q.text, 10, per_document=1, depth=k)]
            values.append(_rank(top, q.doc_id))
        report.k_sweep[k] = single_target_metrics(values, 10).as_dict()
    if model is not None:
        report.generation = runner(
            _generation_metrics(
                store, collection, queries[: min(20, len(queries))], model, embedder, rng
            )
        )
    else:
        report.generation = {"skipped": "generation metrics need a model (COLMEIA_LLM_BASE_URL)"}
    return report


class _Claim(BaseModel):
    claim: str
    supported: bool


class _Judgement(BaseModel):
    context_relevance: float = Field(ge=0, le=1)
    claims: list[_Claim] = Field(default_factory=list)
    answer_relevance: float = Field(ge=0, le=1)


async def _generation_metrics(
    store: Store,
    collection: str,
    queries: Sequence[SyntheticQuery],
    model: ChatModel,
    embedder: Embedder | None,
    rng: random.Random,
) -> dict[str, object]:
    """LLM-judged: context relevance, faithfulness (and with random passages, the control),
    answer relevance; cosine similarity of the answer to the abstract when an embedder is set."""
    from colmeia.apps.literature.review import (
        ReviewedWork,
        _model_analysis,
        _passages,
        _work_chunks,
    )

    all_chunks = store.chunks(collection)
    docs = {d.doc_id: d for d in store.documents(collection)}
    retriever = Retriever(store, collection, embedder=embedder)
    sums: dict[str, list[float]] = {
        k: [] for k in ("context", "faith", "faith_random", "answer", "similarity")
    }
    for q in queries:
        d: StoredDocument = docs[q.doc_id]
        groups = retriever.search_documents(q.text, 1, per_document=5)
        for control in (False, True):
            w = ReviewedWork(
                d.doc_id, d.title, 1, 0.0, abstract=str(d.metadata.get("abstract", ""))
            )
            if control:
                picked = rng.sample(all_chunks, min(5, len(all_chunks)))
                w.passages = _passages([], picked)
                for i, p in enumerate(w.passages, start=1):
                    p.id = f"P{i}"
            else:
                w.passages = _passages(
                    groups[0].hits if groups else [], _work_chunks(store, collection, d)
                )
            await _model_analysis(model, q.text, w, 0.2)
            answer = " ".join(x.text for x in (w.summary, w.objectives, w.conclusions) if x)
            prompt = render_prompt(
                "colmeia.apps.literature",
                "judge.j2",
                question=q.text,
                passages=w.passages,
                answer=answer,
            )
            j = await model.structured([Message.user(prompt)], _Judgement, temperature=0.0)
            share = sum(c.supported for c in j.claims) / len(j.claims) if j.claims else 1.0
            if control:
                sums["faith_random"].append(share)
                continue
            sums["context"].append(j.context_relevance)
            sums["faith"].append(share)
            sums["answer"].append(j.answer_relevance)
            if embedder is not None and w.abstract:
                vecs = embedder.embed([answer, w.abstract])
                sums["similarity"].append(float(vecs[0] @ vecs[1]))

    def mean(xs: list[float]) -> float | None:
        return round(sum(xs) / len(xs), 4) if xs else None

    return {
        "queries": len(queries),
        "context_relevance": mean(sums["context"]),
        "faithfulness": mean(sums["faith"]),
        "faithfulness_random_context": mean(sums["faith_random"]),
        "answer_relevance": mean(sums["answer"]),
        "answer_similarity_to_abstract": mean(sums["similarity"]),
        "note": "similarities are cosine similarities (higher is better), not distances",
    }
