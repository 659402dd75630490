"""Case identifiers are normalised from how people type them, and refused when wrong."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from colmeia.apps.assistant.ids import (
    CaseId,
    IdentifierError,
    IdentifierProblem,
    bare_number,
    find_case_ids,
    parse_case_id,
    read_case_ids,
)

TODAY = dt.date(2026, 11, 24)


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("tc 1234/2024", "TC/001234/2024"),
        ("TC-001234-2024", "TC/001234/2024"),
        ("TC/001234/2024", "TC/001234/2024"),
        ("TC 001.234/2024", "TC/001234/2024"),
        ("tc1234/2024", "TC/001234/2024"),
        ("processo nº 1234/2024", "TC/001234/2024"),
        ("EXP-2024-00123", "EXP-2024-00123"),
        ("exp 2024 123", "EXP-2024-00123"),
        ("expediente 123/2024", "EXP-2024-00123"),
        ("exp. nº 00123/2024", "EXP-2024-00123"),
    ],
)
def test_sloppy_typings_become_the_canonical_form(typed: str, canonical: str) -> None:
    assert parse_case_id(typed, today=TODAY).canonical == canonical


@pytest.mark.parametrize(
    ("typed", "code"),
    [
        ("tc 1234/24", "year_digits"),
        ("TC/1234567/2024", "too_long"),
        ("TC 12/2031", "year_range"),
        ("TC 0/2020", "zero"),
        ("EXP-2024-123456", "too_long"),
        ("the law 8.666/1993", "format"),
        ("TC 1/2020 e TC 2/2021", "several"),
    ],
)
def test_invalid_identifiers_are_refused_with_the_reason(typed: str, code: str) -> None:
    with pytest.raises(IdentifierError) as err:
        parse_case_id(typed, today=TODAY)
    assert err.value.code == code
    assert "TC/XXXXXX/YYYY" in str(err.value) or "EXP-YYYY-XXXXX" in str(err.value)


def test_every_identifier_in_a_sentence_is_found_in_order() -> None:
    found = find_case_ids(
        "o processo TC-000777-2023, o expediente exp 2025-5 e o tc 9/25", today=TODAY
    )
    assert found[:2] == [CaseId("process", 777, 2023), CaseId("expediente", 5, 2025)]
    assert isinstance(found[2], IdentifierProblem)
    assert "quatro dígitos" in found[2].message_pt


def test_law_numbers_are_not_mistaken_for_cases() -> None:
    assert find_case_ids("o art. 5º da Lei 8.666/1993 e a Lei nº 13.709/2018", today=TODAY) == []


@pytest.mark.parametrize(
    ("reply", "kind", "canonical"),
    [
        ("4506/2023", None, "TC/004506/2023"),
        ("004506/2023", None, "TC/004506/2023"),
        ("4506 de 2023", None, "TC/004506/2023"),
        ("é o 4506 de 2023", "process", "TC/004506/2023"),
        ("4.506/2023", None, "TC/004506/2023"),
        ("123/2024", "expediente", "EXP-2024-00123"),
        ("2024-00123", None, "EXP-2024-00123"),
        ("TC 32/2023", "expediente", "TC/000032/2023"),  # a prefix wins over the kind asked
    ],
)
def test_a_reply_without_prefix_is_read_as_the_kind_asked_for(
    reply: str, kind: Any, canonical: str
) -> None:
    today = dt.date(2026, 11, 1)
    assert [c.canonical for c in read_case_ids(reply, kind=kind, today=today)] == [canonical]


def test_a_bare_number_is_read_only_from_a_short_reply_and_not_from_a_law() -> None:
    assert bare_number("é o 4506") == 4506
    assert bare_number("4.506") == 4506
    assert bare_number("é o 4506 de 2023") is None  # that has its year
    assert bare_number("os processos 12 e 13") is None  # two numbers: no guess
    # general text is never read leniently: "Lei 9.784/1999" is not a process
    assert find_case_ids("segundo a Lei 9.784/1999") == []


def test_a_number_is_never_split_into_a_number_and_a_two_digit_year() -> None:
    """ "processo 4506 de 2023" was read as process 45 of the year "06" and refused as an
    invalid "processo 4506"; without a mark between them there is no year."""
    today = dt.date(2026, 11, 1)
    assert find_case_ids("processo 4506 de 2023 ta com quem?", today=today) == []
    assert [c.canonical for c in read_case_ids("processo 4506 de 2023", today=today)] == [
        "TC/004506/2023"
    ]
    assert [str(c) for c in find_case_ids("TC 4506/2023", today=today)] == ["TC/004506/2023"]
