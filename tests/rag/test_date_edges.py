"""Date values at the edges a catalogue throws at ingestion: years from 1000 to 2999 only, dates
already parsed (a ``date`` or ``datetime`` from a spreadsheet), no date at all (``None``, a
boolean, a long text), a time after a day-first date, and a month-first date only where day
first cannot be."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from colmeia.rag.ingest.dates import iso_date, year_of


@pytest.mark.parametrize(
    ("value", "year"),
    [(1000, 1000), (2999, 2999), (999, None), (3000, None), ("1000", 1000), ("2999", 2999)],
)
def test_years_outside_1000_to_2999_are_not_years(value: object, year: int | None) -> None:
    assert year_of(value) == year


def test_a_date_already_parsed_gives_its_year_and_itself() -> None:
    assert year_of(date(2017, 8, 17)) == 2017
    assert iso_date(date(2017, 8, 17)) == "2017-08-17"
    assert iso_date(datetime(2020, 2, 29, 10, 30)) == "2020-02-29"
    assert year_of(date(999, 1, 1)) is None


@pytest.mark.parametrize("value", [None, True, False, "   ", "2017 " + "x" * 80])
def test_no_date_at_all_gives_nothing(value: object) -> None:
    assert year_of(value) is None
    assert iso_date(value) is None


def test_a_text_of_eighty_characters_is_still_read() -> None:
    text = "publicado em 2017" + " " * 0 + "." * (80 - len("publicado em 2017"))
    assert len(text) == 80
    assert year_of(text) == 2017


@pytest.mark.parametrize(
    ("value", "iso"),
    [
        ("17/08/2017 10:30", "2017-08-17"),
        ("17/08/2017T10:30", "2017-08-17"),
        ("12/31/2019", "2019-12-31"),
        ("05/04/2019", "2019-04-05"),
        ("31/13/2019", None),
        ("2019-13-01", None),
        ("2019.1.5", "2019-01-05"),
    ],
)
def test_day_first_then_month_first_only_when_day_first_cannot_be(
    value: str, iso: str | None
) -> None:
    assert iso_date(value) == iso


def test_one_year_in_prose_is_its_year_two_different_ones_are_none() -> None:
    assert year_of("publicado em 2017, revisto em 2017") == 2017
    assert year_of("de 1999 e 0999") == 1999  # 0999 is not a year
    assert year_of("1999 e 2001") is None
