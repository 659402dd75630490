"""What a reader of a cleaned PDF checks at the edges of its pages and sections: a running
title beside the page's printed number goes, a sentence that happens to end in that number
stays; a paragraph cut by a page break is whole again unless the next page opens something
new; the references are cut up to the appendix, never from a contents page's entry."""

from __future__ import annotations

import pytest

from colmeia.rag.ingest.clean import clean_document, remove_running_lines
from colmeia.rag.types import ExtractedDocument, Page

_SENTENCES = [
    "As visitas às escolas começaram em março e seguiram o calendário combinado.",
    "Cada diretor recebeu o roteiro da entrevista uma semana antes da visita.",
    "Os professores responderam ao questionário durante o horário de planejamento.",
    "As famílias foram ouvidas em reuniões abertas, no fim do expediente.",
    "A equipe registrou as observações em fichas padronizadas, revistas por pares.",
    "Nas turmas do turno da noite a frequência foi menor do que a esperada.",
    "O transporte escolar atrasou as visitas às escolas da zona rural.",
    "Os coordenadores pedagógicos acompanharam as entrevistas em metade das unidades.",
    "A merenda servida foi registrada em todas as visitas, com fotografias.",
    "Os alunos do ensino médio participaram de grupos focais sobre a rotina.",
]


def _pages(*edges: tuple[str, str]) -> list[list[str]]:
    """Pages of different running text (only their edge lines can repeat)."""
    return [
        [top, _SENTENCES[2 * i], _SENTENCES[2 * i + 1], bottom]
        for i, (top, bottom) in enumerate(edges)
    ]


def test_a_running_title_beside_the_printed_number_goes_and_a_sentence_ending_in_it_stays() -> None:
    pages = _pages(
        ("10 Capítulo 1. Um exemplo", "Ao todo foram visitadas 48 escolas."),
        ("3.1. Uma seção 11", "Nesta seção a amostra final teve 11"),
        ("Revisão da literatura 12", "Os resultados seguem."),
        ("Revisão da literatura 13", "Os resultados seguem na tabela seguinte."),
        ("14", "O questionário aplicado tinha 30 questões abertas e fechadas."),
    )
    out = remove_running_lines(pages, numbers=[10, 11, 12, 13, 14], offset=0)
    # every top line carried the page's number and a title (or nothing else)
    assert [lines[0] for lines in out] == [lines[1] for lines in pages]
    bottoms = [lines[-1] for lines in out]
    assert bottoms == [
        "Ao todo foram visitadas 48 escolas.",  # 48 is no page number
        "Nesta seção a amostra final teve 11",  # page 11's number, but a sentence of its own
        "Os resultados seguem.",
        "Os resultados seguem na tabela seguinte.",
        "O questionário aplicado tinha 30 questões abertas e fechadas.",
    ]


def test_a_heading_printed_again_beside_the_page_number_is_a_running_title() -> None:
    pages = _pages(("Metodologia 21", "Fim da seção."), ("Outra coisa", "Fim."))
    pages[1].insert(1, "Metodologia")  # the section's own heading, in the body of a page
    out = remove_running_lines(pages, numbers=[21, 22], offset=0)
    assert out[0][0] == pages[0][1]
    assert "Metodologia" in out[1]
    # the number of another page beside the title is not this page's: kept
    pages = _pages(("Metodologia 99", "Fim."), ("Metodologia", "Fim."))
    assert remove_running_lines(pages, numbers=[21, 22], offset=0)[0][0] == "Metodologia 99"


def _pdf(*pages: str, **metadata: object) -> ExtractedDocument:
    return ExtractedDocument(
        source_id="t.pdf",
        title="t",
        pages=[Page(i, text) for i, text in enumerate(pages, start=1)],
        content_hash="x",
        metadata={"format": "pdf", **metadata},
    )


_CUT = "As escolas que aderiram ao programa no primeiro ano receberam a visita da equipe técnica"


@pytest.mark.parametrize(
    ("head", "joined"),
    [
        ("em março, quando começaram as observações.", True),
        ("(em março), quando começaram as observações.", True),
        ("CAPÍTULO 2", False),
        ("INTRODUÇÃO", False),
        ("REFERÊNCIAS", False),
        ("1. As escolas da rede estadual, em março.", False),
        ("Art. 5º As escolas, em março.", False),
        ("Março foi o mês das visitas.", False),  # a short capitalised line: a new paragraph
        (
            "Secretaria Municipal de Educação, que organizou o calendário das visitas e as "
            "entrevistas.",
            True,  # a long capitalised line after a sentence cut at a lower-case word
        ),
    ],
)
def test_a_paragraph_cut_by_the_page_break_is_joined_unless_the_next_page_opens_something(
    head: str, joined: bool
) -> None:
    doc = clean_document(_pdf(_CUT, head), cut_references=False, cut_front_matter=False)
    first = doc.pages[0].text
    assert (first == f"{_CUT} {head}") is joined
    assert (len(doc.pages) == 1) is joined


def test_a_sentence_cut_after_a_comma_joins_a_capitalised_line() -> None:
    doc = clean_document(_pdf(f"{_CUT},", "Brasília e Goiânia."), cut_references=False)
    assert doc.pages[0].text == f"{_CUT}, Brasília e Goiânia."


def test_a_page_ending_a_sentence_joins_nothing() -> None:
    doc = clean_document(_pdf(f"{_CUT}.", "em março, quando começaram."), cut_references=False)
    assert [p.text for p in doc.pages] == [f"{_CUT}.", "em março, quando começaram."]


_BODY = "Texto corrido da conclusão do trabalho, com frases completas sobre as escolas."


def test_the_references_are_cut_from_their_heading_to_the_appendix() -> None:
    doc = clean_document(
        _pdf(
            _BODY,
            f"{_BODY}\nREFERÊNCIAS\nBARDIN, L. Análise de conteúdo. Lisboa: Edições 70, 1977.",
            "SILVA, J. Escolas. São Paulo: Ática, 2010.\nSOUZA, M. Rede. 2012.\n"
            "SANTOS, A. Gestão escolar.\nANEXOS da Portaria n. 7. Brasília: MEC, 2015.",
            "APÊNDICE A – Questionário\nQuestão 1. Qual é a sua função na escola?",
        ),
        cut_references=True,
        cut_front_matter=False,
    )
    text = doc.text
    assert text.count(_BODY) == 2  # the body above the heading, on its page, stays
    for cut in ("REFERÊNCIAS", "BARDIN", "SILVA", "SANTOS", "ANEXOS da Portaria"):
        assert cut not in text
    assert "APÊNDICE A – Questionário" in text and "Qual é a sua função" in text


def test_an_appendix_heading_on_the_references_page_ends_the_cut_there() -> None:
    doc = clean_document(
        _pdf(_BODY, "REFERÊNCIAS\nSILVA, J. Escolas. 2010.\nANEXO A – Lei municipal\nArt. 1º Fica"),
        cut_references=True,
    )
    assert "SILVA" not in doc.text and "ANEXO A – Lei municipal" in doc.text


def test_references_listed_in_the_contents_are_not_where_the_cut_starts() -> None:
    contents = "SUMÁRIO\nINTRODUÇÃO\nMÉTODO\nREFERÊNCIAS"
    doc = clean_document(_pdf(contents, _BODY, _BODY), cut_references=True)
    assert doc.text.count(_BODY) == 2
    # the last references heading is the one cut from (an earlier one heads a chapter's list)
    doc = clean_document(
        _pdf(_BODY, "REFERÊNCIAS\nA, B. 2001.", _BODY, "REFERÊNCIAS\nC, D. 2002."),
        cut_references=True,
    )
    assert "A, B. 2001." in doc.text and "C, D. 2002." not in doc.text


def test_a_contents_page_is_dropped_with_the_front_matter_and_is_not_the_introduction() -> None:
    doc = clean_document(
        _pdf(
            "UNIVERSIDADE FEDERAL\nDissertação de Mestrado",
            "SUMÁRIO\n1 INTRODUÇÃO\n2 MÉTODO\n3 RESULTADOS",
            "AGRADECIMENTOS\nAos meus pais.",
            "RESUMO\nEste trabalho estuda as escolas.",
            "1 INTRODUÇÃO\n" + _BODY,
        ),
        cut_front_matter=True,
        cut_references=False,
    )
    text = doc.text
    assert "Aos meus pais" not in text and "SUMÁRIO" not in text and "UNIVERSIDADE" not in text
    assert "Este trabalho estuda as escolas." in text
    assert text.rstrip().endswith(_BODY)


_TOC = ["INTRODUÇÃO ........ 11", "MÉTODO ........ 20", "RESULTADOS ........ 31"]


@pytest.mark.parametrize(
    ("lines", "is_contents"),
    [
        (_TOC, True),
        ([*_TOC, "Um.", "Dois.", "Três."], True),  # three dotted entries of seven lines
        ([*_TOC, "Um.", "Dois.", "Três.", "Quatro."], False),  # three of eight: a form
        (_TOC[:2], False),  # two dotted lines are no contents
    ],
)
def test_a_page_of_dotted_entries_is_a_contents_page_a_form_in_prose_is_not(
    lines: list[str], is_contents: bool
) -> None:
    # an abstract before the introduction is kept, unless its page is a contents page
    doc = clean_document(
        _pdf("RESUMO\n" + "\n".join(lines), "1 INTRODUÇÃO\n" + _BODY),
        cut_front_matter=True,
        cut_references=False,
    )
    assert ("RESUMO" in doc.text) is not is_contents
    assert doc.text.rstrip().endswith(_BODY)
