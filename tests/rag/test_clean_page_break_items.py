"""A paragraph the page break split is joined back, and only then: a law's next item (alínea,
inciso, parágrafo, artigo) that opens the next page stays its own paragraph, however the page
above ended; a heading never takes the next page's first paragraph.

Pages go through :func:`clean_pages` as the extractor gives them (one string per page, lines
separated by newlines)."""

from __future__ import annotations

import pytest

from colmeia.rag.ingest.clean import clean_pages
from colmeia.rag.types import Page

# the inciso is cut by the page break mid-sentence, at the right margin
_ABOVE = (
    "Art. 5º Compete ao órgão gestor do programa, observadas as normas gerais desta lei e\n"
    "do seu regulamento, as seguintes atribuições no âmbito do sistema nacional:\n"
    "II - aplicar as sanções previstas nesta lei, assegurados o contraditório e a"
)


@pytest.mark.parametrize(
    "item",
    [
        "a) advertência por escrito ao responsável pela execução do contrato firmado;",
        "III - publicar anualmente o relatório de gestão do programa nacional;",
        "§ 2º As sanções serão aplicadas pela autoridade competente do órgão gestor.",
        "Art. 6º Esta lei entra em vigor na data de sua publicação oficial.",
        "Parágrafo único. O regulamento disporá sobre os prazos de defesa previstos.",
        "1. Relatório anual de gestão do programa, publicado no sítio do órgão gestor.",
    ],
    ids=["alinea", "inciso", "paragrafo", "artigo", "paragrafo-unico", "numbered"],
)
def test_an_item_opening_the_next_page_is_not_glued_to_the_item_the_break_cut(
    item: str,
) -> None:
    first, second = clean_pages([Page(1, _ABOVE), Page(2, item)])
    assert first.text.endswith("assegurados o contraditório e a")
    assert second.text == item
    assert first.carry == 0


def test_the_rest_of_a_sentence_on_the_next_page_joins_it_and_is_counted_as_carried() -> None:
    rest = "ampla defesa, nos termos do regulamento."
    first, second = clean_pages(
        [Page(1, _ABOVE), Page(2, rest + "\nIII - publicar o relatório anual.")]
    )
    assert first.text.endswith("assegurados o contraditório e a " + rest)
    assert (first.carry, first.carry_page) == (len(rest) + 1, 2)
    assert second.text == "III - publicar o relatório anual."


@pytest.mark.parametrize(
    ("head", "joined"),
    [
        # a capitalised start continues a sentence cut after a lower-case word only when it
        # is a long line of running text, not a heading
        (
            "Brasil e nas demais unidades da federação, conforme o plano nacional de educação vigente.",
            True,
        ),
        ("Brasil", False),
        ("CAPÍTULO III", False),
    ],
)
def test_a_capitalised_first_line_continues_only_a_long_sentence(head: str, joined: bool) -> None:
    above = "A pesquisa analisou a oferta de vagas na educação infantil em diferentes regiões do"
    pages = clean_pages([Page(1, above), Page(2, head)])
    if joined:
        assert [p.text for p in pages] == [f"{above} {head}"]
    else:
        assert [p.text for p in pages] == [above, head]


def test_a_short_heading_at_a_pages_foot_does_not_take_the_next_pages_paragraph() -> None:
    heading = "Das disposições gerais"
    body = "aplicam-se as normas desta seção aos contratos firmados a partir de sua vigência."
    pages = clean_pages([Page(1, heading), Page(2, body)])
    assert [p.text for p in pages] == [heading, body]


@pytest.mark.parametrize("end", [".", ";", ":", "!", "?", "…", ".”", ")."])
def test_a_page_whose_last_sentence_ended_is_not_joined_to_the_next(end: str) -> None:
    above = "Os dados foram analisados por meio da análise de conteúdo de Bardin" + end
    below = "e as categorias foram definidas a priori pelos pesquisadores da equipe."
    pages = clean_pages([Page(1, above), Page(2, below)])
    assert [p.text for p in pages] == [above, below]


_OPEN = "Os autores retomam a discussão sobre a formação docente, a carreira e a remuneração,"


@pytest.mark.parametrize(
    ("head", "joined"),
    [
        ("CAPÍTULO 2", False),  # a new chapter, whatever the comma above asks
        ("INTRODUÇÃO", False),
        ("REFERÊNCIAS", False),
        ("(BRASIL, 2010), que orientam as políticas de valorização do magistério.", True),
        ("Freire e Saviani, que orientam as políticas de valorização do magistério.", True),
    ],
)
def test_a_sentence_cut_after_a_comma_takes_the_next_page_unless_a_section_opens_it(
    head: str, joined: bool
) -> None:
    pages = clean_pages([Page(1, _OPEN), Page(2, head)])
    assert [p.text for p in pages] == ([f"{_OPEN} {head}"] if joined else [_OPEN, head])


def test_a_word_the_page_break_cut_is_joined_without_its_hyphen() -> None:
    above = "O relatório foi publicado pelo Ministério da Educação e pelo Ministério da Ciên-"
    (page,) = clean_pages([Page(1, above), Page(2, "cia e Tecnologia em 2019.")])
    assert page.text.endswith("Ministério da Ciência e Tecnologia em 2019.")


@pytest.mark.parametrize(
    ("above", "head", "joined"),
    [
        # a parenthesis goes on with the sentence, short as it may be
        ("Os dados vêm do censo escolar mais recente", "(INEP, 2020), já consolidado.", True),
        # after a number or an acronym a capitalised line is not known to continue
        (
            "A meta de atendimento escolar foi fixada pela Lei nº 13.005",
            "Brasil e nas demais unidades da federação, conforme o plano nacional de educação.",
            False,
        ),
    ],
)
def test_what_ends_the_page_above_and_opens_the_next_decides_the_join(
    above: str, head: str, joined: bool
) -> None:
    pages = clean_pages([Page(1, above), Page(2, head)])
    assert [p.text for p in pages] == ([f"{above} {head}"] if joined else [above, head])


def test_a_name_cut_at_its_hyphen_by_the_page_break_is_joined_whatever_follows() -> None:
    above = "A pesquisa acompanhou as escolas da rede durante a pandemia de COVID-"
    (page,) = clean_pages([Page(1, above), Page(2, "19 e depois dela.")])
    assert page.text.endswith("pandemia de COVID-19 e depois dela.")


@pytest.mark.parametrize(("blanks", "joined"), [(1, True), (2, True), (3, False)])
def test_the_rest_of_a_paragraph_is_found_past_up_to_two_pages_without_text(
    blanks: int, joined: bool
) -> None:
    # a float page (a table or figure alone) or a blank page may lie between a paragraph and
    # its rest; three such pages are no longer a break inside one paragraph
    above = "A pesquisa analisou a oferta de vagas na educação infantil em diferentes regiões do"
    rest = "país, com dados do censo escolar."
    pages = [Page(1, above), *(Page(2 + k, "") for k in range(blanks)), Page(2 + blanks, rest)]
    cleaned = clean_pages(pages)
    if joined:
        assert [p.text for p in cleaned] == [f"{above} {rest}"]
        assert cleaned[0].carry_page == 2 + blanks
    else:
        assert [p.text for p in cleaned] == [above, rest]
