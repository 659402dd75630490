"""Retrieval metrics from a run (ranked ids per query) and graded relevance judgements.

Pure functions: numbers in, numbers out. A document is relevant when its grade is > 0.
nDCG uses the exponential gain ``2**grade - 1`` (the usual choice for graded qrels, as in
the reference figures of the shared data); the ideal ranking comes from all judged grades.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = [
    "RetrievalMetrics",
    "SingleTargetMetrics",
    "evaluate_run",
    "first_relevant_rank",
    "mrr",
    "ndcg_at_k",
    "precision_at_k",
    "recall_at_k",
    "single_target_metrics",
]

Qrels = Mapping[str, int]


def _dcg(gains: Sequence[int]) -> float:
    return float(sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(gains)))


def ndcg_at_k(ranked: Sequence[str], qrels: Qrels, k: int = 10) -> float:
    """Normalised discounted cumulative gain of the first ``k`` results (0 if nothing relevant)."""
    ideal = _dcg(sorted((g for g in qrels.values() if g > 0), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    return _dcg([max(qrels.get(d, 0), 0) for d in ranked[:k]]) / ideal


def first_relevant_rank(ranked: Sequence[str], qrels: Qrels) -> int | None:
    """1-based rank of the first relevant result, or ``None`` if none was retrieved."""
    for i, d in enumerate(ranked, start=1):
        if qrels.get(d, 0) > 0:
            return i
    return None


def mrr(ranked: Sequence[str], qrels: Qrels, k: int | None = None) -> float:
    """Reciprocal rank of the first relevant result (within ``k`` if given)."""
    rank = first_relevant_rank(ranked[:k] if k else ranked, qrels)
    return 1.0 / rank if rank else 0.0


def recall_at_k(ranked: Sequence[str], qrels: Qrels, k: int) -> float:
    """Share of the relevant documents found in the first ``k`` results."""
    relevant = {d for d, g in qrels.items() if g > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def precision_at_k(ranked: Sequence[str], qrels: Qrels, k: int = 1) -> float:
    """Share of the first ``k`` results that are relevant (P@1: is the first one right)."""
    if k <= 0:
        return 0.0
    return sum(1 for d in ranked[:k] if qrels.get(d, 0) > 0) / k


@dataclass(slots=True)
class RetrievalMetrics:
    """Means over the judged queries (queries with at least one relevant document)."""

    queries: int
    ndcg: dict[int, float] = field(default_factory=dict)
    recall: dict[int, float] = field(default_factory=dict)
    mrr: float = 0.0
    p_at_1: float = 0.0
    mean_rank: float | None = None
    not_found: dict[int, int] = field(default_factory=dict)
    per_query: dict[str, dict[str, float]] = field(default_factory=dict)

    def as_dict(self, *, per_query: bool = False) -> dict[str, object]:
        out: dict[str, object] = {"queries": self.queries}
        out.update({f"ndcg@{k}": round(v, 4) for k, v in self.ndcg.items()})
        out["mrr"] = round(self.mrr, 4)
        out["p@1"] = round(self.p_at_1, 4)
        out.update({f"recall@{k}": round(v, 4) for k, v in self.recall.items()})
        out["mean_rank"] = None if self.mean_rank is None else round(self.mean_rank, 3)
        out.update({f"not_found@{k}": v for k, v in self.not_found.items()})
        if per_query:
            out["per_query"] = self.per_query
        return out


def evaluate_run(
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Qrels],
    *,
    ndcg_ks: Sequence[int] = (10,),
    recall_ks: Sequence[int] = (10, 100),
    not_found_ks: Sequence[int] = (5, 10),
) -> RetrievalMetrics:
    """Metrics of ``run`` (query id → ranked doc ids) against ``qrels`` (query → doc → grade).

    Queries without any relevant judgement are left out; judged queries missing from the run
    count as having retrieved nothing. ``mean_rank`` averages the rank of the first relevant
    result over the queries where one was retrieved at all.
    """
    judged = [q for q, rels in qrels.items() if any(g > 0 for g in rels.values())]
    m = RetrievalMetrics(queries=len(judged))
    if not judged:
        return m
    ranks: list[int] = []
    sums_ndcg = dict.fromkeys(ndcg_ks, 0.0)
    sums_recall = dict.fromkeys(recall_ks, 0.0)
    not_found = dict.fromkeys(not_found_ks, 0)
    total_rr = total_p1 = 0.0
    for q in judged:
        ranked = list(run.get(q, ()))
        rels = qrels[q]
        row: dict[str, float] = {}
        for k in ndcg_ks:
            v = ndcg_at_k(ranked, rels, k)
            sums_ndcg[k] += v
            row[f"ndcg@{k}"] = v
        for k in recall_ks:
            sums_recall[k] += recall_at_k(ranked, rels, k)
        rank = first_relevant_rank(ranked, rels)
        rr = 1.0 / rank if rank else 0.0
        total_rr += rr
        total_p1 += precision_at_k(ranked, rels, 1)
        for k in not_found_ks:
            if rank is None or rank > k:
                not_found[k] += 1
        if rank is not None:
            ranks.append(rank)
        row["rr"] = rr
        row["first_relevant_rank"] = float(rank) if rank else 0.0
        m.per_query[q] = row
    n = len(judged)
    m.ndcg = {k: v / n for k, v in sums_ndcg.items()}
    m.recall = {k: v / n for k, v in sums_recall.items()}
    m.mrr = total_rr / n
    m.p_at_1 = total_p1 / n
    m.mean_rank = sum(ranks) / len(ranks) if ranks else None
    m.not_found = not_found
    return m


@dataclass(slots=True)
class SingleTargetMetrics:
    """Ranking quality when each query has exactly one right answer (a work made the query).

    ``mean_rank`` is over ALL queries: a query whose answer was not retrieved within ``depth``
    counts as rank ``depth + 1`` (a penalty, not a dropped query). ``mean_rank_found`` is the
    published definition, over found queries only, for comparison.
    """

    queries: int
    mean_rank: float
    mean_rank_found: float | None
    mrr: float
    p_at_1: float
    not_found_at_5: float
    not_found: int
    depth: int

    def as_dict(self) -> dict[str, object]:
        return {
            "queries": self.queries,
            "mean_rank": round(self.mean_rank, 3),
            "mean_rank_found": None
            if self.mean_rank_found is None
            else round(self.mean_rank_found, 3),
            "mrr": round(self.mrr, 4),
            "p@1": round(self.p_at_1, 4),
            "not_found@5": round(self.not_found_at_5, 4),
            "not_found": self.not_found,
            "depth": self.depth,
        }


def single_target_metrics(ranks: Sequence[int | None], depth: int) -> SingleTargetMetrics:
    """Metrics from the 1-based rank of each query's one relevant item (``None``: not found
    within ``depth``)."""
    n = len(ranks)
    if n == 0:
        return SingleTargetMetrics(0, 0.0, None, 0.0, 0.0, 0.0, 0, depth)
    found = [r for r in ranks if r is not None and r <= depth]
    penalised = [r if r is not None and r <= depth else depth + 1 for r in ranks]
    return SingleTargetMetrics(
        queries=n,
        mean_rank=sum(penalised) / n,
        mean_rank_found=sum(found) / len(found) if found else None,
        mrr=sum(1.0 / r for r in found) / n,
        p_at_1=sum(1 for r in found if r == 1) / n,
        not_found_at_5=sum(1 for r in penalised if r > 5) / n,
        not_found=n - len(found),
        depth=depth,
    )
