"""No paragraph break inside a parenthetical citation list: "(SILVA, 2019; …;" ending a line
and "LIMA, 2021), que…" starting the next in capitals is one paragraph, however the lines
fall."""

from __future__ import annotations

from colmeia.rag.ingest.clean import clean_pages
from colmeia.rag.types import Page

LINES = [
    "A formação docente para a inclusão foi estudada por vários autores e coletivos (SILVA, 2019;",
    "SOUZA, 2020; PEREIRA, 2017; MARTINS, 2015; OLIVEIRA, 2012; ALMEIDA, 2010; SANTOS, 2011;",
    "LIMA, 2021; COSTA, 2018), que apontam a falta de apoio institucional nas redes públicas.",
]


def test_a_citation_list_across_lines_stays_in_its_paragraph() -> None:
    [page] = clean_pages([Page(1, "\n".join(LINES))])
    assert page.text == " ".join(LINES)


def test_parentheses_closed_within_their_paragraphs_keep_the_break() -> None:
    text = "Um parágrafo (com nota) termina aqui.\n\nOutro (SILVA, 2019) começa aqui."
    [page] = clean_pages([Page(1, text)])
    assert page.text.split("\n\n") == [
        "Um parágrafo (com nota) termina aqui.",
        "Outro (SILVA, 2019) começa aqui.",
    ]
