"""The calculator reads its Portuguese and Spanish words however a user capitalises them: at the
start of a sentence ("Por cento"), shouting ("DE"), or in title case ("Sobre")."""

from __future__ import annotations

import pytest

from colmeia.tools.builtins.calculator import calculate


@pytest.mark.parametrize(
    "expression",
    [
        "17% de 2.340",
        "17% DE 2.340",
        "17% De 2.340",
        "17 por cento de 2.340",
        "17 POR CENTO DE 2.340",
    ],
)
def test_a_percent_of_a_thousands_number_in_portuguese(expression: str) -> None:
    assert calculate(expression) == pytest.approx(397.8)


@pytest.mark.parametrize("expression", ["15 por ciento del 1.200", "15 Por Ciento Del 1.200"])
def test_a_percent_of_a_thousands_number_in_spanish(expression: str) -> None:
    assert calculate(expression) == pytest.approx(180.0)


@pytest.mark.parametrize("word", ["sobre", "Sobre", "SOBRE", "dos", "DOS", "da", "Da"])
def test_any_case_of_a_portuguese_word_makes_a_lone_dot_group_thousands(word: str) -> None:
    # "10% sobre 1.500" is 150 (one thousand five hundred), never 0.15
    assert calculate(f"10% {word} 1.500") == pytest.approx(150.0)


def test_without_a_portuguese_word_a_lone_dot_group_is_a_decimal() -> None:
    assert calculate("2 * 1.500") == pytest.approx(3.0)
