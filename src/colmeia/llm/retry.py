"""When and how long to wait before trying a model call again."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping

__all__ = ["RETRYABLE_STATUS", "backoff_delay", "retry_after_seconds"]

#: Statuses worth retrying: timeouts, conflicts, "too early" and every server error.
RETRYABLE_STATUS = frozenset({408, 409, 425, 500, 502, 503, 504, 520, 522, 524, 529})

_MAX_RETRY_AFTER = 60.0


def backoff_delay(attempt: int, *, base: float = 0.25, cap: float = 8.0) -> float:
    """Exponential backoff with equal jitter: half fixed, half random, so peers spread out."""
    delay = min(cap, math.ldexp(base, attempt))
    jitter: float = random.uniform(0, delay / 2)
    return delay / 2 + jitter


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms`` or ``retry-after``), if any."""
    if not headers:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return min(_MAX_RETRY_AFTER, max(0.0, float(raw_ms) / 1000))
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if raw:
        try:
            return min(_MAX_RETRY_AFTER, max(0.0, float(raw)))
        except ValueError:
            from datetime import UTC, datetime
            from email.utils import parsedate_to_datetime

            try:
                when = parsedate_to_datetime(raw)
            except (TypeError, ValueError):
                return None
            return min(_MAX_RETRY_AFTER, max(0.0, (when - datetime.now(UTC)).total_seconds()))
    return None
