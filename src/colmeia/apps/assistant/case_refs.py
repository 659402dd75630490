"""Case references as people type them, read leniently and resolved against the registry.

:func:`read_case_refs` finds every reference in a message, in any of the forms people use:
``TC 012.345/2023-1`` (thousands dots, a check digit), ``012345/2023``, ``812/24`` (a short
year), ``processo 4506 de 2023``, ``4506/23``, ``11165 barra 22``, a spoken number ("quatro
mil quinhentos e seis de dois mil e vinte e três"), ``EXP-2024-00123``, and a number without
its year after "processo"/"TC"/"expediente" ("meu processo é o 4506"). A number that belongs
to a norm ("Lei 9.784/99", "art. 23", "Acórdão 1.234/2023") or to a date is not a case.

:func:`resolve_case_refs` is the one call a dispatcher makes: each reference comes back as a
:class:`CaseResolution` — ``found`` (one case), ``ambiguous`` (several cases share a short
number: ask which, with the candidates), ``not_found`` (said clearly, with cases of the same
number in other years when there are), ``invalid`` (nothing in the registry comes close) or
``unavailable`` (the registry did not answer). A reference the registry can match is never
called invalid.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Literal

from text_to_num import alpha2digit

from colmeia.apps.assistant.case_index import fold
from colmeia.apps.assistant.ids import FIRST_YEAR, CaseId, CaseKind, find_case_ids
from colmeia.apps.assistant.registry import CaseRegistry
from colmeia.errors import ConfigurationError, StoreError

__all__ = [
    "CaseRef",
    "CaseResolution",
    "ResolutionStatus",
    "full_year",
    "read_case_refs",
    "resolve_case_refs",
]

ResolutionStatus = Literal["found", "ambiguous", "not_found", "invalid", "unavailable"]

_NUM = r"\d{1,3}(?:\.\d{3})+|\d{1,7}"
_PREFIX = (
    r"(?:(?P<tc>tc|proc(?:esso)?|autos)|(?P<exp>exp(?:ediente)?))\.?\s*"
    r"(?:(?:n(?:[º°o]|umero|úmero)?\.?|#)\s*)?(?:(?:[ée]|eh)\s+(?:o\s+)?)?"
)
_SEP = r"\s*(?:/|\\|-|,?\s+de\s+|,\s*de\s+|\s+do\s+ano\s+(?:de\s+)?|\s+barra\s+)\s*"
# "TC 012.345/2023-1", "processo 4506 de 2023", "4506/23", "11165 barra 22"
_WITH_YEAR = re.compile(
    rf"(?<![\w/.,-])(?:{_PREFIX}[-/\s]*)?(?P<num>{_NUM}){_SEP}(?P<year>\d{{4}}|\d{{2}})"
    r"(?:-\d)?(?![\w/]|[.,]\d)",
    re.IGNORECASE,
)
# "processo 4506", "meu processo é o 4506", "TC 777" (no year)
_NO_YEAR = re.compile(
    rf"(?<![\w/.,-]){_PREFIX}[-/\s]*(?P<num>{_NUM})(?![\w/]|[.,]\d)", re.IGNORECASE
)
_LONE = re.compile(rf"(?<![\w/.,-])(?P<num>{_NUM})(?![\w/]|[.,]\d)")
# what a number belongs to when it is a norm's or a decision's, not a case's
_NORM_BEFORE = re.compile(
    r"\b(?:lei|leis|decreto(?:-lei)?|lc|complementar|art|arts|artigo|artigos|inciso|"
    r"paragrafo|resolucao|instrucao\s+normativa|in|portaria|emenda|ec|"
    r"medida\s+provisoria|constituicao|cf|norma)\.?\s*"
    r"(?:n\.?|no|nº|n°|numero)?\.?\s*$|§\s*$|"
    # a decision or a paper of a case: "parecer nº 12/2024" is one, but "parecer no 114/2023"
    # is the parecer in case 114/2023 ("no" is "em o" far more often than a typed "nº")
    r"\b(?:sumula|acordao|mp|decisao|parecer|oficio)\.?\s*(?:n\.?|nº|n°|numero)?\.?\s*$|"
    # "a 8.666/93", "pela 9784": a feminine article names a law ("a lei"), a case is "o processo"
    r"(?:^|\s)(?:a|da|na|pela)\s+$"
)
_SPOKEN_HINT = re.compile(
    r"\b(?:um|dois|tres|quatro|cinco|seis|sete|oito|nove|dez|onze|doze|treze|catorze|quatorze|"
    r"quinze|dezesseis|dezessete|dezoito|dezenove|vinte|trinta|quarenta|cinquenta|sessenta|"
    r"setenta|oitenta|noventa|cem|cento|duzentos|trezentos|quatrocentos|quinhentos|seiscentos|"
    r"setecentos|oitocentos|novecentos|mil)\b"
)
_SHORT_MESSAGE_WORDS = 4


@dataclass(frozen=True, slots=True)
class CaseRef:
    """One reference as read from the text, before the registry is asked.

    ``year`` is the four-digit year (a two-digit one completed by :func:`full_year`) or
    ``None`` when none was typed; ``kind`` is set when a prefix said which ("TC",
    "expediente"); ``typed`` is the text it was read from.
    """

    typed: str
    number: int
    year: int | None
    kind: CaseKind | None
    start: int = 0


@dataclass(frozen=True, slots=True)
class CaseResolution:
    """A reference resolved against the registry.

    ``case`` is set when ``status`` is ``found``; ``candidates`` lists the cases to choose
    from (``ambiguous``) or those of the same number in other years (``not_found``,
    ``invalid``); ``message`` says it in Portuguese for the person (empty when found).
    """

    ref: CaseRef
    status: ResolutionStatus
    case: CaseId | None = None
    candidates: tuple[CaseId, ...] = field(default_factory=tuple)
    message: str = ""

    def as_dict(self) -> dict[str, object]:
        return {
            "typed": self.ref.typed,
            "status": self.status,
            "case": self.case.canonical if self.case else None,
            "candidates": [c.canonical for c in self.candidates],
            "message": self.message,
        }


def full_year(raw: str, today: dt.date) -> int:
    """A typed year as four digits: ``24`` → 2024, ``99`` → 1999 (the latest year not after
    ``today`` that ends in those digits)."""
    if len(raw) != 2:
        return int(raw)
    year = today.year // 100 * 100 + int(raw)
    return year if year <= today.year else year - 100


def _is_norm(text: str, start: int) -> bool:
    # "nº" would fold to "no" (the ordinal sign is an "o"), and "no" alone is a preposition
    before = text[max(0, start - 40) : start].replace("º", ".").replace("°", ".")
    return bool(_NORM_BEFORE.search(fold(before)))


def _kind(m: re.Match[str]) -> CaseKind | None:
    if m.groupdict().get("exp"):
        return "expediente"
    return "process" if m.groupdict().get("tc") else None


def _number(raw: str) -> int:
    return int(raw.replace(".", ""))


def _read(text: str, today: dt.date) -> list[CaseRef]:
    refs: list[CaseRef] = []
    taken: list[tuple[int, int]] = []

    def free(span: tuple[int, int]) -> bool:
        return not any(a < span[1] and span[0] < b for a, b in taken)

    # canonical expedientes first: "EXP-2024-00123" puts the year before the number
    for item in find_case_ids(text, today=today):
        if isinstance(item, CaseId) and item.kind == "expediente":
            at = text.lower().find(str(item.year))
            refs.append(CaseRef(item.canonical, item.number, item.year, "expediente", max(at, 0)))
    for m in re.finditer(r"(?i)\bexp(?:ediente)?[-\s/]*\d{4}[-/\s]+\d{1,5}\b", text):
        taken.append(m.span())
    for m in _WITH_YEAR.finditer(text):
        if not free(m.span()) or (not _kind(m) and _is_norm(text, m.start())):
            continue
        refs.append(
            CaseRef(
                m.group(0).strip(),
                _number(m.group("num")),
                full_year(m.group("year"), today),
                _kind(m),
                m.start(),
            )
        )
        taken.append(m.span())
    for m in _NO_YEAR.finditer(text):
        if free(m.span()):
            refs.append(
                CaseRef(m.group(0).strip(), _number(m.group("num")), None, _kind(m), m.start())
            )
            taken.append(m.span())
    if not refs and len(text.split()) <= _SHORT_MESSAGE_WORDS:
        # a reply that is only a number ("o 4506?"): nothing else it could be
        lone = [m for m in _LONE.finditer(text) if not _is_norm(text, m.start())]
        if len(lone) == 1:
            m = lone[0]
            refs.append(CaseRef(m.group(0), _number(m.group("num")), None, None, m.start()))
    return refs


def read_case_refs(text: str, *, today: dt.date | None = None) -> list[CaseRef]:
    """Every case reference in ``text``, in order, read leniently (see the module's doc).

    Spoken numbers are read too: the text is also read with its number words written as
    digits, and what that adds is kept.
    """
    today = today or dt.date.today()
    refs = _read(text, today)
    if _SPOKEN_HINT.search(fold(text)):
        digits = alpha2digit(text, "pt")
        if digits != text:
            seen = {(r.number, r.year) for r in refs}
            added = [r for r in _read(digits, today) if (r.number, r.year) not in seen]
            # "processo 11357 de dois mil e vinte e cinco" is one case, 11357/2025: its number
            # read alone, before the year was written as digits, is the same reference
            dated = {(r.number, r.kind) for r in added if r.year is not None}
            refs = [r for r in refs if r.year is not None or (r.number, r.kind) not in dated]
            refs += added
    out: list[CaseRef] = []
    for ref in sorted(refs, key=lambda r: r.start):
        if all((r.number, r.year, r.kind) != (ref.number, ref.year, ref.kind) for r in out):
            out.append(ref)
    return out


def _label(kind: CaseKind | None) -> str:
    return "expediente" if kind == "expediente" else "processo"


def _list(cases: tuple[CaseId, ...]) -> str:
    names = [c.canonical for c in cases]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " e " + names[-1]


async def _resolve(ref: CaseRef, registry: CaseRegistry, today: dt.date) -> CaseResolution:
    if ref.number == 0:
        return CaseResolution(ref, "invalid", message=f"“{ref.typed}”: o número não pode ser zero.")
    same_number = tuple(
        c for c in await registry.case_numbers(ref.number) if ref.kind in (None, c.kind)
    )
    if ref.year is not None and FIRST_YEAR <= ref.year <= today.year:
        exact = tuple(c for c in same_number if c.year == ref.year)
        if exact:
            # a process and an expediente of one number and year: the process, as
            # lookup_case reads a bare number
            return CaseResolution(ref, "found", min(exact, key=lambda c: c.kind != "process"))
        kind = ref.kind or "process"
        wanted = CaseId(kind, ref.number, ref.year)
        message = f"Não encontrei o {_label(kind)} {wanted.canonical} no cadastro."
        if same_number:
            message += f" Com o número {ref.number} há: {_list(same_number)}. É algum deles?"
        return CaseResolution(ref, "not_found", None, same_number, message)
    if ref.year is not None:  # a year no case can have: what the registry holds of the number
        if same_number:
            return CaseResolution(
                ref,
                "ambiguous",
                None,
                same_number,
                f"O ano {ref.year} não confere, mas com o número {ref.number} há: "
                f"{_list(same_number)}. É algum deles?",
            )
        return CaseResolution(
            ref,
            "invalid",
            message=f"“{ref.typed}” não parece um número de processo: o ano deve estar entre "
            f"{FIRST_YEAR} e {today.year}. Confira o número.",
        )
    if len(same_number) == 1:
        return CaseResolution(ref, "found", same_number[0])
    if same_number:
        return CaseResolution(
            ref,
            "ambiguous",
            None,
            same_number,
            f"Há mais de um caso com o número {ref.number}: {_list(same_number)}. Qual deles?",
        )
    return CaseResolution(
        ref,
        "not_found",
        message=f"Não encontrei no cadastro nenhum {_label(ref.kind)} com o número "
        f"{ref.number}. Confira o número e, se puder, diga também o ano.",
    )


async def resolve_case_refs(
    text: str, registry: CaseRegistry, *, today: dt.date | None = None
) -> list[CaseResolution]:
    """Every case reference in ``text`` resolved against ``registry``, in order.

    One call per message: ``[]`` when the message names no case; otherwise one
    :class:`CaseResolution` per reference (``found`` → use ``case``; ``ambiguous`` → ask
    which of ``candidates``; ``not_found`` / ``invalid`` / ``unavailable`` → say
    ``message``). Registry failures come back as ``unavailable``, never raised.
    """
    today = today or dt.date.today()
    out: list[CaseResolution] = []
    for ref in read_case_refs(text, today=today):
        try:
            out.append(await _resolve(ref, registry, today))
        except (StoreError, ConfigurationError) as exc:
            out.append(CaseResolution(ref, "unavailable", message=str(exc)))
    return out
