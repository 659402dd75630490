"""Which context words a dispositivo gets, word for word: the norm's ementa (the part of the
context before " | "), then for a paragraph or inciso its article's caput and heading, for the
caput its heading alone; each word once, in that order, only if the dispositivo's own title,
path, heading and text lack it (any case), never a number; nothing for a passage that names no
article."""

from __future__ import annotations

from colmeia.rag.context_terms import article_path, context_terms
from colmeia.store import StoredChunk

CONTEXT = "Regula o processo administrativo 9784 | DO RECURSO | Seção II"
CAPUT = StoredChunk("c#0", "c", 0, "É de dez dias o prazo de recurso.", path="Lei 1/2020, Art. 5")
PARAGRAPH = StoredChunk(
    "p#0", "p", 0, "O prazo poderá ser prorrogado.", path="Lei 1/2020, Art. 5, § 1º"
)


def _docs(**extra: str) -> dict[str, dict[str, str]]:
    meta = {"context": CONTEXT, "heading": "DO RECURSO", **extra}
    return {"c": {**meta, "path": CAPUT.path}, "p": {**meta, "path": PARAGRAPH.path}}


def test_the_caput_gets_the_ementa_and_its_heading_the_paragraph_the_caput_too() -> None:
    caput, paragraph = context_terms([CAPUT, PARAGRAPH], _docs())
    # "o", "prazo", "recurso" are the caput's own words; 9784 is a number
    assert caput == "Regula processo administrativo DO"
    assert paragraph == "Regula processo administrativo É de dez dias recurso DO"


def test_the_caput_is_found_wherever_it_comes_in_the_list() -> None:
    paragraph, caput = context_terms([PARAGRAPH, CAPUT], _docs())
    assert paragraph == "Regula processo administrativo É de dez dias recurso DO"
    assert caput == "Regula processo administrativo DO"


def test_a_paragraph_whose_caput_is_not_among_the_chunks_gets_the_ementa_alone() -> None:
    (paragraph,) = context_terms([PARAGRAPH], _docs())
    assert paragraph == "Regula processo administrativo"


def test_the_first_caput_of_an_article_is_the_one_used() -> None:
    second = StoredChunk("c2#0", "c2", 0, "Texto repetido do caput.", path="Lei 1/2020, Art. 5")
    docs = {**_docs(), "c2": {"path": "Lei 1/2020, Art. 5"}}
    _, _, paragraph = context_terms([CAPUT, second, PARAGRAPH], docs)
    assert paragraph == "Regula processo administrativo É de dez dias recurso DO"


def test_the_dispositivos_title_path_and_heading_count_as_its_own_words() -> None:
    chunk = StoredChunk(
        "p#0",
        "p",
        0,
        "O prazo poderá ser prorrogado.",
        path="Lei 1/2020, Art. 5, § 1º",
        heading="Processo",
        title="Regula",
    )
    _, paragraph = context_terms([CAPUT, chunk], _docs())
    assert paragraph == "administrativo É de dez dias recurso DO"


def test_the_chunks_own_path_and_heading_stand_in_for_missing_metadata() -> None:
    caput = StoredChunk(
        "c#0",
        "c",
        0,
        "É de dez dias o prazo de recurso.",
        path=" Lei 1/2020, Art. 5 ",
        heading="DAS DISPOSIÇÕES GERAIS",
    )
    paragraph = StoredChunk(
        "p#0", "p", 0, "O prazo poderá ser prorrogado.", path="Lei 1/2020, Art. 5, § 1º"
    )
    docs = {"c": {"context": CONTEXT}, "p": {"context": CONTEXT}}
    caput_words, paragraph_words = context_terms([caput, paragraph], docs)
    assert caput_words == "Regula processo administrativo"  # its heading is its own
    assert paragraph_words == (
        "Regula processo administrativo É de dez dias recurso DAS DISPOSIÇÕES GERAIS"
    )


def test_without_an_ementa_or_a_document_entry_the_words_come_from_the_caput_alone() -> None:
    caput, paragraph = context_terms([CAPUT, PARAGRAPH], {"c": {"heading": "DO RECURSO"}})
    assert caput == "DO"
    assert paragraph == "É de dez dias recurso DO"


def test_a_passage_that_names_no_article_gets_nothing_and_the_next_still_gets_its_words() -> None:
    report = StoredChunk("r#0", "r", 0, "Relatório anual.", path="Relatório 2020")
    docs = {"r": {"context": CONTEXT}, **_docs()}
    assert context_terms([report, CAPUT], docs) == ["", "Regula processo administrativo DO"]


def test_the_documents_path_stands_for_a_chunk_without_one() -> None:
    caput = StoredChunk("c#0", "c", 0, CAPUT.text)
    paragraph = StoredChunk("p#0", "p", 0, PARAGRAPH.text)
    # the document's path wins over the chunk's own when both are there
    stale = StoredChunk("q#0", "q", 0, PARAGRAPH.text, path="Relatório 2020")
    docs = {**_docs(), "q": {"path": PARAGRAPH.path}}
    assert context_terms([caput, paragraph, stale], docs) == [
        "Regula processo administrativo DO",
        "Regula processo administrativo É de dez dias recurso DO",
        "É de dez dias recurso DO",
    ]


def test_the_article_of_a_citation_path() -> None:
    assert article_path("Lei 9.784/1999, Art. 59, § 1º") == "Lei 9.784/1999, Art. 59"
    assert article_path("  Lei 9.784/1999, Art. 59  ") == "Lei 9.784/1999, Art. 59"
    assert article_path("Lei 9.784/1999, Art. 59-A, inciso II") == "Lei 9.784/1999, Art. 59-A"
    assert article_path("Relatório 2020") == ""
