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


@pytest.mark.parametrize(("scores", "k"), [([0.5, 2.0, 1.0], 0), ([0.5, 2.0], -1), ([], 3)])
def test_asking_for_no_passages_or_searching_none_gives_none(scores: list[float], k: int) -> None:
    import numpy as np

    from colmeia.rag.index.lexical import top_k

    positions, values = top_k(np.array(scores, dtype=np.float32), k)
    assert positions.tolist() == [] and values.tolist() == []
    passages = np.array(["a", "b", "c"])
    assert passages[positions].tolist() == []  # positions index passages even when empty
