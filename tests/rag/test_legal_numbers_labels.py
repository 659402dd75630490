"""The numbers and names a legal citation is made of: incisos numbered in Roman numerals (read
only when well formed), and a norm's short label ("Lei 8.078/1990") from its full title."""

from __future__ import annotations

import pytest

from colmeia.rag.ingest.chunk_legal import legal_label, looks_like_norm, roman_to_int

ROMAN = {
    "I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "IX": 9, "X": 10, "XIV": 14,
    "XIX": 19, "XL": 40, "XLIX": 49, "L": 50, "XC": 90, "XCIX": 99, "C": 100, "CD": 400,
    "D": 500, "CM": 900, "M": 1000, "LXXXVIII": 88, "MCMXCIV": 1994, "MMXXIV": 2024,
}  # fmt: skip


@pytest.mark.parametrize(("numeral", "value"), sorted(ROMAN.items()))
def test_a_well_formed_roman_numeral_is_read_in_either_case(numeral: str, value: int) -> None:
    assert roman_to_int(numeral) == value
    assert roman_to_int(numeral.lower()) == value


@pytest.mark.parametrize("numeral", ["IIII", "VX", "IC", "XM", "VV", "LL", "DD", "", "IIV", "A"])
def test_a_malformed_numeral_is_no_number(numeral: str) -> None:
    assert roman_to_int(numeral) is None


@pytest.mark.parametrize(
    ("title", "label"),
    [
        ("Lei nº 8.078, de 11 de setembro de 1990", "Lei 8.078/1990"),
        ("Lei nº 14133, de 1º de abril de 2021", "Lei 14.133/2021"),
        ("Decreto-Lei nº 5.452, de 1º de maio de 1943", "Decreto-Lei 5.452/1943"),
        ("Lei Complementar nº 101, de 4 de maio de 2000", "Lei Complementar 101/2000"),
        ("Constituição da República Federativa do Brasil de 1988", "Constituição Federal"),
        ("Resolução nº 23", "Resolução 23"),
        ("  Um manual qualquer  ", "Um manual qualquer"),
    ],
)
def test_a_norms_title_gives_its_citation_label(title: str, label: str) -> None:
    assert legal_label(title) == label


def test_a_law_looks_like_a_norm_and_an_essay_with_an_article_does_not() -> None:
    law = "\n".join(
        [
            "LEI Nº 1",
            "Art. 1º Primeiro.",
            "I - um;",
            "II - dois;",
            "§ 1º Parágrafo.",
            "Art. 2º Vigor.",
        ]
    )
    assert looks_like_norm(law)
    essay = "\n".join(
        ["Introdução"]
        + [f"Parágrafo corrido número {i} de um ensaio sobre direito." for i in range(30)]
        + ["Art. 5º da Constituição é citado aqui.", "Art. 6º também."]
    )
    assert not looks_like_norm(essay)
    assert not looks_like_norm("Art. 1º Único artigo citado.")
