"""A figure's caption and a table's source are set apart from the running text, whole: a
caption wrapped over up to three lines (a long line that does not end a sentence, then a
line in lower case) is one paragraph, a fourth line is the text's again; a source goes on
over the addresses listed under it; a short caption or one that ended its sentence takes no
line of the text; and the text around the figure reads on as one paragraph."""

from __future__ import annotations

from colmeia.rag.ingest.clean import join_lines

_BEFORE = "As escolas visitadas estão distribuídas de forma desigual entre as regiões do estado,"
_AFTER = "com maior concentração na região metropolitana e no litoral norte do estado."
_TEXT = f"{_BEFORE} {_AFTER}"
_CAPTION = [
    "Figura 1 – Distribuição das escolas visitadas por região administrativa do estado",
    "segundo o censo escolar de 2019 e as listas fornecidas pela secretaria de educação",
    "com as escolas rurais e indígenas contadas à parte das escolas urbanas da rede",
]
_SOURCE = [
    "Fonte: Censo Escolar (INEP, 2019). Disponível em:",
    "<http://inep.gov.br/censo-escolar>",
    "www.inep.gov.br/dados.",
]


def test_a_caption_wrapped_over_three_lines_is_one_paragraph_apart() -> None:
    assert join_lines([_BEFORE, *_CAPTION, _AFTER]) == [_TEXT, " ".join(_CAPTION)]
    assert join_lines([_BEFORE, *_CAPTION[:2], _AFTER.capitalize()]) == [
        f"{_BEFORE} {_AFTER.capitalize()}",
        " ".join(_CAPTION[:2]),
    ]


def test_a_fourth_lower_case_line_after_a_caption_is_running_text() -> None:
    out = join_lines([_BEFORE, *_CAPTION, *_CAPTION[1:2], _AFTER])
    assert out == [f"{_BEFORE} {_CAPTION[1]} {_AFTER}", " ".join(_CAPTION)]


def test_a_short_caption_or_one_that_ended_takes_no_line_of_the_text() -> None:
    short = "Figura 2 – Mapa das escolas da rede estadual de ensino"  # under 60 characters
    assert join_lines([_BEFORE, short, _AFTER]) == [_TEXT, short]
    ended = _CAPTION[0] + "."
    assert join_lines([_BEFORE, ended, _AFTER]) == [_TEXT, ended]
    sixty = "Figura 3 – Número de escolas visitadas em cada mês do ano de"
    assert len(sixty) == 60
    # sixty characters are long enough to wrap
    assert join_lines([_BEFORE, sixty, "ao longo de 2019.", _AFTER]) == [
        _TEXT,
        f"{sixty} ao longo de 2019.",
    ]


def test_a_source_goes_on_over_the_addresses_listed_under_it() -> None:
    out = join_lines([_BEFORE, *_SOURCE, _AFTER])
    assert out == [_TEXT, " ".join(_SOURCE)]
    table = ["Tabela 1 – Escolas visitadas por região.", "Norte e Sul, em números"]
    out = join_lines([_BEFORE, *table, *_SOURCE, _AFTER])
    assert out == [_TEXT, table[0], table[1], " ".join(_SOURCE)]


def test_an_address_after_a_caption_is_not_part_of_it() -> None:
    caption = "Figura 4 – Mapa das escolas."
    out = join_lines([_BEFORE, caption, _SOURCE[1], _AFTER])
    assert out[-1] == caption
    assert _SOURCE[1] in out[0]
