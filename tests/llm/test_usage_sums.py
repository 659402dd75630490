"""What a run reports it cost (colmeia.usage.Usage): the usage of several calls, agents or jobs
adds up field by field — tokens, calls, HTTP requests, retries, repairs, errors, seconds,
money and simulated answers — ``a + b`` leaves both as they were, and ``as_dict`` (what the
service's job records and ``--json`` print) names every field, seconds and money rounded."""

from __future__ import annotations

import pytest

from colmeia.usage import Usage

FIRST = Usage(
    prompt_tokens=100,
    completion_tokens=20,
    calls=1,
    requests=2,
    retries=1,
    repairs=2,
    errors=1,
    latency_s=0.5,
    cost=0.001,
    simulated=1,
)
SECOND = Usage(
    prompt_tokens=300,
    completion_tokens=50,
    calls=2,
    requests=3,
    retries=4,
    repairs=1,
    errors=1,
    latency_s=1.25,
    cost=0.002,
    simulated=2,
)
SUM = {
    "prompt_tokens": 400,
    "completion_tokens": 70,
    "calls": 3,
    "requests": 5,
    "retries": 5,
    "repairs": 3,
    "errors": 2,
    "latency_s": 1.75,
    "cost": 0.003,
    "simulated": 3,
}


def test_adding_sums_every_field_in_place() -> None:
    total = Usage()
    total.add(FIRST)
    total.add(SECOND)
    assert total.as_dict() == pytest.approx(SUM)
    assert total.total_tokens == 470


def test_plus_gives_the_sum_and_leaves_both_as_they_were() -> None:
    before = (FIRST.as_dict(), SECOND.as_dict())
    total = FIRST + SECOND
    assert total.as_dict() == pytest.approx(SUM)
    assert (FIRST.as_dict(), SECOND.as_dict()) == before
    assert total is not FIRST and total is not SECOND


def test_as_dict_names_every_field_and_rounds_seconds_and_money() -> None:
    usage = Usage(latency_s=1.23456789, cost=0.0000123456789)
    assert usage.as_dict() == {
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "calls": 0,
        "requests": 0,
        "retries": 0,
        "repairs": 0,
        "errors": 0,
        "latency_s": 1.234568,
        "cost": 0.00001235,
        "simulated": 0,
    }
