"""How long the client waits before trying again."""

from __future__ import annotations

from colmeia.llm.retry import backoff_delay, retry_after_seconds


def test_backoff_grows_exponentially_with_jitter_and_a_cap() -> None:
    for attempt in range(6):
        delay = backoff_delay(attempt, base=0.5, cap=4.0)
        full = min(4.0, 0.5 * 2**attempt)
        assert full / 2 <= delay <= full


def test_retry_after_prefers_milliseconds_and_is_capped() -> None:
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after_seconds({"retry-after": "2"}) == 2.0
    assert retry_after_seconds({"retry-after": "100000"}) == 60.0
    assert retry_after_seconds({"retry-after": "not a date"}) is None
    assert retry_after_seconds({}) is None
