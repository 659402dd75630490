"""What the dispatcher reads off a turn's words, with no registry (issue 33): a question of
what is allowed, a case's time stood told, a case said with the definite article, the year a
reply names, the listed case a short reply picks and the article a part follow-up leaves
unsaid."""

from __future__ import annotations

import datetime as dt

import pytest

from colmeia.apps.assistant.case_refs import CaseResolution, read_case_refs
from colmeia.apps.assistant.dispatch_readings import (
    _clause_aspect,
    _definite,
    _filed,
    _only_year,
    _part_asked,
    _pick,
    _year_described,
    _year_said,
    asks_what_is_allowed,
    tells_time_stood,
)


@pytest.mark.parametrize(
    "text",
    [
        "a câmara pode derrubar o veto do prefeito?",
        "É obrigada a divulgar os contratos mesmo sem ninguém pedir?",
        "precisa de quantos votos pra rejeitar o parecer?",
        "o prefeito tem que devolver o dinheiro?",
        "é PROIBIDO contratar parente?",
    ],
)
def test_a_question_of_what_may_or_must_be_done_asks_what_is_allowed(text: str) -> None:
    assert asks_what_is_allowed(text) is True


@pytest.mark.parametrize(
    "text",
    ["qual o andamento do processo 4506/2023?", "quem é o relator?", "já foi julgado?"],
)
def test_a_question_of_what_happened_does_not(text: str) -> None:
    assert asks_what_is_allowed(text) is False


@pytest.mark.parametrize(
    "text",
    [
        "tá no ministério público desde julho?? a lei deixa o parecer ficar parado assim?",
        "faz mais de um ano… vcs não tinham prazo pra decidir?",
        "Há três meses esperando resposta, é normal?",
        "o processo tá PARADO no gabinete",
    ],
)
def test_a_case_standing_still_told_is_read(text: str) -> None:
    assert tells_time_stood(text) is True


@pytest.mark.parametrize(
    "text",
    ["e se demorarem pra decidir?", "qual o prazo pra julgar as contas?", "quem é o relator?"],
)
def test_a_delay_supposed_or_not_told_is_not(text: str) -> None:
    assert tells_time_stood(text) is False


@pytest.mark.parametrize(
    "text",
    ["em que pé está o processo?", "esse caso já foi julgado?", "E NO PROCESSO, quem relata?"],
)
def test_a_case_said_with_the_definite_article_alone(text: str) -> None:
    assert _definite(text) is True


@pytest.mark.parametrize(
    "text",
    [
        "o processo da merenda já foi julgado?",
        "o processo contra a prefeitura de Socorro",
        "tem um processo sobre as diárias?",
        "qual processo? o processo já saiu?",
        "bom dia, tudo bem?",
    ],
)
def test_a_case_restricted_or_to_be_found_is_not_definite(text: str) -> None:
    assert _definite(text) is False


@pytest.mark.parametrize(
    ("text", "year"),
    [
        ("o das contas de 2021", 2021),
        ("o de 1999", 1999),
        ("4506 de 2023", None),
        ("o de 2100", None),
        ("o das diárias", None),
        ("o 45", None),
    ],
)
def test_only_year_is_the_one_number_typed_when_it_is_a_year(text: str, year: int | None) -> None:
    assert _only_year(text) == year


@pytest.mark.parametrize(
    ("text", "year"),
    [
        ("o de 2023", 2023),
        ("é de 2021", 2021),
        ("2024", 2024),
        ("contas exercício 2021 ok", 2021),
        ("contas do exercício 2021 ok", None),
        ("o de 2023 que eu falei antes mesmo", 2023),
        ("quero saber das contas do exercício 2021 por favor", None),
        ("4506 de 2023", None),
        ("e o de ontem?", None),
    ],
)
def test_the_year_a_short_reply_names(text: str, year: int | None) -> None:
    assert _year_said(text) == year


def test_filed_reads_year_and_number_of_either_form() -> None:
    assert _filed("TC/004506/2023") == (2023, 4506)
    assert _filed("EXP-2022-00010") == (2022, 10)
    assert _filed("4506/2023") is None
    assert _filed("TC/004506/23") is None


OPTIONS = ["TC/004506/2023", "TC/000615/2024", "TC/003098/2023"]


@pytest.mark.parametrize(
    ("text", "picked"),
    [
        ("o mais antigo", "TC/003098/2023"),
        ("O MAIS VELHO", "TC/003098/2023"),
        ("o mais recente", "TC/000615/2024"),
        ("o mais novo", "TC/000615/2024"),
        ("o de 2024", "TC/000615/2024"),
        ("o de 2024 que eu tinha falado", "TC/000615/2024"),
        ("o de 2023", None),
        ("2024", "TC/000615/2024"),
        ("foi em 2024 ok", "TC/000615/2024"),
        ("foi em 2024 isso mesmo", None),
        ("2023", None),
        ("o segundo", "TC/000615/2024"),
        ("o primeiro", "TC/004506/2023"),
        ("o último", "TC/003098/2023"),
        ("o quarto", None),
        ("o 4506", "TC/004506/2023"),
        ("é o 3098, esse", "TC/003098/2023"),
        ("o 9999", None),
        ("sei lá", None),
    ],
)
def test_the_listed_case_a_reply_picks(text: str, picked: str | None) -> None:
    assert _pick(text, OPTIONS) == picked


def test_nothing_is_picked_from_no_options() -> None:
    assert _pick("o primeiro", []) is None


def test_the_last_of_one_option_is_it() -> None:
    assert _pick("o último", ["TC/004506/2023"]) == "TC/004506/2023"


def test_by_age_across_both_forms_of_identifier() -> None:
    options = ["TC/004506/2023", "EXP-2022-00010"]
    assert _pick("o mais antigo", options) == "EXP-2022-00010"
    assert _pick("o mais recente", options) == "TC/004506/2023"


def test_by_age_needs_every_option_dated() -> None:
    assert _pick("o mais antigo", ["TC/004506/2023", "615/2024"]) is None


def test_a_number_that_is_also_an_ordinal_picks_by_number_beside_a_year() -> None:
    options = ["TC/000002/2023", "TC/004506/2023", "TC/000615/2024"]
    assert _pick("o 2/2023", options) == "TC/000002/2023"


def test_a_number_shared_by_two_options_picks_none() -> None:
    assert _pick("o 615", ["TC/000615/2023", "TC/000615/2024"]) is None


def test_a_part_follow_up_takes_the_article_asked_before() -> None:
    asked = _part_asked("e o inciso 55?", "CF", "o art. 5º inciso 33 da CF")
    assert asked == "e o inciso 55 do art. 5? (CF)"
    spaced = _part_asked("e o inciso 55 ?", "CF", "e o artigo 37?")
    assert spaced == "e o inciso 55 do art. 37? (CF)"


def test_a_part_in_roman_numerals_keeps_its_numeral() -> None:
    asked = _part_asked("e o inciso X?", "CF", "o art. 5º inciso LV da CF")
    assert asked == "e o inciso X do art. 5? (CF)"


def test_a_part_follow_up_naming_its_article_is_kept() -> None:
    asked = _part_asked("e o art. 37 inciso 2?", "CF", "o art. 5º inciso 33 da CF")
    assert asked == "e o art. 37 inciso 2? (CF)"


def test_a_part_follow_up_without_an_article_before_is_kept() -> None:
    asked = _part_asked("e o paragrafo unico?", "Lei 14.133/2021", "o que diz a lei de licitações?")
    assert asked == "e o paragrafo unico? (Lei 14.133/2021)"


def test_the_year_a_case_was_described_by() -> None:
    found = {
        "cases": [
            {"number": 4506, "subject": "Prestação de contas do exercício de 2021"},
            {"number": "615/2024", "subject": "Contas de 2022"},
            {"number": "3098/2023", "subject": None},
        ]
    }
    assert _year_described("as contas de 2021 de Cachoeira do Sul", found) == "4506"
    assert _year_described("as contas de Cachoeira do Sul", found) is None
    assert _year_described("as contas de 2019", found) is None
    assert _year_described("as contas de 2021", {"cases": None}) is None
    assert _year_described("as contas de 2021", {}) is None
    twice = {"cases": [*found["cases"], {"number": "7/2022", "subject": "Contas 2021"}]}
    assert _year_described("as contas de 2021", twice) is None


def _aspects(text: str, whole: str = "deadlines") -> list[str]:
    refs = read_case_refs(text, today=dt.date(2026, 12, 1))
    typed = [CaseResolution(ref, "found") for ref in refs]
    return [_clause_aspect(text, typed, n, whole) for n in range(len(typed))]


@pytest.mark.parametrize(
    ("text", "aspects"),
    [
        # each case asked its own thing, the clauses parted at the last "e" between them
        ("quem é o relator do 615/24 e se o 3098/2023 já teve defesa", ["rapporteur", "documents"]),
        ("o 615/24 já foi julgado e o 3098/2023 quem relata?", ["judgement", "rapporteur"]),
        # nothing between two cases parts them: the first case's clause ends with it
        ("quem relata o 615/24, o 3098/2023 tá em que situação?", ["rapporteur", "status"]),
        (
            "quem relata o 4506/2023 e o 615/24, o 3098/2023 tá em que situação?",
            ["rapporteur", "status", "status"],
        ),
        # a clause not read as a case's asks what the whole message asks
        (
            "o que diz a lei sobre o 615/2024 e o 3098/2023 quem relata?",
            ["deadlines", "rapporteur"],
        ),
    ],
)
def test_each_typed_case_is_asked_in_its_own_clause(text: str, aspects: list[str]) -> None:
    assert _aspects(text) == aspects
