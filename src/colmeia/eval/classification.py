"""Classification metrics: accuracy, precision, recall, F1, confusion matrices. Pure functions.

Labels are any hashable values; predictions and gold labels are paired by position.
Undefined ratios (no predicted or no actual positives) are 0.0 in the plain properties, the
usual convention, with the counts beside them; :meth:`BinaryMetrics.rates` and
:func:`accuracy_or_none` give ``None`` instead, for reports that must show "n/a" rather than a
0 nobody measured. :func:`fold_groups` keeps the largest groups of a breakdown and folds the
rest into "other"; :func:`change_shares` counts improved / unchanged / worse changes.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

__all__ = [
    "BinaryMetrics",
    "ChangeShares",
    "GroupAccuracy",
    "accuracy",
    "accuracy_or_none",
    "binary_metrics",
    "change_shares",
    "confusion_matrix",
    "fold_groups",
    "grouped_accuracy",
    "ratio_or_none",
]

L = TypeVar("L", bound=Hashable)
G = TypeVar("G", bound=Hashable)


def _check(y_true: Sequence[object], y_pred: Sequence[object]) -> None:
    if len(y_true) != len(y_pred):
        raise ValueError(f"y_true has {len(y_true)} labels but y_pred has {len(y_pred)}")


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def ratio_or_none(num: float, den: float) -> float | None:
    """``num / den``, or ``None`` when ``den`` is 0 (undefined, not zero)."""
    return num / den if den else None


def accuracy(y_true: Sequence[L], y_pred: Sequence[L]) -> float:
    """Share of positions where prediction equals gold (0.0 for no items)."""
    _check(y_true, y_pred)
    return _ratio(sum(1 for t, p in zip(y_true, y_pred, strict=True) if t == p), len(y_true))


def accuracy_or_none(y_true: Sequence[L], y_pred: Sequence[L]) -> float | None:
    """Like :func:`accuracy`, but ``None`` when there is nothing to measure."""
    return accuracy(y_true, y_pred) if y_true else None


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

    def rates(self) -> dict[str, float | None]:
        """Accuracy, precision, recall and F1, each ``None`` when undefined (0 / 0)."""
        return {
            "accuracy": ratio_or_none(self.tp + self.tn, self.n),
            "precision": ratio_or_none(self.tp, self.tp + self.fp),
            "recall": ratio_or_none(self.tp, self.tp + self.fn),
            "f1": ratio_or_none(2 * self.tp, 2 * self.tp + self.fp + self.fn),
        }

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


def fold_groups(
    rows: Sequence[GroupAccuracy], *, top: int, min_n: int = 1, other: str = "other"
) -> list[GroupAccuracy]:
    """The ``top`` largest groups with at least ``min_n`` items; the rest as one ``other`` row.

    ``rows`` come largest first (as :func:`grouped_accuracy` returns them); ``other`` goes
    last, with the items and correct answers of every group folded into it.
    """
    if top < 1:
        raise ValueError("top must be at least 1")
    kept = [r for r in rows if r.n >= min_n][:top]
    kept_ids = {id(r) for r in kept}
    rest = [r for r in rows if id(r) not in kept_ids]
    if rest:
        kept.append(GroupAccuracy(other, sum(r.n for r in rest), sum(r.correct for r in rest)))
    return kept


@dataclass(frozen=True, slots=True)
class ChangeShares:
    """How many changes were improvements, no change, or worse (with shares of ``n``)."""

    n: int
    improved: int
    unchanged: int
    worse: int

    def shares(self) -> dict[str, float | None]:
        return {
            "improved": ratio_or_none(self.improved, self.n),
            "unchanged": ratio_or_none(self.unchanged, self.n),
            "worse": ratio_or_none(self.worse, self.n),
        }


def change_shares(changes: Sequence[float]) -> ChangeShares:
    """Count positive, zero and negative ``changes`` (e.g. final − original score)."""
    return ChangeShares(
        n=len(changes),
        improved=sum(1 for c in changes if c > 0),
        unchanged=sum(1 for c in changes if c == 0),
        worse=sum(1 for c in changes if c < 0),
    )
