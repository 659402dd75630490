"""Reading a person's reply to "qual é o número?": a bare ``4506/2023``, an expediente in its
canonical order without the prefix, or only the number.

``read_case_id`` is what :func:`colmeia.apps.assistant.cases.lookup_case` calls on whatever the
person typed: the strict parser first, then the lenient reading as the kind that was asked for.
A wrong year or a zero is never "fixed" by the lenient reading: the person is told what is wrong.
"""

from __future__ import annotations

import datetime as dt

import pytest

from colmeia.apps.assistant.ids import (
    CaseId,
    IdentifierError,
    bare_number,
    read_case_id,
    read_case_ids,
)

TODAY = dt.date(2026, 11, 24)
EARLY_2020 = dt.date(2020, 6, 1)


def test_a_bare_number_and_year_is_the_process_unless_an_expediente_was_asked_for() -> None:
    assert read_case_id("1950/2023", today=TODAY) == CaseId("process", 1950, 2023)
    assert read_case_id("é o 1950/2023", kind="expediente", today=TODAY) == CaseId(
        "expediente", 1950, 2023
    )
    assert read_case_id("TC/001950/2023", kind="expediente", today=TODAY) == CaseId(
        "process", 1950, 2023
    )  # a prefix says what it is, whatever was asked


def test_a_reply_with_two_bare_numbers_is_refused_not_guessed() -> None:
    with pytest.raises(IdentifierError) as err:
        read_case_id("1950/2023 ou 1951/2023", today=TODAY)
    assert err.value.code == "format"


def test_a_prefixed_number_with_a_wrong_year_is_refused_even_beside_a_good_bare_one() -> None:
    with pytest.raises(IdentifierError) as err:
        read_case_id("TC 1234/24 ou 4506/2023", today=TODAY)
    assert err.value.code == "year_digits"
    assert err.value.text == "TC 1234/24"


def test_the_date_given_decides_which_years_a_reply_may_name() -> None:
    # in mid-2020, a 2023 case does not exist yet: neither read strictly nor leniently
    with pytest.raises(IdentifierError) as err:
        read_case_id("TC/001234/2023", today=EARLY_2020)
    assert err.value.code == "year_range"
    with pytest.raises(IdentifierError):
        read_case_id("1950/2023", today=EARLY_2020)
    with pytest.raises(IdentifierError):
        read_case_id("1950/2023", kind="expediente", today=EARLY_2020)
    assert read_case_ids("TC/001234/2023", today=EARLY_2020) == []
    assert read_case_ids("TC/001234/2019", today=EARLY_2020) == [CaseId("process", 1234, 2019)]


def test_an_expediente_in_its_canonical_order_without_the_prefix() -> None:
    assert read_case_ids("é o 2024-00123", kind="expediente", today=TODAY) == [
        CaseId("expediente", 123, 2024)
    ]
    assert read_case_ids("2024/77", today=TODAY) == [CaseId("expediente", 77, 2024)]


def test_an_unusable_reading_is_skipped_and_the_next_one_read() -> None:
    # a zero expediente number, then the right one
    assert read_case_ids("2024-00000, não: 2024-00123", kind="expediente", today=TODAY) == [
        CaseId("expediente", 123, 2024)
    ]
    # a year before the registry began, then the right one
    assert read_case_ids("4506/1989 ou 4506/2023", today=TODAY) == [CaseId("process", 4506, 2023)]


def test_a_bare_number_is_not_read_from_a_reply_that_holds_a_whole_identifier() -> None:
    assert bare_number("TC/001234/2024 e o 7") is None


def test_a_bare_number_is_read_from_a_reply_of_up_to_eight_words() -> None:
    assert bare_number("acho que o número é o 4506 mesmo") == 4506  # eight words
    assert bare_number("acho que o número dele é o 4506 mesmo") is None  # nine


def test_a_zero_is_not_a_case_number_and_does_not_hide_the_real_one() -> None:
    assert bare_number("0 não, é 4506") == 4506
    assert bare_number("é o 0") is None
