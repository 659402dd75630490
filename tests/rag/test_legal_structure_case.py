"""Legal structure as laws are printed: "PARÁGRAFO ÚNICO" in capitals is the article's sole
paragraph like "Parágrafo único", and numbered items are items only inside an alínea (a list
under an inciso without alíneas stays the inciso's text)."""

from __future__ import annotations

import pytest

from colmeia.rag.ingest import LegalChunker
from colmeia.rag.types import ExtractedDocument, Page


def _paths(text: str) -> list[tuple[str, str]]:
    doc = ExtractedDocument(source_id="lei", title="x", pages=[Page(1, text)], content_hash="h")
    return [(c.path, c.text) for c in LegalChunker(label="Lei 1/2020").chunk(doc)]


@pytest.mark.parametrize(
    "heading", ["Parágrafo único.", "PARÁGRAFO ÚNICO.", "Parágrafo Único -", "PARAGRAFO UNICO:"]
)
def test_the_sole_paragraph_is_read_in_any_letter_case(heading: str) -> None:
    text = f"Art. 1º A lei vale em todo o país.\n{heading} Ela não vale no exterior."
    assert _paths(text) == [
        ("Lei 1/2020, Art. 1º", "Art. 1º A lei vale em todo o país."),
        ("Lei 1/2020, Art. 1º, Parágrafo único", f"{heading} Ela não vale no exterior."),
    ]


def test_numbered_lines_are_items_inside_an_alinea_and_text_inside_an_inciso() -> None:
    text = (
        "Art. 2º Ficam criados:\n"
        "I - os cargos seguintes:\n"
        "1. Analista;\n"
        "2. Técnico;\n"
        "II - as funções:\n"
        "a) de chefia:\n"
        "1. Coordenador;\n"
        "2. Assessor."
    )
    assert [p for p, _ in _paths(text)] == [
        "Lei 1/2020, Art. 2º",
        "Lei 1/2020, Art. 2º, inciso I",
        "Lei 1/2020, Art. 2º, inciso II",
        "Lei 1/2020, Art. 2º, inciso II, alínea a",
        "Lei 1/2020, Art. 2º, inciso II, alínea a, item 1",
        "Lei 1/2020, Art. 2º, inciso II, alínea a, item 2",
    ]
    inciso_i = dict(_paths(text))["Lei 1/2020, Art. 2º, inciso I"]
    assert inciso_i == "I - os cargos seguintes:\n1. Analista;\n2. Técnico;"


def test_a_capitalised_paragraph_or_article_in_a_pdf_starts_its_own_paragraph() -> None:
    from colmeia.rag.ingest.clean import join_lines

    # full-width lines, as a PDF of a law prints them: each dispositivo is its own paragraph
    lines = [
        "Art. 1º Esta lei estabelece normas gerais sobre o tratamento de dados pessoais no país.",
        "PARÁGRAFO ÚNICO. Aplica-se também aos órgãos públicos de todas as esferas da federação.",
        "ART. 2º A disciplina da proteção de dados pessoais tem como fundamento a privacidade.",
        "Parágrafo único. Nenhum tratamento de dados pessoais dispensa a finalidade informada.",
    ]
    assert join_lines(lines) == lines
