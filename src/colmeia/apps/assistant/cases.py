"""Case lookups as the assistant uses them: normalise, read the registry, render, check.

:func:`lookup_case` is the only way case data enters a conversation: it parses what the person
typed (refusing invalid numbers before any lookup), reads the registry and returns a plain
dict with ``status`` ``found`` / ``not_found`` / ``invalid``. :func:`case_card` renders that
dict in Portuguese without a model. :func:`check_case_answer` compares a model's phrasing with
what the registry returned, so a number, date, rapporteur or day count the registry did not
give is caught and the card is used instead.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from typing import Any

from colmeia.apps.assistant.ids import CaseId, IdentifierError, find_case_ids, parse_case_id
from colmeia.apps.assistant.registry import CaseRegistry, Expediente, Process

__all__ = ["case_card", "check_case_answer", "evidence_cards", "lookup_case"]

_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_BR = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
_DAYS = re.compile(r"\b(\d[\d.]*)\s+dias\b", re.IGNORECASE)
_RAPPORTEUR = re.compile(
    r"\b(?:Cons(?:elheir[oa])?|Min(?:istr[oa])?|Rel(?:ator[a]?)?)\.?[ ]+"
    r"([A-ZÀ-Ú][\wÀ-ú]+(?:[ ]+(?:d[aeo]s?[ ]+)?[A-ZÀ-Ú][\wÀ-ú]+)*)"
)


def _br(date: str) -> str:
    try:
        return dt.date.fromisoformat(date[:10]).strftime("%d/%m/%Y")
    except ValueError:
        return date


def _thousands(n: int) -> str:
    return f"{n:,}".replace(",", ".")


async def lookup_case(
    registry: CaseRegistry,
    typed: str,
    *,
    today: dt.date | None = None,
    movements: int = 5,
) -> dict[str, Any]:
    """Everything the registry holds about the case ``typed`` refers to (no model involved)."""
    try:
        case = parse_case_id(typed, today=today)
    except IdentifierError as exc:
        from colmeia.apps.assistant.ids import IdentifierProblem

        problem = IdentifierProblem(exc.text, exc.reason, exc.kind, exc.code)
        return {"status": "invalid", "typed": typed, "message": problem.message_pt}
    record: Process | Expediente | None = (
        await registry.process(case) if case.kind == "process" else await registry.expediente(case)
    )
    if record is None:
        return {"status": "not_found", "kind": case.kind, "number": case.canonical, "typed": typed}
    location = await registry.location(case, today)
    return {
        "status": "found",
        "kind": case.kind,
        "number": case.canonical,
        "typed": typed,
        "record": record.as_dict(),
        "location": location.as_dict() if location else None,
        "parties": [p.as_dict() for p in await registry.parties(case)],
        "movements": [m.as_dict() for m in await registry.movements(case, movements)],
        "documents": [d.as_dict() for d in await registry.documents(case, 5)],
    }


def _kind_pt(kind: str) -> str:
    return "processo" if kind == "process" else "expediente"


def case_card(found: dict[str, Any]) -> str:
    """The lookup rendered in Portuguese, straight from the registry's fields."""
    status = found.get("status")
    if status == "invalid":
        return f"{found['message']} Confira o número e envie novamente."
    kind = _kind_pt(str(found.get("kind", "process")))
    number = found.get("number", "")
    if status != "found":
        fmt = "TC/XXXXXX/AAAA" if kind == "processo" else "EXP-AAAA-XXXXX"
        return (
            f"Não encontrei o {kind} {number} no cadastro. Confira o número (formato {fmt}); "
            "se ele estiver correto, o caso pode não estar registrado neste sistema."
        )
    r = found["record"]
    loc = found.get("location") or {}
    lines: list[str] = []
    if kind == "processo":
        kind_line = " / ".join(x for x in (r["case_class"], r["subclass"]) if x)
        lines.append(f"Processo {number} — {kind_line}")
        lines.append(
            f"Autuado em {_br(r['filed_on'])} · Unidade técnica: {r['unit']} · "
            f"Relator: {r['rapporteur']}"
        )
    else:
        lines.append(f"Expediente {number} — {r['type']}")
        lines.append(f"Aberto em {_br(r['opened_on'])} · Origem: {r['origin_unit']}")
        if r.get("process"):
            lines.append(f"Vinculado ao processo {r['process']}")
    lines.append(f"Situação atual: {r['status']}")
    if loc:
        lines.append(
            f"Onde está: {loc['location']}, desde {_br(loc['since'])} "
            f"(há {_thousands(int(loc['days']))} dias)"
        )
        last = loc.get("last_movement")
        if last:
            lines.append(f"Última movimentação: {_br(last['at'])} — {last['description']}")
    if r.get("subject"):
        lines.append(f"Assunto: {r['subject']}")
    parties = found.get("parties") or []
    if parties:
        lines.append("Partes: " + "; ".join(f"{p['name']} ({p['role']})" for p in parties))
    return "\n".join(lines)


def evidence_cards(evidence: Sequence[dict[str, Any]]) -> str:
    """Every lookup of a turn rendered as cards, one after another."""
    seen: set[str] = set()
    cards: list[str] = []
    for item in evidence:
        key = str(item.get("number") or item.get("typed"))
        if key in seen:
            continue
        seen.add(key)
        cards.append(case_card(item))
    return "\n\n".join(cards)


def _facts(evidence: Sequence[dict[str, Any]]) -> tuple[set[str], set[str], set[int], str]:
    numbers: set[str] = set()
    dates: set[str] = set()
    days: set[int] = set()
    text: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str):
            text.append(value)
            for m in _ISO.finditer(value):
                dates.add(m.group(0))
        elif isinstance(value, int) and not isinstance(value, bool):
            days.add(value)

    for item in evidence:
        if item.get("number"):
            numbers.add(str(item["number"]))
        walk(item)
    return numbers, dates, days, " ".join(text)


def check_case_answer(answer: str, evidence: Sequence[dict[str, Any]]) -> list[str]:
    """What ``answer`` says about cases that the registry lookups did not return.

    Checks case numbers, dates, day counts and rapporteur names; an empty list means every
    such detail is backed by ``evidence``. When nothing was found, any detail is invented.
    """
    problems: list[str] = []
    numbers, dates, days, text = _facts(evidence)
    for found in find_case_ids(answer):
        if isinstance(found, CaseId) and found.canonical not in numbers:
            problems.append(f"case {found.canonical} was not looked up")
    for m in _BR.finditer(answer):
        try:
            iso = dt.date(int(m.group(3)), int(m.group(2)), int(m.group(1))).isoformat()
        except ValueError:
            problems.append(f"{m.group(0)} is not a date")
            continue
        if iso not in dates:
            problems.append(f"date {m.group(0)} is not in the registry's answer")
    for m in _ISO.finditer(answer):
        if m.group(0) not in dates:
            problems.append(f"date {m.group(0)} is not in the registry's answer")
    for m in _DAYS.finditer(answer):
        n = int(m.group(1).replace(".", ""))
        if n not in days:
            problems.append(f"{n} days is not in the registry's answer")
    for m in _RAPPORTEUR.finditer(answer):
        if m.group(1) not in text:
            problems.append(f"{m.group(0)!r} is not in the registry's answer")
    if evidence and all(e.get("status") != "found" for e in evidence) and (dates or problems):
        problems.append("nothing was found, so the answer may not describe a case")
    return problems
