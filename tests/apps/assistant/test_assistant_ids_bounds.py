"""The edges of a case identifier: the year range, the digit limits and the messages a person reads.

Years run from 1990 (the first year of the registry) to the current year: a case cannot be
from next year, and a typo such as 1989 is refused rather than looked up.
"""

from __future__ import annotations

import datetime as dt

import pytest

from colmeia.apps.assistant.ids import (
    CaseId,
    IdentifierError,
    IdentifierProblem,
    find_case_ids,
    mentions_case_words,
    parse_case_id,
)

TODAY = dt.date(2026, 11, 24)


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("TC 12/1990", CaseId("process", 12, 1990)),
        ("TC 12/2026", CaseId("process", 12, 2026)),
        ("EXP-1990-00012", CaseId("expediente", 12, 1990)),
        ("EXP-2026-00012", CaseId("expediente", 12, 2026)),
        ("expediente 12/1990", CaseId("expediente", 12, 1990)),
        ("expediente 12/2026", CaseId("expediente", 12, 2026)),
    ],
)
def test_the_first_and_the_current_year_are_accepted(typed: str, expected: CaseId) -> None:
    assert parse_case_id(typed, today=TODAY) == expected


@pytest.mark.parametrize(
    "typed", ["TC 12/1989", "TC 12/2027", "EXP-1989-00012", "EXP-2027-00012", "exp 12/2027"]
)
def test_a_year_before_1990_or_after_the_current_one_is_refused(typed: str) -> None:
    with pytest.raises(IdentifierError) as err:
        parse_case_id(typed, today=TODAY)
    assert err.value.code == "year_range"
    assert "outside 1990–2026" in str(err.value)


def test_without_a_date_given_next_year_is_refused_and_this_year_accepted() -> None:
    year = dt.date.today().year
    assert parse_case_id(f"TC 5/{year}").year == year
    with pytest.raises(IdentifierError, match="is outside 1990"):
        parse_case_id(f"TC 5/{year + 1}")


def test_the_number_may_have_six_digits_for_a_process_and_five_for_an_expediente() -> None:
    assert parse_case_id("TC/123456/2020", today=TODAY).canonical == "TC/123456/2020"
    assert parse_case_id("EXP-2020-12345", today=TODAY).canonical == "EXP-2020-12345"
    with pytest.raises(IdentifierError) as err:
        parse_case_id("EXP-2020-123456", today=TODAY)
    assert err.value.code == "too_long"
    assert "more than 5 digits" in str(err.value)
    with pytest.raises(IdentifierError) as err:
        parse_case_id("TC/1234567/2020", today=TODAY)
    assert "more than 6 digits" in str(err.value)


def test_the_message_names_what_was_typed_the_kind_and_the_reason() -> None:
    with pytest.raises(IdentifierError) as err:
        parse_case_id("TC 0/2020", today=TODAY)
    assert str(err.value) == (
        "'TC 0/2020' is not a valid process number (TC/XXXXXX/YYYY): the number cannot be zero"
    )
    assert (err.value.text, err.value.kind) == ("TC 0/2020", "process")
    with pytest.raises(IdentifierError) as err:
        parse_case_id("exp 2020 0", today=TODAY)
    assert str(err.value) == (
        "'exp 2020 0' is not a valid expediente number (EXP-YYYY-XXXXX): the number cannot be zero"
    )
    with pytest.raises(IdentifierError) as err:
        parse_case_id("tc 1234/24", today=TODAY)
    assert err.value.reason == "the year must have four digits (e.g. 2024), not '24'"


def test_empty_unknown_and_several_identifiers_are_refused_with_their_own_message() -> None:
    with pytest.raises(IdentifierError) as err:
        parse_case_id("   ", today=TODAY)
    assert (err.value.code, err.value.reason, err.value.kind) == ("empty", "it is empty", None)
    assert "case number (TC/XXXXXX/YYYY or EXP-YYYY-XXXXX)" in str(err.value)
    with pytest.raises(IdentifierError) as err:
        parse_case_id("  a lei 8.666/1993 ", today=TODAY)
    assert err.value.text == "a lei 8.666/1993"
    assert err.value.reason == ("expected TC/XXXXXX/YYYY (process) or EXP-YYYY-XXXXX (expediente)")
    with pytest.raises(IdentifierError) as err:
        parse_case_id(" TC 1/2020 e TC 2/2021 ", today=TODAY)
    assert (err.value.text, err.value.code) == ("TC 1/2020 e TC 2/2021", "several")
    assert err.value.reason == "it holds more than one identifier; give one"


def test_a_problem_found_in_a_sentence_keeps_what_was_typed_and_why() -> None:
    found = find_case_ids("veja o TC 7/2031 e o EXP-2031-00001", today=TODAY)
    assert found == [
        IdentifierProblem(
            "TC 7/2031", "the year 2031 is outside 1990–2026", "process", "year_range"
        ),
        IdentifierProblem(
            "EXP-2031-00001", "the year 2031 is outside 1990–2026", "expediente", "year_range"
        ),
    ]
    assert found[1].message_pt == (
        "“EXP-2031-00001” não é um número válido de expediente (formato EXP-AAAA-XXXXX): "
        "o ano deve estar entre 1990 e o ano corrente."
    )


def test_identifiers_come_back_in_the_order_written_each_once() -> None:
    text = "EXP-2024-00002, depois TC 5/2020, de novo EXP-2024-00002 e o exp 2023 7"
    assert find_case_ids(text, today=TODAY) == [
        CaseId("expediente", 2, 2024),
        CaseId("process", 5, 2020),
        CaseId("expediente", 7, 2023),
    ]


def test_an_expediente_written_number_first_is_read_either_way() -> None:
    assert parse_case_id("expediente 2020/2021", today=TODAY) == CaseId("expediente", 2020, 2021)
    assert parse_case_id("EXP-2021-2020", today=TODAY) == CaseId("expediente", 2020, 2021)
    with pytest.raises(IdentifierError) as err:
        parse_case_id("exp 123 45", today=TODAY)
    assert err.value.code == "year_digits"


def test_talk_about_a_case_is_recognised_and_a_law_is_not() -> None:
    assert mentions_case_words("qual o andamento do meu processo?")
    assert not mentions_case_words("o que diz o processo legislativo sobre isso?")


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        # both parts four digits, number first: the year is the one that can be a year
        ("expediente 2020/1990", "EXP-1990-02020"),
        ("expediente 2020/2026", "EXP-2026-02020"),
        ("EXP-0123-2024", "EXP-2024-00123"),
        ("expediente 1.234/2024", "EXP-2024-01234"),
    ],
)
def test_number_first_expedientes_with_four_digit_numbers(typed: str, canonical: str) -> None:
    assert parse_case_id(typed, today=TODAY).canonical == canonical


def test_the_exact_messages_for_an_empty_text_and_a_three_digit_year() -> None:
    with pytest.raises(IdentifierError) as err:
        parse_case_id("   ", today=TODAY)
    assert str(err.value) == (
        "'   ' is not a valid case number (TC/XXXXXX/YYYY or EXP-YYYY-XXXXX): it is empty"
    )
    with pytest.raises(IdentifierError) as err:
        parse_case_id("tc 1234/024", today=TODAY)
    assert err.value.reason == "the year must have four digits (e.g. 2024), not '024'"


def test_the_date_given_is_the_one_used_for_the_current_year() -> None:
    later = dt.date(2030, 1, 1)
    assert parse_case_id("TC 5/2029", today=later).year == 2029
    assert parse_case_id("EXP-2029-00005", today=later).year == 2029
