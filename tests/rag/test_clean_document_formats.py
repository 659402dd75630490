"""What a user sees of ``clean_document``'s defaults: a PDF, a plain text or a document of no
stated format has the lines a page broke joined into paragraphs; a DOCX, HTML or Markdown
document keeps its lines as written (only whitespace tidied, a line that is just a number
stays). A thesis loses its cover pages and references unless told otherwise, each cut on its
own switch; an empty document still has a page; the copy says it was cleaned, the original
is left as it was."""

from __future__ import annotations

import pytest

from colmeia.rag.ingest.clean import clean_document
from colmeia.rag.types import ExtractedDocument, Page

_LINES = (
    "A pesquisa acompanhou as escolas da rede estadual durante todo o ano letivo de\n"
    "2019, com visitas mensais e entrevistas com os diretores e os professores."
)
_JOINED = (
    "A pesquisa acompanhou as escolas da rede estadual durante todo o ano letivo de "
    "2019, com visitas mensais e entrevistas com os diretores e os professores."
)


def _doc(*texts: str, fmt: str | None, doc_type: str = "", first: int = 1) -> ExtractedDocument:
    metadata = {} if fmt is None else {"format": fmt}
    pages = [Page(first + i, t) for i, t in enumerate(texts)]
    return ExtractedDocument("d", "Documento", pages, "h", doc_type=doc_type, metadata=metadata)


@pytest.mark.parametrize("fmt", ["pdf", "text", None])
def test_a_pdf_a_plain_text_and_a_document_of_no_stated_format_have_their_lines_joined(
    fmt: str | None,
) -> None:
    out = clean_document(_doc(_LINES, fmt=fmt))
    assert [p.text for p in out.pages] == [_JOINED]


@pytest.mark.parametrize("fmt", ["docx", "html", "markdown"])
def test_a_document_that_marks_its_paragraphs_keeps_its_lines_and_numbers(fmt: str) -> None:
    text = f"Relatório  anual\n\n{_LINES}\n\n1999"
    out = clean_document(_doc(text, fmt=fmt, first=3))
    # whitespace tidied, nothing joined, the year on a line of its own is no page number
    assert [(p.number, p.text) for p in out.pages] == [(3, f"Relatório anual\n\n{_LINES}\n\n1999")]


def test_joining_can_be_asked_for_and_refused_whatever_the_format() -> None:
    assert clean_document(_doc(_LINES, fmt="docx"), join_lines=True).pages[0].text == _JOINED
    assert clean_document(_doc(_LINES, fmt="text"), join_lines=False).pages[0].text == _LINES


def test_a_pdf_not_joined_still_loses_its_page_numbers_and_running_header() -> None:
    body = [
        f"A meta {k} do plano foi cumprida em parte pela\nsecretaria, segundo o balanço de {m}."
        for k, m in zip("ABCD", ["março", "junho", "agosto", "dezembro"], strict=True)
    ]
    pages = [f"Relatório de gestão 2020\n{b}\n{k}" for k, b in enumerate(body, 1)]
    out = clean_document(_doc(*pages, fmt="pdf"), join_lines=False)
    assert [p.text for p in out.pages] == body


_COVER = "UNIVERSIDADE FEDERAL DO SUL\nPrograma de Pós-Graduação em Educação\nAna Souza"
_INTRO = "1 INTRODUÇÃO\n" + _LINES
_MIDDLE = "As escolas visitadas tinham entre 300 e 900 alunos matriculados no ensino médio."
_REFS = "REFERÊNCIAS\nSILVA, A. Avaliação e escola. São Paulo: Ática, 2010."


def _thesis(doc_type: str = "Dissertação") -> ExtractedDocument:
    return _doc(_COVER, _INTRO, _MIDDLE, _REFS, fmt="pdf", doc_type=doc_type)


def _texts(doc: ExtractedDocument) -> list[str]:
    return [p.text for p in doc.pages]


def test_a_thesis_loses_its_cover_and_references_by_default() -> None:
    assert _texts(clean_document(_thesis())) == [
        f"1 INTRODUÇÃO\n\n{_JOINED}",
        _MIDDLE,
    ]


def test_each_cut_of_a_thesis_can_be_turned_off_alone() -> None:
    keep_cover = clean_document(_thesis(), cut_front_matter=False)
    cover, *rest = _texts(keep_cover)
    assert cover.startswith("UNIVERSIDADE FEDERAL DO SUL")
    assert rest == [f"1 INTRODUÇÃO\n\n{_JOINED}", _MIDDLE]
    keep_refs = clean_document(_thesis(), cut_references=False)
    assert _texts(keep_refs) == [
        f"1 INTRODUÇÃO\n\n{_JOINED}",
        _MIDDLE,
        "REFERÊNCIAS\n\nSILVA, A. Avaliação e escola. São Paulo: Ática, 2010.",
    ]


def test_a_report_keeps_every_page_unless_a_cut_is_asked_for() -> None:
    report = _thesis(doc_type="relatório")
    assert len(clean_document(report).pages) == 4
    assert _texts(clean_document(report, cut_front_matter=True))[0] == (
        f"1 INTRODUÇÃO\n\n{_JOINED}"
    )
    assert _texts(clean_document(report, cut_references=True))[-1] == _MIDDLE


def test_a_docx_report_is_cut_when_asked_though_its_lines_are_kept() -> None:
    report = _doc(_COVER, _INTRO, _MIDDLE, _REFS, fmt="docx")
    out = clean_document(report, cut_references=True)
    assert _texts(out)[-1] == _MIDDLE
    assert _texts(out)[1] == _INTRO


def test_a_document_with_no_text_still_has_one_empty_page_numbered_as_its_first() -> None:
    empty = clean_document(_doc(fmt="pdf"))
    assert [(p.number, p.text) for p in empty.pages] == [(1, "")]
    blank = clean_document(_doc("  ", "\n", fmt="pdf", first=5))
    assert [(p.number, p.text) for p in blank.pages] == [(5, "")]


def test_the_copy_says_it_was_cleaned_and_the_original_is_untouched() -> None:
    doc = _doc(_LINES, fmt="pdf")
    doc.metadata["author"] = "Ana Souza"
    out = clean_document(doc)
    assert out.metadata == {"format": "pdf", "author": "Ana Souza", "cleaned": True}
    assert doc.metadata == {"format": "pdf", "author": "Ana Souza"}
    assert [p.text for p in doc.pages] == [_LINES]
    assert (out.source_id, out.title) == ("d", "Documento")
