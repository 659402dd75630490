"""A researcher's question is ranked without the opening that only asks for works."""

from __future__ import annotations

import pytest

from colmeia.apps.literature.questions import question_core


@pytest.mark.parametrize(
    ("asked", "core"),
    [
        ("Quais trabalhos tratam de ensino religioso no Amapá?", "Ensino religioso no Amapá?"),
        (
            "Existe alguma pesquisa sobre a escola sem partido no Paraná",
            "A escola sem partido no Paraná",
        ),
        ("Estudos sobre música nas séries iniciais", "Música nas séries iniciais"),
        (
            "existe alguma dissertacao sobre aula de religiao em macapa",
            "Aula de religiao em macapa",
        ),
        (
            "Which studies look at teachers facing the new curriculum",
            "Teachers facing the new curriculum",
        ),
        (
            "Is there any research on Jesuit theatre in colonial Brazil",
            "Jesuit theatre in colonial Brazil",
        ),
        (
            "Trabalhos que discutem o ensino de filosofia no secundário",
            "O ensino de filosofia no secundário",
        ),
    ],
)
def test_an_opening_that_only_asks_for_works_is_taken_off(asked: str, core: str) -> None:
    assert question_core(asked) == core


@pytest.mark.parametrize(
    "question",
    [
        "Estudo de caso em uma escola de Vila Velha sobre aulas de música",  # a method
        "Pesquisa-ação com adolescentes de uma instituição estadual",  # a method
        "Estudo linguístico de um sermão de 2012",  # no linking word: the noun says what kind
        "Quais teses?",  # nothing would be left to rank
        "Como militantes comunistas aprendiam a viver na clandestinidade?",
    ],
)
def test_a_question_without_such_an_opening_is_left_as_asked(question: str) -> None:
    assert question_core(question) == question


def test_the_first_letter_is_upper_cased_and_spaces_collapsed() -> None:
    assert question_core("  aula de   religiao em macapa ") == "Aula de religiao em macapa"
