"""What a reader of a cleaned thesis checks at its two ends: the pages before the introduction
go (a contents page between them does not stop the search for it), a document with no
introduction loses only its contents pages; the references go from their heading, wherever
on its page it is and however many pages they fill, up to an appendix; a PDF is taken for a
thesis by its degree words with contents or references, and a blank page is no contents."""

from __future__ import annotations

from colmeia.rag.ingest.clean import clean_document, looks_academic, printed_page_offset
from colmeia.rag.types import ExtractedDocument, Page

_TEXT = [
    "As escolas da rede estadual foram visitadas ao longo de todo o ano letivo de 2019.",
    "Os diretores responderam a um questionário sobre a gestão dos recursos da escola.",
    "Os professores participaram de grupos focais sobre a rotina e o planejamento.",
    "As famílias foram ouvidas em reuniões abertas no fim do expediente das escolas.",
    "A merenda escolar foi registrada em fichas padronizadas em todas as visitas.",
    "O transporte dos alunos da zona rural atrasou metade das visitas previstas.",
]


def _pdf(*texts: str, doc_type: str = "") -> ExtractedDocument:
    pages = [Page(i, t) for i, t in enumerate(texts, 1)]
    return ExtractedDocument("t", "Tese", pages, "h", doc_type=doc_type, metadata={"format": "pdf"})


def _texts(doc: ExtractedDocument) -> list[str]:
    return [p.text for p in doc.pages]


def _words(doc: ExtractedDocument) -> list[str]:
    """Each page's text with paragraph breaks read as spaces (what is kept, not its layout)."""
    return [" ".join(p.text.split()) for p in doc.pages]


def test_a_contents_page_before_the_introduction_is_cut_with_the_cover() -> None:
    doc = _pdf(
        "UNIVERSIDADE FEDERAL DO SUL\nAna Souza",
        "SUMÁRIO\n1 INTRODUÇÃO ........ 3\n2 MÉTODO ........ 4",
        f"1 INTRODUÇÃO\n{_TEXT[0]}",
        _TEXT[1],
    )
    assert _texts(clean_document(doc, cut_front_matter=True)) == [
        f"1 INTRODUÇÃO\n\n{_TEXT[0]}",
        _TEXT[1],
    ]


def test_without_an_introduction_only_the_contents_pages_are_cut() -> None:
    # four of its ten lines are entries with dotted leaders: a contents page without a title
    contents = [f"{k} Capítulo {k} ........ {k * 10}" for k in range(1, 5)]
    doc = _pdf(
        "\n".join(_TEXT[:3] + contents[:2] + _TEXT[3:] + contents[2:]),
        _TEXT[0],
        "\n".join(_TEXT[1:4] + contents[:2]),  # two in five lines: still a page of text
    )
    out = _words(clean_document(doc, cut_front_matter=True))
    assert out == [_TEXT[0], " ".join(_TEXT[1:4])]


def test_references_go_from_a_heading_low_on_its_page_to_the_end() -> None:
    doc = _pdf(
        "\n".join(_TEXT[:2]),
        "\n".join([*_TEXT[2:6], "REFERÊNCIAS", "SILVA, A. Avaliação e escola. São Paulo, 2010."]),
        "SOUZA, B. Gestão escolar. Rio de Janeiro, 2012.\nLIMA, C. Merenda. Recife, 2015.",
    )
    assert _words(clean_document(doc, cut_references=True)) == [
        " ".join(_TEXT[:2]),
        " ".join(_TEXT[2:6]),
    ]


def test_references_that_start_on_the_last_page_but_one_are_cut_to_the_end() -> None:
    doc = _pdf(
        _TEXT[0],
        _TEXT[1],
        "REFERÊNCIAS\nSILVA, A. Avaliação e escola. São Paulo, 2010.",
        "SOUZA, B. Gestão escolar. Rio de Janeiro, 2012.",
    )
    assert _texts(clean_document(doc, cut_references=True)) == [_TEXT[0], _TEXT[1]]


def test_an_appendix_after_the_references_on_their_own_page_is_kept() -> None:
    refs = ["REFERÊNCIAS", "SILVA, A. Avaliação. São Paulo, 2010.", "SOUZA, B. Gestão. Rio, 2012."]
    refs += ["LIMA, C. Merenda escolar. Recife, 2015."]
    doc = _pdf(_TEXT[0], "\n".join([*refs, "APÊNDICE A", _TEXT[1]]), _TEXT[2])
    out = _texts(clean_document(doc, cut_references=True))
    assert out == [_TEXT[0], f"APÊNDICE A\n\n{_TEXT[1]}", _TEXT[2]]


def test_a_document_without_references_is_whole_when_they_are_cut() -> None:
    doc = _pdf(_TEXT[0], _TEXT[1])
    assert _texts(clean_document(doc, cut_references=True)) == [_TEXT[0], _TEXT[1]]


_DEGREE = "Dissertação apresentada ao Programa de Pós-Graduação em Educação."


def _report(first: str, *, blank: bool = False, refs: bool = False) -> ExtractedDocument:
    pages = [first, *_TEXT, _TEXT[0] + " De novo.", _TEXT[1] + " De novo."]
    if blank:
        pages[3] = ""
    if refs:
        pages[-1] = "REFERÊNCIAS\nSILVA, A. Avaliação e escola. São Paulo, 2010."
    return _pdf(*pages)


def test_a_pdf_is_a_thesis_by_its_degree_words_with_references() -> None:
    assert looks_academic(_report(_DEGREE, refs=True))
    # the degree words alone, or a report's references alone, do not make a thesis
    assert not looks_academic(_report(_DEGREE))
    assert not looks_academic(_report(_TEXT[5], refs=True))
    # nor does a PDF that is not said to be one
    doc = _report(_DEGREE, refs=True)
    doc.metadata.pop("format")
    assert not looks_academic(doc)


def test_a_blank_page_is_no_table_of_contents() -> None:
    assert not looks_academic(_report(_DEGREE, blank=True))


def test_degree_words_that_open_a_page_count() -> None:
    doc = _report(_TEXT[0], refs=True)
    doc.pages[2] = Page(3, "Tese apresentada à banca examinadora em março de 2020.")
    assert looks_academic(doc)


def test_the_printed_number_wins_when_it_has_twice_the_votes_of_any_other() -> None:
    pages = [[_TEXT[k], str(k + 1)] for k in range(4)] + [[_TEXT[4], "7"], [_TEXT[5], "8"]]
    # four pages print their own number, two print a number two ahead of theirs
    assert printed_page_offset(pages, [1, 2, 3, 4, 5, 6]) == 0
    pages[3][1] = "6"  # three against three: no offset can be trusted
    assert printed_page_offset(pages, [1, 2, 3, 4, 5, 6]) is None
