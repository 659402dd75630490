"""A hyphen at a line end, as a reader of the cleaned text judges it: a word the line broke is
whole again; a compound keeps its hyphen (one- and two-letter parts, and in capitals too); a
prefix follows the orthographic rule ("anticorrupção"); a name set in capitals re-joins, but
a single capital letter on either side is a real hyphen ("E-MAIL"); a dash set apart from
the words is punctuation; and the document's own spelling decides ("e-mail" or "PowerPoint"
written so elsewhere in it)."""

from __future__ import annotations

import pytest

from colmeia.rag.ingest.clean import clean_document, join_lines
from colmeia.rag.types import ExtractedDocument, Page


@pytest.mark.parametrize(
    ("lines", "text"),
    [
        (
            ["O diretor - que assumiu a escola em 2019 -", "reformou a biblioteca toda."],
            "O diretor - que assumiu a escola em 2019 - reformou a biblioteca toda.",
        ),
        (
            ["A matrícula caiu no período pós-", "“reforma”, como mostra a tabela."],
            "A matrícula caiu no período pós-“reforma”, como mostra a tabela.",
        ),
        (["os alunos e os ex-", "alunos da escola"], "os alunos e os ex-alunos da escola"),
        (["o guarda-", "pó do laboratório"], "o guarda-pó do laboratório"),
        (["uma visão a-", "histórica da escola"], "uma visão a-histórica da escola"),
        (["a lei anti-", "corrupção do estado"], "a lei anticorrupção do estado"),
        (["o uso de bioinfor-", "mática na escola"], "o uso de bioinformática na escola"),
        (
            ["O PROJETO POLÍTICO-", "PEDAGÓGICO DA ESCOLA"],
            "O PROJETO POLÍTICO-PEDAGÓGICO DA ESCOLA",
        ),
        (["O USO DE ANTI-", "INFLAMATÓRIOS"], "O USO DE ANTI-INFLAMATÓRIOS"),
        (["O SUPER-", "HOMEM DA ESCOLA"], "O SUPER-HOMEM DA ESCOLA"),
        (["O ESTUDO DO USO DO E-", "MAIL NAS ESCOLAS"], "O ESTUDO DO USO DO E-MAIL NAS ESCOLAS"),
        (["A VITAMINA-", "D NA MERENDA ESCOLAR"], "A VITAMINA-D NA MERENDA ESCOLAR"),
        (["O PROGRAMA FER-", "REIRA NAS ESCOLAS"], "O PROGRAMA FERREIRA NAS ESCOLAS"),
        (["A ESCOLA FERREI-", "RA DO CENTRO"], "A ESCOLA FERREIRA DO CENTRO"),
        (
            ["A SECRETARIA E O DE-", "PARTAMENTO DE ENSINO"],
            "A SECRETARIA E O DEPARTAMENTO DE ENSINO",
        ),
        (
            ["As aulas usaram o Power-", "Point em todas as turmas."],
            "As aulas usaram o Power-Point em todas as turmas.",
        ),
    ],
)
def test_a_line_end_hyphen_reads_as_the_text_meant_it(lines: list[str], text: str) -> None:
    assert join_lines(lines) == [text]


def _pdf(*texts: str) -> ExtractedDocument:
    pages = [Page(i, t) for i, t in enumerate(texts, 1)]
    return ExtractedDocument("d", "Relatório", pages, "h", metadata={"format": "pdf"})


def test_the_documents_own_hyphenated_spelling_keeps_the_hyphen() -> None:
    doc = _pdf(
        "As famílias receberam o aviso por e-mail na semana anterior à visita.",
        "Os diretores preferiram o contato por e-\nmail ao contato por telefone.",
    )
    out = clean_document(doc)
    assert out.pages[1].text == (
        "Os diretores preferiram o contato por e-mail ao contato por telefone."
    )
    # without the document's spelling the two halves make a word of the list
    alone = clean_document(_pdf(doc.pages[1].text))
    assert alone.pages[0].text == (
        "Os diretores preferiram o contato por email ao contato por telefone."
    )


@pytest.mark.parametrize("vocabulary", ["the document", "a word set"])
def test_the_documents_own_fused_spelling_joins_a_capitalised_second_half(
    vocabulary: str,
) -> None:
    broken = "As aulas usaram o Power-\nPoint em todas as turmas do turno da noite."
    fused = "As aulas usaram o PowerPoint em todas as turmas do turno da noite."
    if vocabulary == "the document":
        doc = _pdf("Os slides foram feitos no PowerPoint pela coordenação pedagógica.", broken)
        assert clean_document(doc).pages[1].text == fused
    else:
        assert join_lines(broken.split("\n"), {"powerpoint"}) == [fused]
        assert join_lines(broken.split("\n"), {"powerpoint", "power-point"}) == [
            fused.replace("PowerPoint", "Power-Point")
        ]


def test_the_documents_own_word_counts_where_a_line_or_a_page_opens_with_it() -> None:
    broken = "Os fornos e os micro-\nondas da rede foram trocados no mesmo ano, com verba federal."
    fused = "Os fornos e os microondas da rede foram trocados no mesmo ano, com verba federal."
    spelled = "Microondas novos chegaram à cozinha em maio de 2019."
    # the spelling opens the second line of a page, then the first line of the next page
    opens_a_line = _pdf(f"A cozinha da escola foi reformada em março de 2019.\n{spelled}", broken)
    assert clean_document(opens_a_line).pages[1].text == fused
    assert clean_document(_pdf(broken, spelled)).pages[0].text == fused
    # without it the prefix's rule keeps the hyphen before the same vowel
    alone = _pdf(broken)
    assert clean_document(alone).pages[0].text == fused.replace("microondas", "micro-ondas")
