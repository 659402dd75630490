"""Where a researcher's opening is taken off the question (colmeia.apps.literature.questions):
three words left are a question of their own, two are not (the opening then stays, lest the
rerank read a bare noun)."""

from __future__ import annotations

from colmeia.apps.literature.questions import question_core


def test_an_opening_goes_when_three_words_are_left() -> None:
    assert question_core("Estudos sobre educação do campo") == "Educação do campo"
    assert question_core("quais trabalhos tratam de evasão no ensino") == "Evasão no ensino"


def test_an_opening_stays_when_two_words_are_left() -> None:
    assert question_core("Estudos sobre educação indígena") == "Estudos sobre educação indígena"
    assert question_core("quais trabalhos tratam de evasão escolar") == (
        "Quais trabalhos tratam de evasão escolar"
    )
