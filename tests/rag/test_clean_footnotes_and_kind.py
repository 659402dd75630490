"""Two things a reader of a cleaned thesis notices: footnotes at a page's foot come out as
their own paragraphs after the body (not glued into its last sentence, their marks taken off
the words), and a thesis is recognised as one, so its cover pages and references are cut by
default while a report or a law keeps every page."""

from __future__ import annotations

from colmeia.rag.ingest.clean import clean_document, fold_type, join_lines, looks_academic
from colmeia.rag.types import ExtractedDocument, Page

_BODY = [
    "A literatura sobre avaliação educacional cresceu muito nas últimas décadas,",
    "sobretudo depois da criação do Saeb1 e da Prova Brasil, que passaram a orientar",
    "as políticas públicas das redes estaduais e municipais de ensino do país2.",
]
_JOINED_BODY = (
    "A literatura sobre avaliação educacional cresceu muito nas últimas décadas, sobretudo "
    "depois da criação do Saeb e da Prova Brasil, que passaram a orientar as políticas "
    "públicas das redes estaduais e municipais de ensino do país."
)


def test_footnotes_follow_the_body_each_its_own_paragraph_and_marks_leave_the_words() -> None:
    notes = [
        "1Sistema de Avaliação da Educação Básica, criado em 1990.",
        "2Ver INEP (2015) para a série histórica.",
    ]
    assert join_lines(_BODY + notes) == [_JOINED_BODY, *notes]


def test_a_long_footnote_is_still_a_footnote_when_the_body_carries_its_mark() -> None:
    body = [x.replace("Saeb1", "Saeb") for x in _BODY]
    note = [
        "2Ver INEP (2015) para a série histórica completa dos resultados,",
        "com os dados de todas as redes estaduais e municipais",
        "e a descrição das escalas de proficiência",
        "usadas em cada edição da prova.",
    ]
    assert join_lines(body + note) == [_JOINED_BODY, " ".join(note)]


def test_a_numbered_line_whose_number_the_body_never_marks_stays_in_the_body() -> None:
    body = [x.replace("Saeb1", "Saeb").replace("país2", "país") for x in _BODY]
    rest = [
        "2Ver INEP (2015) para a série histórica completa dos resultados,",
        "com os dados de todas as redes estaduais e municipais",
        "e a descrição das escalas de proficiência",
        "usadas em cada edição da prova.",
    ]
    (paragraph,) = join_lines(body + rest)
    assert paragraph.endswith(
        "do país. 2Ver INEP (2015) para a série histórica completa "
        "dos resultados, com os dados de todas as redes estaduais e "
        "municipais e a descrição das escalas de proficiência usadas "
        "em cada edição da prova."
    )


def test_a_number_after_a_broken_word_is_not_a_footnote() -> None:
    lines = [*_BODY[:2], "as políticas das redes de ensino desde o ano de 20-", "15Fim."]
    assert len(join_lines(lines)) == 1


def _pdf(pages: list[str], **metadata: object) -> ExtractedDocument:
    return ExtractedDocument(
        source_id="t.pdf",
        title="t",
        pages=[Page(i, text) for i, text in enumerate(pages, start=1)],
        content_hash="x",
        metadata={"format": "pdf", **metadata},
    )


_PROSE = "Texto corrido de um capítulo, com frases completas e nenhuma marca de estrutura."
_COVER = "UNIVERSIDADE FEDERAL\nDissertação de Mestrado\nPrograma de Pós-Graduação em Educação"
_REFS = "REFERÊNCIAS\nBARDIN, L. Análise de conteúdo. Lisboa: Edições 70, 1977."
_TOC = "SUMÁRIO\n1 INTRODUÇÃO ........ 11\n2 MÉTODO ........ 20"


def test_a_dissertation_with_a_references_section_is_academic() -> None:
    assert looks_academic(_pdf([_COVER] + [_PROSE] * 8 + [_REFS]))


def test_a_dissertation_with_a_table_of_contents_is_academic() -> None:
    assert looks_academic(_pdf([_COVER, _TOC] + [_PROSE] * 8))


def test_degree_words_alone_do_not_make_a_work_academic() -> None:
    # a report that mentions a dissertation on its cover, with no contents or references
    assert not looks_academic(_pdf([_COVER] + [_PROSE] * 9))


def test_short_documents_other_formats_and_late_degree_words_are_not_academic() -> None:
    assert not looks_academic(_pdf([_COVER] + [_PROSE] * 5 + [_REFS]))  # seven pages
    assert looks_academic(_pdf([_COVER] + [_PROSE] * 6 + [_REFS]))  # eight pages
    text = _pdf([_COVER] + [_PROSE] * 8 + [_REFS])
    text.metadata["format"] = "text"
    assert not looks_academic(text)
    # the degree named only on page 7, past the cover pages
    assert not looks_academic(_pdf([_PROSE] * 6 + [_COVER] + [_PROSE] * 2 + [_REFS]))


def test_the_declared_type_or_flag_makes_a_work_academic_whatever_its_pages() -> None:
    short = _pdf([_PROSE])
    assert looks_academic(short) is False
    short.doc_type = " Dissertação "
    assert looks_academic(short)
    assert looks_academic(_pdf([_PROSE], academic=True))
    assert not looks_academic(_pdf([_PROSE], academic="yes"))
    assert fold_type("TESE") == "tese" and fold_type("Monografía") == "monografia"


def test_an_academic_pdf_loses_its_references_by_default_and_a_report_keeps_them() -> None:
    thesis = clean_document(_pdf([_COVER, _TOC] + [_PROSE] * 8 + [_REFS]))
    assert "BARDIN" not in thesis.text
    report = clean_document(_pdf(["Relatório anual"] + [_PROSE] * 8 + [_REFS]))
    assert "BARDIN" in report.text


def test_a_footnote_right_under_a_one_line_body_is_found() -> None:
    lines = ["Os dados do Saeb orientam as políticas de ensino do país2.", "2Ver INEP (2015)."]
    assert join_lines(lines) == [
        "Os dados do Saeb orientam as políticas de ensino do país.",
        lines[1],
    ]


def test_notes_of_several_lines_at_the_foot_are_notes_even_without_marks_in_the_body() -> None:
    body = [x.replace("Saeb1", "Saeb").replace("país2", "país") for x in _BODY]
    one_note = [
        "1Ver INEP (2015) para a série histórica,",
        "com os dados de todas as redes",
        "do país.",
    ]
    assert join_lines(body + one_note) == [_JOINED_BODY, " ".join(one_note)]
    two_notes = ["1Ver INEP (2015),", "com a série histórica.", "2Ver Brasil (2014),", "o plano."]
    assert join_lines(body + two_notes) == [
        _JOINED_BODY,
        "1Ver INEP (2015), com a série histórica.",
        "2Ver Brasil (2014), o plano.",
    ]


def test_only_the_foot_of_a_long_page_is_searched_for_footnotes() -> None:
    # the second of fourteen lines starts with a number the first line ends with: a page's
    # footnotes sit in its last twelve lines, so this is body text, not a note
    prose = "texto corrido do capítulo, com frases completas e nenhuma marca de estrutura"
    lines = [
        "Os resultados do Saeb orientam as políticas de ensino do país2",
        "2Ver INEP.",
        *[prose] * 12,
    ]
    paragraphs = join_lines(lines)
    # (read as a note, it would come last, and the first line would lose its "2")
    assert paragraphs == [lines[0], " ".join(lines[1:])]


def test_a_hyphen_the_document_fuses_elsewhere_is_dropped() -> None:
    # the page alone keeps "web-conferência"; the document writes "webconferência" elsewhere
    lines = ["sem o uso de plataformas de web-", "conferência nas aulas"]
    assert join_lines(lines) == ["sem o uso de plataformas de web-conferência nas aulas"]
    assert join_lines(lines, {"webconferência"}) == [
        "sem o uso de plataformas de webconferência nas aulas"
    ]
