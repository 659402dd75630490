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


def test_undefined_rates_are_none_not_zero() -> None:
    from colmeia.eval.classification import accuracy_or_none, binary_metrics

    nothing = binary_metrics([], [], positive="flag")
    assert nothing.rates() == {"accuracy": None, "precision": None, "recall": None, "f1": None}
    assert accuracy_or_none([], []) is None
    never_flagged = binary_metrics(["keep", "flag"], ["keep", "keep"], positive="flag")
    rates = never_flagged.rates()
    assert rates["precision"] is None  # nothing predicted positive: undefined
    assert rates["recall"] == 0.0  # one actual positive, missed: a real zero
    assert rates["accuracy"] == 0.5


def test_fold_groups_keeps_the_largest_and_folds_the_rest_into_other() -> None:
    from colmeia.eval.classification import GroupAccuracy, fold_groups

    rows = [GroupAccuracy("a", 50, 40), GroupAccuracy("b", 20, 10), GroupAccuracy("c", 3, 3)]
    rows.append(GroupAccuracy("d", 1, 0))
    folded = fold_groups(rows, top=3, min_n=5, other="outros")
    assert [(r.group, r.n, r.correct) for r in folded] == [
        ("a", 50, 40),
        ("b", 20, 10),
        ("outros", 4, 3),
    ]
    assert fold_groups(rows[:2], top=5) == rows[:2]  # nothing to fold: no "other" row


def test_change_shares_and_describe() -> None:
    from colmeia.eval.classification import change_shares
    from colmeia.eval.stats import describe, percentile

    shares = change_shares([3, 0, -1, 2, 0])
    assert (shares.improved, shares.unchanged, shares.worse) == (2, 2, 1)
    assert shares.shares()["improved"] == 0.4
    assert change_shares([]).shares()["worse"] is None
    assert describe([]) == {"n": 0, "mean": None, "median": None, "p95": None, "total": 0.0}
    stats = describe([1.0, 2.0, 3.0, 4.0])
    assert (stats["mean"], stats["median"], stats["total"]) == (2.5, 2.5, 10.0)
    assert percentile([1.0, 2.0, 3.0, 4.0], 95) == pytest.approx(3.85)
