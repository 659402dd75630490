"""A law or amount number matches however its thousands are written: "8.666" in the text is
found by a query "8666" and the other way round (people type law numbers both ways)."""

from __future__ import annotations

import pytest

from colmeia.rag.index.lexical import Analyzer, LexicalIndex

PASSAGES = [
    "Licitações seguem a Lei nº 8.666/1993 até a sua revogação.",
    "A nova lei de licitações é a Lei 14133, de 2021.",
    "O contrato tem valor de R$ 1.234.567,00.",
]


@pytest.mark.parametrize(
    ("query", "passage"),
    [
        ("lei 8666", 0),
        ("lei 8.666", 0),
        ("lei 14.133", 1),
        ("lei 14133", 1),
        ("1234567", 2),
    ],
)
def test_a_number_is_found_with_or_without_its_thousands_dots(query: str, passage: int) -> None:
    positions, _ = LexicalIndex.build(PASSAGES).search(query, 1)
    assert list(positions) == [passage]


def test_a_number_is_one_term_without_its_dots() -> None:
    assert Analyzer().tokens("Lei nº 8.666/1993") == ["lei", "8666", "1993"]
