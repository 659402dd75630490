"""McNemar's test on paired verdicts: only the pairs the two runs disagree on count."""

from __future__ import annotations

import math

import pytest

from colmeia.eval.stats import mcnemar


def test_few_discordant_pairs_use_the_exact_binomial_test() -> None:
    # 10 right only in A, 2 only in B: P(X <= 2 | n=12, p=1/2) = 79/4096, two-sided x2.
    result = mcnemar(10, 2)
    assert result.method == "exact binomial"
    assert result.p_value == pytest.approx(2 * 79 / 4096, abs=1e-6)
    assert mcnemar(2, 10).p_value == result.p_value  # symmetric
    assert mcnemar(5, 5).p_value == 1.0


def test_many_discordant_pairs_use_the_corrected_chi_square() -> None:
    result = mcnemar(30, 10)
    assert result.method == "chi-square, continuity-corrected"
    assert result.statistic == pytest.approx((20 - 1) ** 2 / 40)
    # chi-square with one degree of freedom: P(X > 9.025) = erfc(sqrt(9.025 / 2)) = 0.00266
    assert result.p_value == pytest.approx(math.erfc(math.sqrt(9.025 / 2)), abs=1e-6)
    assert result.p_value == pytest.approx(0.002663, abs=1e-6)


def test_no_discordant_pair_is_no_test() -> None:
    result = mcnemar(0, 0)
    assert (result.statistic, result.p_value) == (None, None)
    with pytest.raises(ValueError, match="non-negative"):
        mcnemar(-1, 3)
