"""Summary statistics of a numeric series (latencies, tokens, costs). Pure functions."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

__all__ = ["describe", "percentile"]


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0–100) by linear interpolation; ``None`` for no values."""
    if not values:
        return None
    if not 0 <= q <= 100:
        raise ValueError(f"q must be between 0 and 100, got {q}")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low, high = math.floor(pos), math.ceil(pos)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def describe(values: Sequence[float], digits: int = 4) -> dict[str, float | int | None]:
    """``n``, ``mean``, ``median``, ``p95`` and ``total``; the averages are ``None`` without
    values (undefined, not zero)."""
    if not values:
        return {"n": 0, "mean": None, "median": None, "p95": None, "total": 0.0}
    p95 = percentile(values, 95)
    return {
        "n": len(values),
        "mean": round(statistics.fmean(values), digits),
        "median": round(statistics.median(values), digits),
        "p95": None if p95 is None else round(p95, digits),
        "total": round(math.fsum(values), 8),
    }
