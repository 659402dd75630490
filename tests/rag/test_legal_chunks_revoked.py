"""A law whose articles are partly revoked or vetoed: what stays in force is found at every
granularity, and what is no longer law is found at none."""

from __future__ import annotations

import pytest

from colmeia.rag.ingest import LegalChunker
from colmeia.rag.types import ExtractedDocument, Page

LEI = """LEI Nº 7.777, DE 2 DE MAIO DE 2021

Art. 1º Esta Lei regula a guarda de documentos:
I - (Revogado).
II - os originais ficam com o órgão emissor.
§ 1º (VETADO).
§ 2º A cópia autenticada vale como original.
Art. 2º (Revogado).
Art. 3º O prazo de guarda é de cinco anos.
Parágrafo único. (Revogado pela Lei nº 8.888, de 2022).
TÍTULO II
Art. 4º Esta Lei entra em vigor na data de sua publicação.
"""


def chunks_of(granularity: str) -> list[tuple[str, str]]:
    doc = ExtractedDocument(source_id="lei7777", title="x", pages=[Page(1, LEI)], content_hash="h")
    chunker = LegalChunker(label="Lei 7.777/2021", granularity=granularity)  # type: ignore[arg-type]
    return [(c.metadata["granularity"], c.path) for c in chunker.chunk(doc)]


def test_an_article_with_a_revoked_part_keeps_its_whole_article_chunk() -> None:
    # a reader who asks for "Art. 1º" as a whole gets it although its inciso I and § 1º are gone
    articles = [path for kind, path in chunks_of("artigo") if kind == "artigo"]
    assert articles == [
        "Lei 7.777/2021, Art. 1º",
        "Lei 7.777/2021, Art. 3º",
        "Lei 7.777/2021, Art. 4º",
    ]


def test_dispositivo_chunks_skip_exactly_the_revoked_and_vetoed_ones() -> None:
    paths = [path for kind, path in chunks_of("dispositivo") if ", Art." in path]
    assert paths == [
        "Lei 7.777/2021, Art. 1º",
        "Lei 7.777/2021, Art. 1º, inciso II",
        "Lei 7.777/2021, Art. 1º, § 2º",
        "Lei 7.777/2021, Art. 3º",
        "Lei 7.777/2021, Art. 4º",
    ]


@pytest.mark.parametrize("granularity", ["dispositivo", "artigo", "both"])
def test_no_granularity_answers_with_a_revoked_article(granularity: str) -> None:
    assert not [p for _, p in chunks_of(granularity) if p.endswith("Art. 2º")]


def test_both_granularities_together_are_the_union_of_each_alone() -> None:
    both = chunks_of("both")
    assert sorted(p for k, p in both if k == "dispositivo") == sorted(
        p for k, p in chunks_of("dispositivo") if k == "dispositivo"
    )
    assert [p for k, p in both if k == "artigo"] == [
        p for k, p in chunks_of("artigo") if k == "artigo"
    ]
    # reading order: each article chunk follows the dispositivos it groups
    assert both.index(("artigo", "Lei 7.777/2021, Art. 1º")) > both.index(
        ("dispositivo", "Lei 7.777/2021, Art. 1º, § 2º")
    )


CONSTITUICAO = """Art. 249. (Revogado).
§ 1º O fundo subsiste até a sua liquidação.
Art. 250. Com o objetivo de assegurar recursos, a União poderá constituir fundos.
ATO DAS DISPOSIÇÕES CONSTITUCIONAIS TRANSITÓRIAS
Promulgado junto com a Constituição.
Art. 1º O Presidente da República prestará o compromisso.
"""


def test_an_article_whose_caput_is_revoked_keeps_the_paragraph_still_in_force() -> None:
    doc = ExtractedDocument(
        source_id="cf", title="x", pages=[Page(1, CONSTITUICAO)], content_hash="h"
    )
    chunks = LegalChunker(label="CF", granularity="artigo").chunk(doc)
    art_249 = [c for c in chunks if c.path == "CF, Art. 249"]
    assert len(art_249) == 1 and "subsiste" in art_249[0].text


def test_an_article_chunk_ends_where_the_transitory_provisions_begin() -> None:
    doc = ExtractedDocument(
        source_id="cf", title="x", pages=[Page(1, CONSTITUICAO)], content_hash="h"
    )
    chunks = LegalChunker(label="CF", granularity="artigo").chunk(doc)
    (art_250,) = [c for c in chunks if c.path == "CF, Art. 250"]
    assert art_250.text.endswith("poderá constituir fundos.")
    assert [c.path for c in chunks if "Promulgado" in c.text] == ["CF, ADCT"]


def test_an_unknown_granularity_is_refused_naming_the_ones_there_are() -> None:
    with pytest.raises(
        ValueError, match=r"^granularity must be 'dispositivo', 'artigo' or 'both'$"
    ):
        LegalChunker(granularity="paragrafo")  # type: ignore[arg-type]


def test_a_law_that_starts_with_a_blank_line_is_read_the_same() -> None:
    def paths(text: str) -> list[str]:
        doc = ExtractedDocument(source_id="l", title="x", pages=[Page(1, text)], content_hash="h")
        return [c.path for c in LegalChunker(label="L").chunk(doc)]

    assert paths("\n" + LEI) == paths(LEI)
    assert "L, Art. 3º" in paths("\n" + LEI)
