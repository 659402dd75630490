"""How long a model call waits before trying again: the server's Retry-After in each form it
comes in, and the backoff when the server says nothing."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from colmeia.llm.retry import backoff_delay, retry_after_seconds


def _http_date(seconds_from_now: float) -> str:
    return format_datetime(datetime.now(UTC) + timedelta(seconds=seconds_from_now), usegmt=True)


def test_retry_after_as_an_http_date_is_the_time_left_until_it() -> None:
    wait = retry_after_seconds({"retry-after": _http_date(30)})
    assert wait is not None and 25 <= wait <= 30.5


def test_a_date_already_past_means_no_wait_and_a_far_one_is_capped_at_a_minute() -> None:
    assert retry_after_seconds({"retry-after": _http_date(-120)}) == 0.0
    assert retry_after_seconds({"retry-after": _http_date(3600)}) == 60.0


@pytest.mark.parametrize(
    ("headers", "wait"),
    [
        ({"retry-after": "0.5"}, 0.5),
        ({"retry-after": "0"}, 0.0),
        ({"retry-after": "-3"}, 0.0),
        ({"retry-after": "600"}, 60.0),
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after-ms": "oops", "retry-after": "2"}, 2.0),
        ({"retry-after": "soon"}, None),
        ({}, None),
        (None, None),
    ],
)
def test_retry_after_in_seconds_or_milliseconds(
    headers: dict[str, str] | None, wait: float | None
) -> None:
    assert retry_after_seconds(headers) == wait


def test_backoff_doubles_from_a_quarter_second_up_to_eight_with_equal_jitter() -> None:
    random.seed(7)
    for attempt, full in [(0, 0.25), (1, 0.5), (3, 2.0), (5, 8.0), (12, 8.0)]:
        waits = [backoff_delay(attempt) for _ in range(400)]
        assert min(waits) >= full / 2  # half is fixed
        assert max(waits) <= full
        assert max(waits) > 0.95 * full  # the random half reaches up to the full delay
        assert min(waits) < full / 2 * 1.05
