"""A law printed to PDF: each inciso, alínea and item stays its own paragraph after cleaning,
so the legal chunker cites it on its own ("inciso II, alínea b"), even where the line above
runs to the right margin and the item starts in lower case."""

from __future__ import annotations

from pathlib import Path

import pytest
from fpdf import FPDF

from colmeia.rag.ingest import LegalChunker, clean_document, extract

# (indent in mm, line): full-width lines, the way a gazette sets a law. A caput's first line
# is set in; its continuation, the incisos, alíneas and items start at the margin. (Numbered
# items among the last lines of a page, with little body text after them, are taken for
# footnotes by the cleaner today: Art. 2 and 3 keep them out of that window.)
ROWS = [
    (10, "Art. 1o Os documentos publicos de guarda permanente serao conservados pelo orgao que os"),
    (
        0,
        "produziu, observadas as regras de acesso, de sigilo e de eliminacao previstas nesta Lei e",
    ),
    (0, "nos regulamentos expedidos pelo Conselho Nacional de Arquivos para os seguintes casos:"),
    (0, "I - os originais assinados de atos normativos, contratos, convenios e ajustes celebrados"),
    (0, "pela administracao direta e indireta de qualquer dos Poderes da Uniao e dos Estados;"),
    (
        0,
        "II - os processos administrativos cuja decisao final tenha sido publicada no diario oficial",
    ),
    (
        0,
        "da Uniao ou do Estado respectivo, bem como os seus anexos tecnicos e financeiros, entre eles:",
    ),
    (
        0,
        "a) as plantas, mapas e desenhos tecnicos de obras publicas contratadas pelo orgao ou pela",
    ),
    (0, "entidade responsavel, inclusive as revisoes aprovadas durante a execucao do contrato;"),
    (
        0,
        "b) os relatorios de auditoria e de fiscalizacao de contratos com valor superior ao limite",
    ),
    (0, "fixado pelo regulamento, acompanhados dos pareceres juridicos e tecnicos pertinentes:"),
    (0, "1. os pareceres que concluirem pela irregularidade das contas prestadas pelos gestores;"),
    (0, "2. os pareceres que concluirem pela regularidade das contas prestadas com ressalvas."),
    (
        10,
        "Art. 2o Esta Lei entra em vigor na data de sua publicacao, revogadas as disposicoes contrarias",
    ),
    (
        0,
        "e em especial os dispositivos da legislacao anterior que tratavam da guarda de documentos,",
    ),
    (
        0,
        "ressalvados os prazos de guarda ja iniciados, que se contam na forma da legislacao anterior.",
    ),
    (
        10,
        "Art. 3o O Poder Executivo regulamentara esta Lei no prazo de cento e oitenta dias contados",
    ),
    (
        0,
        "da data de sua publicacao, ouvidos o Conselho Nacional de Arquivos e os arquivos publicos",
    ),
    (0, "estaduais, que poderao propor normas complementares para os documentos sob sua guarda."),
]


@pytest.fixture(scope="module")
def cleaned_law(tmp_path_factory: pytest.TempPathFactory) -> str:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    for indent, text in ROWS:
        pdf.set_x(pdf.l_margin + indent)
        pdf.cell(0, 5, text, new_x="LMARGIN", new_y="NEXT")
    path = Path(tmp_path_factory.mktemp("lei")) / "lei.pdf"
    pdf.output(str(path))
    return clean_document(extract(path), join_lines=True).text


def test_each_inciso_alinea_and_item_starts_its_own_paragraph(cleaned_law: str) -> None:
    starts = [p[:6] for p in cleaned_law.split("\n\n")]
    assert starts == [
        "Art. 1",
        "I - os",
        "II - o",
        "a) as ",
        "b) os ",
        "1. os ",
        "2. os ",
        "Art. 2",
        "Art. 3",
    ]


def test_wrapped_lines_of_one_dispositivo_are_joined(cleaned_law: str) -> None:
    assert "contratos, convenios e ajustes celebrados pela administracao direta" in cleaned_law
    assert "pelo orgao ou pela entidade responsavel" in cleaned_law


def test_the_legal_chunker_cites_each_alinea_and_item_of_the_cleaned_pdf(
    cleaned_law: str, tmp_path: Path
) -> None:
    from colmeia.rag.types import ExtractedDocument, Page

    doc = ExtractedDocument(
        source_id="lei", title="x", pages=[Page(1, cleaned_law)], content_hash="h"
    )
    paths = [c.path for c in LegalChunker(label="Lei").chunk(doc)]
    assert paths == [
        "Lei, Art. 1º",
        "Lei, Art. 1º, inciso I",
        "Lei, Art. 1º, inciso II",
        "Lei, Art. 1º, inciso II, alínea a",
        "Lei, Art. 1º, inciso II, alínea b",
        "Lei, Art. 1º, inciso II, alínea b, item 1",
        "Lei, Art. 1º, inciso II, alínea b, item 2",
        "Lei, Art. 2º",
        "Lei, Art. 3º",
    ]
