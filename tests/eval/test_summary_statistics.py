"""Summary statistics of a run's figures (latencies, tokens, costs) and McNemar's test, value by
value: the percentile between two values, the rounding of each summary, where the exact test
gives way to the chi-square, and the result as the report writes it."""

from __future__ import annotations

import math

import pytest

from colmeia.eval.stats import describe, mcnemar, mean_sd, mean_sd_text, percentile


def test_a_percentile_interpolates_between_the_two_values_around_it_in_sorted_order() -> None:
    values = [40.0, 10.0, 30.0, 20.0]  # as measured, not sorted
    assert percentile(values, 0) == 10.0
    assert percentile(values, 100) == 40.0
    assert percentile(values, 50) == 25.0  # halfway between 20 and 30
    assert percentile(values, 25) == pytest.approx(17.5)  # position 0.75: between 10 and 20
    assert percentile([7.0], 95) == 7.0
    assert percentile([], 50) is None


@pytest.mark.parametrize("q", [-0.5, 100.5])
def test_a_percentile_outside_0_to_100_is_refused_with_the_value_given(q: float) -> None:
    with pytest.raises(ValueError, match=f"^q must be between 0 and 100, got {q}$"):
        percentile([1.0, 2.0], q)


def test_describe_rounds_the_averages_to_four_places_and_the_total_to_eight() -> None:
    values = [0.123456789, 0.2, 0.3]
    assert describe(values) == {
        "n": 3,
        "mean": round((0.123456789 + 0.2 + 0.3) / 3, 4),
        "median": 0.2,
        "p95": round(0.2 + 0.1 * 0.9, 4),  # position 1.9: nine tenths of the way to 0.3
        "total": 0.62345679,
    }
    assert describe([1.23456], digits=2) == {
        "n": 1,
        "mean": 1.23,
        "median": 1.23,
        "p95": 1.23,
        "total": 1.23456,
    }


def test_the_exact_test_is_used_up_to_24_discordant_pairs_and_chi_square_from_25_on() -> None:
    exact = mcnemar(20, 4)
    # two-sided: 2 * P(X <= 4 | n = 24, p = 1/2)
    tail = sum(math.comb(24, i) for i in range(5)) / 2**24
    assert (exact.method, exact.statistic, exact.p_value) == (
        "exact binomial",
        4.0,
        round(2 * tail, 6),
    )
    chi = mcnemar(17, 9)
    statistic = (8 - 1) ** 2 / 26  # 1.884615 to six places
    assert (chi.b, chi.c, chi.method, chi.statistic, chi.p_value) == (
        17,
        9,
        "chi-square, continuity-corrected",
        round(statistic, 6),
        round(math.erfc(math.sqrt(statistic / 2)), 6),
    )


def test_an_even_split_has_a_p_value_of_one_not_more() -> None:
    # the two tails overlap at the middle: twice the tail is over 1, capped
    assert mcnemar(3, 3).p_value == 1.0
    assert mcnemar(0, 1).p_value == 1.0


def test_a_negative_count_in_either_place_is_refused() -> None:
    for b, c in [(-1, 0), (0, -1)]:
        with pytest.raises(ValueError, match=r"^counts must be non-negative$"):
            mcnemar(b, c)


def test_the_result_as_a_dict_names_every_field() -> None:
    assert mcnemar(10, 2).as_dict() == {
        "b": 10,
        "c": 2,
        "statistic": 2.0,
        "p_value": round(2 * 79 / 4096, 6),
        "method": "exact binomial",
    }
    assert mcnemar(0, 0).as_dict() == {
        "b": 0,
        "c": 0,
        "statistic": None,
        "p_value": None,
        "method": "no discordant pairs",
    }


def test_mean_sd_is_the_mean_and_the_sample_standard_deviation_with_the_count() -> None:
    # 0.1, 0.3, 0.2: mean 0.2, squared deviations 0.01 + 0.01 + 0, divided by n - 1 = 2.
    assert mean_sd([0.1, 0.3, 0.2]) == {"mean": 0.2, "sd": 0.1, "n": 3}
    assert mean_sd([1.0, 1.0, 4.0]) == {"mean": 2.0, "sd": round(math.sqrt(3), 4), "n": 3}
    assert mean_sd([2.0, 4.0], digits=1) == {"mean": 3.0, "sd": 1.4, "n": 2}
    # One value has no spread to measure, none has no mean: undefined, not zero.
    assert mean_sd([0.25]) == {"mean": 0.25, "sd": None, "n": 1}
    assert mean_sd([]) == {"mean": None, "sd": None, "n": 0}


def test_mean_sd_text_is_how_tables_show_a_figure_and_its_spread() -> None:
    assert mean_sd_text(0.0061, 0.0012) == "0.0061 ± 0.0012"
    assert mean_sd_text(0.25, None) == "0.25"
    assert mean_sd_text(None, None) == "n/a"
