"""Dates as catalogues and exports write them → a year (for year filters) and an ISO date.

Accepted: ISO (``2017-08-17``, ``2017-08-17T10:00:00Z``, ``2017/08/17``, ``20170817``),
day-first as written in Brazil and Spain (``17/08/2017``, ``17-08-2017``, ``17.08.2017``,
``1º/7/2021``), month and year (``08/2017``, ``2017-08``), a bare year (``2017``, ``2017.0``) and
prose (``17 de agosto de 2017``, ``August 17, 2017``) when one four-digit year stands in it.
Two-digit years are ambiguous (``17/08/17``) and give nothing rather than a guess.
"""

from __future__ import annotations

import re
from datetime import date, datetime

__all__ = ["iso_date", "year_of"]

_MIN_YEAR, _MAX_YEAR = 1000, 2999
_YMD_RE = re.compile(r"^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T ].*)?$")
_COMPACT_RE = re.compile(r"^(\d{4})(\d{2})(\d{2})$")
_DMY_RE = re.compile(r"^(\d{1,2})[º°o]?[-/.](\d{1,2})[-/.](\d{4})(?:[T ].*)?$")
_MY_RE = re.compile(r"^(\d{1,2})[-/.](\d{4})$")
_YM_RE = re.compile(r"^(\d{4})[-/.](\d{1,2})$")
_YEAR_RE = re.compile(r"^(\d{4})(?:\.0+)?$")
# Four digits standing alone: not part of a longer number, a decimal or another date form.
_YEAR_IN_TEXT_RE = re.compile(r"(?<!\d)(?<!\d[.,/-])(\d{4})(?!\d)(?![.,/-]\d)")


def _valid_year(year: int) -> int | None:
    return year if _MIN_YEAR <= year <= _MAX_YEAR else None


def _ymd(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _parse(value: object) -> tuple[int | None, date | None]:
    if value is None or isinstance(value, bool):
        return None, None
    if isinstance(value, date):  # a spreadsheet's date cell is a datetime: its day only
        return _valid_year(value.year), value.date() if isinstance(value, datetime) else value
    if isinstance(value, int):
        return _valid_year(value), None
    text = str(value).strip()
    if not text or len(text) > 80:
        return None, None
    for regex, order in ((_YMD_RE, "ymd"), (_COMPACT_RE, "ymd"), (_DMY_RE, "dmy")):
        m = regex.match(text)
        if m:
            a, b, c = (int(g) for g in m.groups()[:3])
            y, mo, d = (a, b, c) if order == "ymd" else (c, b, a)
            full = _ymd(y, mo, d)
            if full is None and order == "dmy":
                full = _ymd(y, d, mo)  # month-first (US exports) when day-first cannot be
            if full is None:
                return None, None
            return _valid_year(y), full
    for regex, group in ((_MY_RE, 2), (_YM_RE, 1), (_YEAR_RE, 1)):
        m = regex.match(text)
        if m:
            return _valid_year(int(m.group(group))), None
    years = {int(y) for y in _YEAR_IN_TEXT_RE.findall(text) if _valid_year(int(y))}
    if len(years) == 1:
        return years.pop(), None
    return None, None


def year_of(value: object) -> int | None:
    """The year a date value names, or ``None`` when it names none (or is ambiguous)."""
    return _parse(value)[0]


def iso_date(value: object) -> str | None:
    """``YYYY-MM-DD`` when ``value`` is a full date, else ``None``."""
    full = _parse(value)[1]
    return full.isoformat() if full is not None else None
