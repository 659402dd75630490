"""Case identifiers: processes ``TC/XXXXXX/YYYY`` and expedientes ``EXP-YYYY-XXXXX``.

People type them sloppily ("tc 1234/2024", "TC-001234-2024", "exp 2024 123", "expediente
123/2024"). Every lookup goes through :func:`parse_case_id` first, which returns the canonical
form or raises :class:`IdentifierError` saying what is wrong; the registry itself accepts only
canonical identifiers. Nothing here guesses a missing part: a two-digit year is refused, not
completed.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Literal

from colmeia.errors import InputError

__all__ = [
    "CaseId",
    "CaseKind",
    "IdentifierError",
    "IdentifierProblem",
    "bare_number",
    "find_case_ids",
    "mentions_case_words",
    "parse_case_id",
    "read_case_id",
    "read_case_ids",
]

CaseKind = Literal["process", "expediente"]

FIRST_YEAR = 1990
_PROCESS_DIGITS = 6
_EXPEDIENTE_DIGITS = 5

# A number may carry thousands dots ("001.234") as people copy them from letters.
_NUM = r"\d{1,3}(?:\.\d{3})+|\d+"
_SEP = r"[\s/\\\-_.:,;nº°#]*"
# between a number and its year at least one mark: "processo 4506" is not 45 of '06
_SEP_YEAR = r"[\s/\\\-_.:,;nº°#]+"
_SEP_BARE = r"\s*(?:/|-|\\|\s+de\s+|\s+do\s+ano\s+(?:de\s+)?)\s*"
_PROCESS_PREFIX = r"(?:tc|proc(?:esso)?\.?(?:\s+n[º°o.]*)?)"
_EXP_PREFIX = r"(?:exp(?:ediente)?\.?(?:\s+n[º°o.]*)?)"
# "TC 1234/2024", "TC-001234-2024", "processo nº 1.234/2024"
_PROCESS_RE = re.compile(
    rf"(?<![\w/]){_PROCESS_PREFIX}{_SEP}(?P<num>{_NUM}){_SEP_YEAR}(?P<year>\d{{2,4}})(?![\w/])",
    re.IGNORECASE,
)
# "EXP-2024-00123", "exp 2024 123", "expediente 123/2024"
_EXP_RE = re.compile(
    rf"(?<![\w/]){_EXP_PREFIX}{_SEP}(?P<a>{_NUM}){_SEP}(?P<b>{_NUM})(?![\w/])",
    re.IGNORECASE,
)
_CASE_WORDS = re.compile(
    r"\b(?:(?:meu|minha|meus|minhas|nosso|nossa|deste|desse|daquele|este|esse|aquele|o|do|um)\s+"
    r"(?:processo|expediente|protocolo|caso|den[uú]ncia)(?!\s+(?:administrativ|legislativ|judicial|"
    r"civil|penal|licitat|eleitoral|de\s+licita))|andamento|tramita[çc][ãa]o|tramitando|"
    r"movimenta[çc](?:[ãa]o|[õo]es)|relator\s+d[oa]\s+(?:processo|caso))",
    re.IGNORECASE,
)


class IdentifierError(InputError):
    """A case identifier that cannot be used: the message says what is wrong and the format."""

    def __init__(
        self, text: str, reason: str, kind: CaseKind | None = None, code: str = "format"
    ) -> None:
        self.text = text
        self.reason = reason
        self.kind = kind
        self.code = code
        super().__init__(f"{text!r} is not a valid {_kind_label(kind)}: {reason}")


def _kind_label(kind: CaseKind | None) -> str:
    if kind == "process":
        return "process number (TC/XXXXXX/YYYY)"
    if kind == "expediente":
        return "expediente number (EXP-YYYY-XXXXX)"
    return "case number (TC/XXXXXX/YYYY or EXP-YYYY-XXXXX)"


@dataclass(frozen=True, slots=True)
class CaseId:
    """A validated identifier; ``str(case_id)`` is its canonical form."""

    kind: CaseKind
    number: int
    year: int

    @property
    def canonical(self) -> str:
        if self.kind == "process":
            return f"TC/{self.number:0{_PROCESS_DIGITS}d}/{self.year}"
        return f"EXP-{self.year}-{self.number:0{_EXPEDIENTE_DIGITS}d}"

    def __str__(self) -> str:
        return self.canonical


@dataclass(frozen=True, slots=True)
class IdentifierProblem:
    """Something in a text that looks like an identifier but is not a valid one."""

    text: str
    reason: str
    kind: CaseKind | None
    code: str = "format"

    @property
    def message(self) -> str:
        return str(IdentifierError(self.text, self.reason, self.kind, self.code))

    @property
    def message_pt(self) -> str:
        """The problem in Portuguese, for the person asking."""
        return f"“{self.text}” não é um número válido de {_KIND_PT[self.kind]}: {_REASON_PT[self.code]}."


_KIND_PT: dict[CaseKind | None, str] = {
    "process": "processo (formato TC/XXXXXX/AAAA)",
    "expediente": "expediente (formato EXP-AAAA-XXXXX)",
    None: "processo ou expediente (TC/XXXXXX/AAAA ou EXP-AAAA-XXXXX)",
}
_REASON_PT = {
    "year_digits": "o ano deve ter quatro dígitos",
    "zero": "o número não pode ser zero",
    "too_long": "o número tem dígitos demais",
    "year_range": f"o ano deve estar entre {FIRST_YEAR} e o ano corrente",
    "format": "o formato não foi reconhecido",
    "several": "há mais de um número no texto",
    "empty": "o texto está vazio",
}


def _digits(raw: str) -> str:
    return raw.replace(".", "")


def _check(kind: CaseKind, text: str, number: str, year: str, today: dt.date) -> CaseId:
    width = _PROCESS_DIGITS if kind == "process" else _EXPEDIENTE_DIGITS
    digits = _digits(number)
    if len(year) != 4:
        raise IdentifierError(
            text,
            f"the year must have four digits (e.g. 20{year[-2:]}), not {year!r}",
            kind,
            "year_digits",
        )
    n, y = int(digits), int(year)
    if n == 0:
        raise IdentifierError(text, "the number cannot be zero", kind, "zero")
    if len(digits.lstrip("0")) > width:
        raise IdentifierError(text, f"the number has more than {width} digits", kind, "too_long")
    if not FIRST_YEAR <= y <= today.year:
        raise IdentifierError(
            text, f"the year {y} is outside {FIRST_YEAR}–{today.year}", kind, "year_range"
        )
    return CaseId(kind, n, y)


def _is_year(raw: str, today: dt.date) -> bool:
    return len(raw) == 4 and "." not in raw and FIRST_YEAR <= int(raw) <= today.year


def _expediente(text: str, a: str, b: str, today: dt.date) -> CaseId:
    # Canonical order is year then number; people also write number/year.
    if _is_year(a, today) and not (_is_year(b, today) and len(_digits(b)) == 4 and "-" not in text):
        return _check("expediente", text, b, a, today)
    if _is_year(b, today):
        return _check("expediente", text, a, b, today)
    year, number = (a, b) if len(a) == 4 else (b, a)
    return _check("expediente", text, number, year, today)


def parse_case_id(text: str, *, today: dt.date | None = None) -> CaseId:
    """The canonical identifier in ``text`` (one identifier, sloppy typing allowed).

    Raises :class:`IdentifierError` when ``text`` is not one process or expediente number.
    """
    if not isinstance(text, str) or not text.strip():
        raise IdentifierError(str(text), "it is empty", None, "empty")
    found = find_case_ids(text, today=today)
    if not found:
        raise IdentifierError(
            text.strip(), "expected TC/XXXXXX/YYYY (process) or EXP-YYYY-XXXXX (expediente)"
        )
    if len(found) > 1:
        raise IdentifierError(
            text.strip(), "it holds more than one identifier; give one", None, "several"
        )
    first = found[0]
    if isinstance(first, IdentifierProblem):
        raise IdentifierError(first.text, first.reason, first.kind, first.code)
    return first


def find_case_ids(text: str, *, today: dt.date | None = None) -> list[CaseId | IdentifierProblem]:
    """Every identifier written in ``text``, normalised, or the problem with it, in order."""
    today = today or dt.date.today()
    found: list[tuple[int, CaseId | IdentifierProblem]] = []
    taken: list[tuple[int, int]] = []
    for m in _EXP_RE.finditer(text):
        raw = m.group(0).strip()
        try:
            found.append((m.start(), _expediente(raw, m.group("a"), m.group("b"), today)))
        except IdentifierError as exc:
            found.append((m.start(), IdentifierProblem(raw, exc.reason, "expediente", exc.code)))
        taken.append(m.span())
    for m in _PROCESS_RE.finditer(text):
        if any(a <= m.start() < b for a, b in taken):
            continue
        raw = m.group(0).strip()
        try:
            found.append(
                (m.start(), _check("process", raw, m.group("num"), m.group("year"), today))
            )
        except IdentifierError as exc:
            found.append((m.start(), IdentifierProblem(raw, exc.reason, "process", exc.code)))
    found.sort(key=lambda t: t[0])
    out: list[CaseId | IdentifierProblem] = []
    for _, item in found:
        if item not in out:
            out.append(item)
    return out


def mentions_case_words(text: str) -> bool:
    """Whether ``text`` talks about a case ("meu processo", "andamento", "expediente")."""
    return bool(_CASE_WORDS.search(text))


# Without a prefix: "4506/2023", "004506/2023", "4506 de 2023", "4.506/2023", "4506-2023".
_BARE_RE = re.compile(
    rf"(?<![\w/.-])(?P<num>{_NUM}){_SEP_BARE}(?P<year>\d{{4}})(?![\w/])", re.IGNORECASE
)
# An expediente in its canonical order without the prefix: "2024-00123", "2024/123".
_BARE_EXP_RE = re.compile(r"(?<![\w/.-])(?P<year>\d{4})[-/](?P<num>\d{1,5})(?![\w/])")
_LONE_NUMBER = re.compile(r"(?<![\w/.,-])(\d{1,3}(?:\.\d{3})+|\d{1,6})(?![\w/,-]|\.\d)")


def read_case_ids(
    text: str, *, kind: CaseKind | None = None, today: dt.date | None = None
) -> list[CaseId]:
    """The identifiers in ``text`` read as leniently as a reply to "qual é o número?".

    Prefixed identifiers (:func:`find_case_ids`) come first; without any, a bare
    ``NNNN/AAAA`` or ``NNNN de AAAA`` is read as ``kind`` (a process when the question did
    not say), and with ``kind="expediente"`` also ``AAAA-NNNNN``. Invalid readings are left
    out: a reply that holds no usable number gives ``[]``.
    """
    today = today or dt.date.today()
    strict = [i for i in find_case_ids(text, today=today) if isinstance(i, CaseId)]
    if strict:
        return strict
    read_as: CaseKind = kind or "process"
    out: list[CaseId] = []
    if kind in ("expediente", None):
        for m in _BARE_EXP_RE.finditer(text):
            if _is_year(m.group("year"), today):
                try:
                    out.append(
                        _check("expediente", m.group(0), m.group("num"), m.group("year"), today)
                    )
                except IdentifierError:
                    continue
    if not out:
        for m in _BARE_RE.finditer(text):
            try:
                out.append(_check(read_as, m.group(0), m.group("num"), m.group("year"), today))
            except IdentifierError:
                continue
    return list(dict.fromkeys(out))


def read_case_id(
    text: str, *, kind: CaseKind | None = None, today: dt.date | None = None
) -> CaseId:
    """One identifier in ``text``, strict first (:func:`parse_case_id`), then read leniently
    (:func:`read_case_ids`) as ``kind``; raises the strict parser's error when neither works."""
    try:
        return parse_case_id(text, today=today)
    except IdentifierError as exc:
        if exc.code not in ("format",):
            raise
        found = read_case_ids(text, kind=kind, today=today)
        if len(found) == 1:
            return found[0]
        raise


def bare_number(text: str) -> int | None:
    """The one number in a short reply with no year ("é o 4506", "4.506"), else ``None``."""
    if read_case_ids(text) or len(text.split()) > 8:
        return None
    found = {int(_digits(m.group(1))) for m in _LONE_NUMBER.finditer(text)}
    found.discard(0)
    return found.pop() if len(found) == 1 else None
