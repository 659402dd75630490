"""`review ask` without a model reads as a synthesis: whole sentences (never a title or a
heading glued in front), one per work, not repeated, in order of year; two works of one author
and year cited as ABNT does ("SILVA, 2019a" / "SILVA, 2019b")."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from literature_helpers import library_store

from colmeia.apps.literature.synthesis import ask_collection

SAME = "Os professores relatam falta de formação continuada para a inclusão escolar."
CSV = (
    "Titulo,Autor,Defesa,Resumo\n"
    # Two works by one author in one year: the reference list orders them by title.
    '"Vozes docentes em Cáceres-MT (2015)",João Silva,2019,'
    f'"{SAME} A escola ouviu vinte docentes sobre inclusão."\n'
    '"A inclusão escolar e seus professores",João Silva,2019,'
    '"Os docentes pedem formação continuada para a inclusão escolar com apoio da gestão."\n'
    # A later work that says the first one's sentence again, word for word.
    '"Formação continuada em rede",Carla Lima,2021,'
    f'"{SAME} O curso durou um ano."\n'
    '"Formação e inclusão nos anos 2000",Rita Alves,2008,'
    '"A formação continuada de professores para a inclusão escolar começou nas redes municipais."\n'
)
QUESTION = "formação continuada de professores para a inclusão escolar"


@pytest.fixture
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    yield from library_store(tmp_path, CSV)


def test_two_works_of_one_author_and_year_are_told_apart_by_letters(store) -> None:  # type: ignore[no-untyped-def]
    result = asyncio.run(ask_collection(store, "col", QUESTION, works=4))
    letters = {s.title: s.label() for s in result.sources}
    assert letters["A inclusão escolar e seus professores"] == "(SILVA, 2019a, resumo)"
    assert letters["Vozes docentes em Cáceres-MT (2015)"] == "(SILVA, 2019b, resumo)"
    assert letters["Formação continuada em rede"] == "(LIMA, 2021, resumo)"  # alone: no letter


def test_the_offline_answer_is_whole_sentences_one_per_work_unrepeated_by_year(store) -> None:  # type: ignore[no-untyped-def]
    result = asyncio.run(ask_collection(store, "col", QUESTION, works=4))
    text = result.text()
    for claim in result.claims:
        # No title or heading glued in front: each claim starts a sentence of the abstract.
        assert "RESUMO" not in claim.text and "(2015)" not in claim.text
        assert claim.text.endswith(".")
    assert text.count(SAME) == 1  # the sentence two works share is said once
    by_id = {s.id: s for s in result.sources}
    years = [by_id[c.sources[0]].year for c in result.claims]
    assert years == sorted(years)
    assert years[0] == 2008
    assert len(result.claims) == 4  # every work still speaks, the copy in its other words
