"""Top-k selection is exact: the fast block-maxima path gives what a full sort gives."""

from __future__ import annotations

import numpy as np
import pytest

from colmeia.rag.index.lexical import top_k


def _full_sort(scores: np.ndarray, k: int) -> np.ndarray:
    cand = np.flatnonzero(scores > 0)
    return cand[np.lexsort((cand, -scores[cand]))[:k]]


def test_top_k_matches_a_full_sort_with_ties_and_sparse_scores() -> None:
    rng = np.random.default_rng(7)
    for trial in range(200):
        n = int(rng.integers(1, 200_000))
        scores = np.zeros(n, np.float32)
        hits = rng.choice(n, int(rng.integers(0, n + 1)), replace=False)
        # even trials: continuous scores; odd ones: few distinct values, so many ties
        values = rng.integers(0, 4, len(hits)) if trial % 2 else rng.random(len(hits))
        scores[hits] = values.astype(np.float32)
        k = int(rng.integers(1, 50))
        best, best_scores = top_k(scores, k)
        expected = _full_sort(scores, k)
        assert best.tolist() == expected.tolist()
        assert np.array_equal(best_scores, scores[expected])


def test_no_positive_score_means_no_result() -> None:
    best, _ = top_k(np.zeros(50_000, np.float32), 10)
    assert len(best) == 0


def test_a_few_matches_among_many_passages_are_all_found_whatever_their_score() -> None:
    # fewer passages match than asked for, far apart, one of them weakly
    scores = np.zeros(20_000, np.float32)
    scores[[3, 12_345]] = [0.4, 2.5]
    best, values = top_k(scores, 3)
    assert best.tolist() == [12_345, 3]
    assert values.tolist() == pytest.approx([2.5, 0.4])


def test_all_but_one_passage_asked_for_gives_them_best_first() -> None:
    scores = np.asarray([0.2, 0.9, 0.5, 0.7, 0.1], np.float32)
    assert top_k(scores, 4)[0].tolist() == [1, 3, 2, 0]


def test_passages_tied_under_one_point_come_in_their_order() -> None:
    scores = np.asarray([0.5] * 40 + [0.9], np.float32)
    assert top_k(scores, 3)[0].tolist() == [40, 0, 1]
    scores = np.asarray([0.0, 0.5, 0.9, 0.5, 0.5, 0.5, 0.5], np.float32)
    assert top_k(scores, 3)[0].tolist() == [2, 1, 3]
