"""An extraction column filled offline answers from the sentence that names its subject — a
heading ("METODOLOGIA") or a sentence sharing only a common word is no answer — the abstract
included, else "não informado"."""

from __future__ import annotations

import asyncio

from colmeia.apps.literature import Review, ReviewedWork
from colmeia.apps.literature.columns import fill_columns, parse_column
from colmeia.apps.literature.passage import Passage

TITLE = "Vozes docentes sobre a inclusão"


def _work(abstract: str) -> ReviewedWork:
    w = ReviewedWork("rec:1", TITLE, 1, 1.0, year=2019, abstract=abstract)
    w.passages = [
        Passage(
            "P1",
            "rec:1#3",
            "METODOLOGIA\nEsta pesquisa discute a inclusão na escola pública.",
            "41",
        ),
        Passage("P2", "rec:1#9", "Os docentes relatam falta de apoio da gestão escolar.", "88"),
    ]
    return w


def _fill(work: ReviewedWork, spec: str) -> str:
    review = asyncio.run(fill_columns(Review("q", "col", [work]), [parse_column(spec)]))
    return review.works[0].columns[parse_column(spec).name].text


def test_the_method_comes_from_the_abstract_sentence_that_states_it() -> None:
    work = _work(
        "Estudo sobre a inclusão escolar. A metodologia combinou entrevistas com vinte "
        "professores e observação de aulas. Os docentes pedem formação."
    )
    value = _fill(work, "método: qual o método de pesquisa?")
    assert value == (
        "A metodologia combinou entrevistas com vinte professores e observação de aulas. (resumo)"
    )


def test_a_column_no_sentence_names_is_not_informed() -> None:
    # "pesquisa" alone (P1) is not the method; nor is the heading above it.
    work = _work("Estudo sobre a inclusão escolar. Os docentes pedem formação.")
    assert _fill(work, "método: qual o método de pesquisa?") == "não informado"
    assert _fill(work, "gestão: o que diz da gestão escolar?") == (
        "Os docentes relatam falta de apoio da gestão escolar."
    )
