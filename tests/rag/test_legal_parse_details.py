"""What a reader of a chunked law relies on beyond the plain case: headings named whatever the
accents of the source, the exact text of each dispositivo whatever its indentation, the
numbers a filter uses, and which notes take a dispositivo out of force."""

from __future__ import annotations

import pytest

from colmeia.rag.ingest import LegalChunker, parse_legal
from colmeia.rag.ingest.chunk_legal import lapsed_status, looks_like_norm
from colmeia.rag.types import Chunk, ExtractedDocument, Page


def chunks(text: str, label: str = "L") -> list[Chunk]:
    doc = ExtractedDocument(source_id="l", title="x", pages=[Page(1, text)], content_hash="h")
    return LegalChunker(label=label).chunk(doc)


def headings_of_art_1(text: str) -> list[str]:
    (art,) = [c for c in chunks(text) if c.path == "L, Art. 1º"]
    return list(art.metadata["headings"])


ACCENTED = ["LIVRO I", "TÍTULO II", "CAPÍTULO III", "SEÇÃO IV", "SUBSEÇÃO V"]
HEADINGS = ["Livro I", "Título II", "Capítulo III", "Seção IV", "Subseção V"]


@pytest.mark.parametrize(
    "spelled",
    [
        ["LIVRO I", "TITULO II", "CAPITULO III", "SECAO IV", "SUBSECAO V"],
        ["LIVRO I", "TÍTULO II", "CAPÍTULO III", "SEÇAO IV", "SUBSEÇAO V"],
        ["LIVRO I", "TÍTULO II", "CAPÍTULO III", "SECÃO IV", "SUBSECÃO V"],
        ["Livro I", "Titulo II", "Capitulo III", "Secao IV", "Subsecao V"],
    ],
)
def test_headings_typed_without_or_with_half_their_accents_are_the_same_headings(
    spelled: list[str],
) -> None:
    # a source that lost its accents (or half of them, as OCR does) keeps its hierarchy
    def text(lines: list[str]) -> str:
        return "\n".join([*lines, "Art. 1º Esta Lei regula a guarda."])

    assert headings_of_art_1(text(spelled)) == headings_of_art_1(text(ACCENTED)) == HEADINGS


def test_a_heading_name_on_its_line_is_part_of_the_heading_without_its_emphasis() -> None:
    law = "\n".join(
        [
            "**CAPÍTULO IV — DAS DISPOSIÇÕES DO ANEXO X**",
            "TÍTULO I",
            "DOS DIREITOS",
            "Art. 1º Esta Lei regula a guarda.",
        ]
    )
    # a new title closes the chapter of the previous one
    assert headings_of_art_1(law) == ["Título I: DOS DIREITOS"]
    law = "**CAPÍTULO IV — DAS DISPOSIÇÕES DO ANEXO X**\nArt. 1º Esta Lei regula a guarda."
    assert headings_of_art_1(law) == ["Capítulo IV: DAS DISPOSIÇÕES DO ANEXO X"]
    (art,) = chunks(law)
    assert art.heading == "Capítulo IV"


@pytest.mark.parametrize("end", [";", ","])
def test_a_line_ending_a_list_after_a_bare_heading_is_law_text_not_the_headings_name(
    end: str,
) -> None:
    # a page break put the heading between a list and its last item
    law = f"Art. 1º São deveres:\nI - informar;\nCAPÍTULO II\nguardar os documentos{end}\n"
    found = chunks(law)
    assert [c.text for c in found if c.metadata["kind"] == "texto"] == [
        f"guardar os documentos{end}"
    ]
    assert found[-1].metadata["headings"] == ["Capítulo II"]


def test_a_chapter_numbered_x_keeps_its_number() -> None:
    law = "CAPÍTULO X\nArt. 1º Esta Lei regula a guarda."
    assert headings_of_art_1(law) == ["Capítulo X"]


INDENTED = (
    "   Art. 1º Esta Lei regula a guarda de documentos: \n"
    "     I - os originais ficam com o órgão emissor; \n"
    "   § 1º A cópia autenticada vale como original.   \n"
    " Art. 2º Esta Lei entra em vigor na data de sua publicação.\t\n"
)


def test_a_chunk_is_exactly_its_visible_text_however_the_pdf_indented_it() -> None:
    assert [(c.path, c.text) for c in chunks(INDENTED)] == [
        ("L, Art. 1º", "Art. 1º Esta Lei regula a guarda de documentos:"),
        ("L, Art. 1º, inciso I", "I - os originais ficam com o órgão emissor;"),
        ("L, Art. 1º, § 1º", "§ 1º A cópia autenticada vale como original."),
        ("L, Art. 2º", "Art. 2º Esta Lei entra em vigor na data de sua publicação."),
    ]


SUFFIXED = """Art. 5º-A Os dados pessoais são tratados com finalidade.
I-A - o controlador indica o encarregado;
b-A) os registros são guardados;
1. por cinco anos;
2. em meio seguro.
Art. 1.071 Este artigo tem número de milhar.
ATO DAS DISPOSIÇÕES CONSTITUCIONAIS TRANSITÓRIAS
Art. 1º O compromisso é prestado.
"""


def test_suffixed_and_thousand_numbers_and_items_are_cited_and_filtered_by_their_own_numbers() -> (
    None
):
    found = chunks(SUFFIXED)
    assert [c.path for c in found] == [
        "L, Art. 5º-A",
        "L, Art. 5º-A, inciso I-A",
        "L, Art. 5º-A, inciso I-A, alínea b-A",
        "L, Art. 5º-A, inciso I-A, alínea b-A, item 1",
        "L, Art. 5º-A, inciso I-A, alínea b-A, item 2",
        "L, Art. 1071",
        "L, ADCT, Art. 1º",
    ]
    meta = [c.metadata for c in found]
    assert [(m["kind"], m["artigo"], m["inciso"], m["alinea"], m["item"]) for m in meta] == [
        ("artigo", "5-A", None, None, None),
        ("inciso", "5-A", "1-A", None, None),
        ("alinea", "5-A", "1-A", "2-A", None),
        ("item", "5-A", "1-A", "2-A", 1),
        ("item", "5-A", "1-A", "2-A", 2),
        ("artigo", "1071", None, None, None),
        ("artigo", "1", None, None, None),
    ]
    # the transitory provisions are a part of their own; the body of the law is in none
    assert [m["part"] for m in meta] == ["", "", "", "", "", "", "ADCT"]


def test_a_citation_path_without_a_label_starts_at_the_article() -> None:
    units = [u for u in parse_legal(SUFFIXED) if u.kind == "inciso"]
    assert [u.path("") for u in units] == ["Art. 5º-A, inciso I-A"]


def test_an_abbreviation_list_in_an_article_is_not_read_as_incisos() -> None:
    # "LC" is no Roman numeral: the line belongs to the caput above it
    law = "Art. 2º Para os fins desta Lei, considera-se:\nLC - Lei Complementar;\nMP - Medida.\n"
    found = chunks(law)
    assert [c.path for c in found] == ["L, Art. 2º"]
    assert found[0].text.endswith("MP - Medida.")


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("§ 4º (Revogado).", "revogado"),
        ("VIII – (VETADO). (Incluído pela Lei nº 14.345, de 2022)", "vetado"),
        ("III – (VETADO) e (Revogado pela Lei nº 13.000)", "vetado"),
        ("§ 2º (Revogado pela Lei nº 13.467, de 2017 (Reforma Trabalhista)).", "revogado"),
        ("Parágrafo único. (Revogada).", "revogado"),
        # a note beside text in force: the dispositivo is in force
        ("§ 3º (Incluído pela Lei nº 13.000; parte vetada) A cópia vale como original.", ""),
        ("Art. 9º (Vide Medida Provisória nº 1.000, de 2020).", ""),
        ("I - a lei revogada não se restaura;", ""),
    ],
)
def test_only_a_note_of_revocation_or_veto_takes_a_dispositivo_out_of_force(
    text: str, status: str
) -> None:
    assert lapsed_status(text) == status
    law = "Art. 1º Caput.\n" + text
    assert parse_legal(law)[-1].numbers()["status"] == status
    # what is out of force gives no chunk; what is in force gives its own beside the caput
    assert len(chunks(law)) == (2 if status == "" else 1)


def test_a_short_norm_is_recognised_by_its_share_of_structural_lines_or_its_ten_articles() -> None:
    prose = "Texto explicativo de uma linha, sem estrutura alguma."
    # 3 structural lines in 20 (15 %): a norm even with only two articles
    assert looks_like_norm("\n".join(["Art. 1º A.", "§ 1º B.", "Art. 2º C.", *[prose] * 17]))
    # 4 in 20 (20 %): a norm however long the other lines are
    assert looks_like_norm(
        "\n".join(["Art. 1º A.", "I - b;", "II - c;", "Art. 2º D."] + [prose] * 16)
    )
    # ten articles in a hundred lines of commentary: a norm
    assert looks_like_norm("\n".join([f"Art. {i}º X." for i in range(1, 11)] + [prose] * 90))
    assert not looks_like_norm("\n".join([f"Art. {i}º X." for i in range(1, 10)] + [prose] * 90))
