"""Retrieval metrics, checked against values worked out by hand."""

from __future__ import annotations

import math

import pytest

from colmeia.eval.retrieval import (
    evaluate_run,
    first_relevant_rank,
    mrr,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
)

QRELS = {"a": 3, "b": 1, "c": 0, "d": 2}


def test_ndcg_uses_exponential_gain_and_the_ideal_order() -> None:
    ranked = ["b", "a", "x"]
    dcg = (2**1 - 1) / math.log2(2) + (2**3 - 1) / math.log2(3)
    ideal = 7 / math.log2(2) + 3 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at_k(ranked, QRELS, 10) == pytest.approx(dcg / ideal)
    assert ndcg_at_k(["a", "d", "b"], QRELS, 3) == pytest.approx(1.0)
    assert ndcg_at_k(["a"], QRELS, 1) == pytest.approx(1.0)
    assert ndcg_at_k(["x", "y"], QRELS, 10) == 0.0
    assert ndcg_at_k(["a"], {"a": 0}, 10) == 0.0


def test_rank_based_metrics() -> None:
    ranked = ["x", "c", "d", "a"]
    assert first_relevant_rank(ranked, QRELS) == 3  # "c" is judged but not relevant
    assert mrr(ranked, QRELS) == pytest.approx(1 / 3)
    assert mrr(ranked, QRELS, k=2) == 0.0
    assert recall_at_k(ranked, QRELS, 3) == pytest.approx(1 / 3)
    assert recall_at_k(ranked, QRELS, 4) == pytest.approx(2 / 3)
    assert precision_at_k(ranked, QRELS, 1) == 0.0
    assert precision_at_k(["a", "x"], QRELS, 2) == 0.5
    assert first_relevant_rank(["x"], QRELS) is None


def test_evaluate_run_averages_over_judged_queries() -> None:
    run = {"q1": ["a", "x"], "q2": ["x", "y", "z", "b"], "q4": ["a"]}
    qrels = {"q1": {"a": 1}, "q2": {"b": 2}, "q3": {"c": 1}, "q4": {"a": 0}}
    m = evaluate_run(run, qrels, ndcg_ks=(10,), recall_ks=(1, 10), not_found_ks=(1, 5))

    assert m.queries == 3  # q4 has no relevant document; q3 is missing from the run
    assert m.mrr == pytest.approx((1 + 1 / 4 + 0) / 3)
    assert m.p_at_1 == pytest.approx(1 / 3)
    assert m.recall == {1: pytest.approx(1 / 3), 10: pytest.approx(2 / 3)}
    assert m.mean_rank == pytest.approx((1 + 4) / 2)
    assert m.not_found == {1: 2, 5: 1}
    assert m.ndcg[10] == pytest.approx((1 + 1 / math.log2(5)) / 3)
    out = m.as_dict()
    assert out["ndcg@10"] == round(m.ndcg[10], 4)
    assert out["not_found@5"] == 1
    assert "per_query" in m.as_dict(per_query=True)


def test_empty_qrels_give_zero_queries() -> None:
    m = evaluate_run({"q": ["a"]}, {})
    assert m.queries == 0
    assert m.mean_rank is None
