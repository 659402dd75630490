"""Classification metrics, checked against hand-counted examples."""

from __future__ import annotations

import pytest

from colmeia.eval.classification import (
    accuracy,
    binary_metrics,
    confusion_matrix,
    grouped_accuracy,
)

GOLD = ["flag", "flag", "flag", "keep", "keep", "keep", "keep", "flag"]
PRED = ["flag", "keep", "flag", "flag", "keep", "keep", "keep", "flag"]


def test_accuracy_counts_matches() -> None:
    assert accuracy(GOLD, PRED) == pytest.approx(6 / 8)
    assert accuracy([], []) == 0.0


def test_confusion_matrix_rows_are_gold_columns_are_predicted() -> None:
    assert confusion_matrix(GOLD, PRED, ["keep", "flag"]) == [[3, 1], [1, 3]]
    assert confusion_matrix(["a", "b"], ["a", "z"], ["a", "b"]) == [[1, 0], [0, 0]]


def test_binary_metrics_by_hand() -> None:
    m = binary_metrics(GOLD, PRED, positive="flag")
    assert (m.tp, m.fp, m.fn, m.tn) == (3, 1, 1, 3)
    assert m.precision == pytest.approx(0.75)
    assert m.recall == pytest.approx(0.75)
    assert m.f1 == pytest.approx(0.75)
    skewed = binary_metrics([1, 1, 0, 0], [1, 0, 0, 0], positive=1)
    assert skewed.precision == 1.0
    assert skewed.recall == 0.5
    assert skewed.f1 == pytest.approx(2 / 3)


def test_undefined_ratios_are_zero() -> None:
    m = binary_metrics(["keep", "keep"], ["keep", "keep"], positive="flag")
    assert (m.precision, m.recall, m.f1) == (0.0, 0.0, 0.0)
    assert m.accuracy == 1.0


def test_grouped_accuracy_largest_group_first() -> None:
    groups = ["pt", "pt", "pt", "es", "es", "pt", "es", "pt"]
    rows = grouped_accuracy(groups, GOLD, PRED)
    assert [(r.group, r.n, r.correct) for r in rows] == [("pt", 5, 4), ("es", 3, 2)]
    assert rows[1].accuracy == pytest.approx(2 / 3)


def test_length_mismatch_is_refused() -> None:
    with pytest.raises(ValueError, match="y_true has 2 labels but y_pred has 1"):
        accuracy([1, 2], [1])
