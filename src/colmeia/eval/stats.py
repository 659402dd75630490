"""Summary statistics of a numeric series (latencies, tokens, costs). Pure functions."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["McNemar", "describe", "mcnemar", "mean_sd", "mean_sd_text", "percentile"]


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0–100) by linear interpolation; ``None`` for no values."""
    if not values:
        return None
    return _interpolated(sorted(values), q)


def _interpolated(ordered: Sequence[float], q: float) -> float:
    """The ``q``-th percentile of ``ordered`` (sorted, not empty)."""
    if not 0 <= q <= 100:
        raise ValueError(f"q must be between 0 and 100, got {q}")
    pos = (len(ordered) - 1) * q / 100
    low, high = math.floor(pos), math.ceil(pos)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def describe(values: Sequence[float], digits: int = 4) -> dict[str, float | int | None]:
    """``n``, ``mean``, ``median``, ``p95`` and ``total``; the averages are ``None`` without
    values (undefined, not zero)."""
    if not values:
        return {"n": 0, "mean": None, "median": None, "p95": None, "total": 0.0}
    return {
        "n": len(values),
        "mean": round(statistics.fmean(values), digits),
        "median": round(statistics.median(values), digits),
        "p95": round(_interpolated(sorted(values), 95), digits),
        "total": round(math.fsum(values), 8),
    }


def mean_sd(values: Sequence[float], digits: int = 4) -> dict[str, float | int | None]:
    """``mean``, ``sd`` and ``n`` of ``values``: the sd is the sample standard deviation
    (divided by n - 1), ``None`` below two values (undefined, not zero); the mean is ``None``
    without values."""
    if not values:
        return {"mean": None, "sd": None, "n": 0}
    sd = round(statistics.stdev(values), digits) if len(values) > 1 else None
    return {"mean": round(statistics.fmean(values), digits), "sd": sd, "n": len(values)}


def mean_sd_text(mean: float | None, sd: float | None) -> str:
    """``"0.0061 ± 0.0012"`` as tables show a figure and its spread; ``"n/a"`` without a
    mean, the mean alone without an sd."""
    if mean is None:
        return "n/a"
    return f"{mean} ± {sd}" if sd is not None else f"{mean}"


@dataclass(frozen=True, slots=True)
class McNemar:
    """McNemar's test on paired outcomes: ``b`` items right only in the first run, ``c`` only in
    the second. ``p_value`` is two-sided; ``method`` says how it was computed."""

    b: int
    c: int
    statistic: float | None
    p_value: float | None
    method: str

    def as_dict(self) -> dict[str, float | int | str | None]:
        return {
            "b": self.b,
            "c": self.c,
            "statistic": self.statistic,
            "p_value": self.p_value,
            "method": self.method,
        }


def mcnemar(b: int, c: int) -> McNemar:
    """McNemar's test for two classifiers on the same items.

    Only the discordant pairs count. With fewer than 25 of them the exact binomial test is used
    (B(b + c, 1/2), two-sided), else the chi-square statistic with continuity correction,
    (|b − c| − 1)² / (b + c), on one degree of freedom. No discordant pair: no test (``None``).
    """
    if b < 0 or c < 0:
        raise ValueError("counts must be non-negative")
    n = b + c
    if n == 0:
        return McNemar(b, c, None, None, "no discordant pairs")
    if n < 25:
        k = min(b, c)
        tail = math.fsum(math.comb(n, i) for i in range(k + 1)) / 2**n
        return McNemar(b, c, float(k), round(min(1.0, 2 * tail), 6), "exact binomial")
    stat = (abs(b - c) - 1) ** 2 / n
    # Survival function of chi-square with 1 degree of freedom: erfc(sqrt(x / 2)).
    p = math.erfc(math.sqrt(stat / 2))
    return McNemar(b, c, round(stat, 6), round(p, 6), "chi-square, continuity-corrected")
