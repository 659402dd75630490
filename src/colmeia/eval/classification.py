"""Classification metrics: accuracy, precision, recall, F1, confusion matrices. Pure functions.

Labels are any hashable values; predictions and gold labels are paired by position.
Undefined ratios (no predicted or no actual positives) are reported as 0.0, the usual
convention, and the counts are returned beside them so a reader can tell.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

__all__ = [
    "BinaryMetrics",
    "GroupAccuracy",
    "accuracy",
    "binary_metrics",
    "confusion_matrix",
    "grouped_accuracy",
]

L = TypeVar("L", bound=Hashable)
G = TypeVar("G", bound=Hashable)


def _check(y_true: Sequence[object], y_pred: Sequence[object]) -> None:
    if len(y_true) != len(y_pred):
        raise ValueError(f"y_true has {len(y_true)} labels but y_pred has {len(y_pred)}")


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def accuracy(y_true: Sequence[L], y_pred: Sequence[L]) -> float:
    """Share of positions where prediction equals gold (0.0 for no items)."""
    _check(y_true, y_pred)
    return _ratio(sum(1 for t, p in zip(y_true, y_pred, strict=True) if t == p), len(y_true))


def confusion_matrix(
    y_true: Sequence[L], y_pred: Sequence[L], labels: Sequence[L]
) -> list[list[int]]:
    """``m[i][j]`` = items whose gold is ``labels[i]`` and prediction ``labels[j]``.

    Pairs with a label outside ``labels`` are not counted.
    """
    _check(y_true, y_pred)
    index = {label: i for i, label in enumerate(labels)}
    m = [[0] * len(labels) for _ in labels]
    for t, p in zip(y_true, y_pred, strict=True):
        if t in index and p in index:
            m[index[t]][index[p]] += 1
    return m


@dataclass(frozen=True, slots=True)
class BinaryMetrics:
    """Metrics of one class treated as positive."""

    positive: Hashable
    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def support(self) -> int:
        return self.tp + self.fn

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def accuracy(self) -> float:
        return _ratio(self.tp + self.tn, self.n)

    @property
    def precision(self) -> float:
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float:
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float:
        return _ratio(2 * self.tp, 2 * self.tp + self.fp + self.fn)

    def as_dict(self) -> dict[str, float | int | str]:
        return {
            "positive": str(self.positive),
            "n": self.n,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "tn": self.tn,
            "accuracy": round(self.accuracy, 6),
            "precision": round(self.precision, 6),
            "recall": round(self.recall, 6),
            "f1": round(self.f1, 6),
        }


def binary_metrics(y_true: Sequence[L], y_pred: Sequence[L], positive: L) -> BinaryMetrics:
    """Counts and precision/recall/F1 with ``positive`` as the positive class."""
    _check(y_true, y_pred)
    c: Counter[tuple[bool, bool]] = Counter(
        (t == positive, p == positive) for t, p in zip(y_true, y_pred, strict=True)
    )
    return BinaryMetrics(
        positive=positive,
        tp=c[(True, True)],
        fp=c[(False, True)],
        fn=c[(True, False)],
        tn=c[(False, False)],
    )


@dataclass(frozen=True, slots=True)
class GroupAccuracy:
    """Accuracy within one group (locale, intent, category…)."""

    group: Hashable
    n: int
    correct: int

    @property
    def accuracy(self) -> float:
        return _ratio(self.correct, self.n)


def grouped_accuracy(
    groups: Sequence[G], y_true: Sequence[L], y_pred: Sequence[L]
) -> list[GroupAccuracy]:
    """Accuracy per group, largest group first (ties by name)."""
    _check(y_true, y_pred)
    _check(groups, y_true)
    n: defaultdict[G, int] = defaultdict(int)
    ok: defaultdict[G, int] = defaultdict(int)
    for g, t, p in zip(groups, y_true, y_pred, strict=True):
        n[g] += 1
        ok[g] += t == p
    return sorted(
        (GroupAccuracy(g, n[g], ok[g]) for g in n),
        key=lambda r: (-r.n, str(r.group)),
    )
