"""A case looked up as the assistant uses it: what the person typed parsed (invalid numbers
refused before any lookup) and everything the registry holds about it, as a plain dict
(:mod:`colmeia.apps.assistant.cases` tells the whole)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from colmeia.apps.assistant.case_refs import read_case_refs
from colmeia.apps.assistant.ids import (
    CaseId,
    CaseKind,
    IdentifierError,
    IdentifierProblem,
    find_case_ids,
    parse_case_id,
    read_case_id,
)
from colmeia.apps.assistant.registry import CaseRegistry
from colmeia.apps.assistant.registry_records import Expediente, Process
from colmeia.errors import ConfigurationError, StoreError


async def lookup_case(
    registry: CaseRegistry,
    typed: str,
    *,
    today: dt.date | None = None,
    movements: int = 5,
    kind: CaseKind | None = None,
) -> dict[str, Any]:
    """Everything the registry holds about the case ``typed`` refers to (no model involved).

    ``typed`` is read as leniently as a person types (:func:`read_case_id`): a bare
    ``1950/2023`` is a process (``kind`` when given), and when no such process exists, the
    expediente of that number and year is tried. A two-digit year is completed ("TC 812/24"
    is TC/000812/2024, :func:`~colmeia.apps.assistant.case_refs.full_year`).
    """
    try:
        case = read_case_id(typed, kind=kind, today=today)
    except IdentifierError as exc:
        short = _short_year(typed, kind, today) if exc.code == "year_digits" else None
        if short is None:
            problem = IdentifierProblem(exc.text, exc.reason, exc.kind, exc.code)
            return {"status": "invalid", "typed": typed, "message": problem.message_pt}
        case = short
    bare = not find_case_ids(typed, today=today)
    try:
        found = await _read(registry, case, typed, today, movements)
        if found is None and bare and kind is None:
            other = CaseId(
                "expediente" if case.kind == "process" else "process", case.number, case.year
            )
            found = await _read(registry, other, typed, today, movements)
    except (StoreError, ConfigurationError) as exc:
        return {
            "status": "unavailable",
            "number": case.canonical,
            "kind": case.kind,
            "typed": typed,
            "message": str(exc),
        }
    if found is None:
        return {"status": "not_found", "kind": case.kind, "number": case.canonical, "typed": typed}
    return found


def _short_year(typed: str, kind: CaseKind | None, today: dt.date | None) -> CaseId | None:
    """``typed`` with its two-digit year completed ("TC 812/24" → TC/000812/2024), when it
    holds one such reference."""
    refs = read_case_refs(typed, today=today)
    year = refs[0].year if len(refs) == 1 else None
    if year is None:
        return None
    ref = refs[0]
    try:
        return parse_case_id(
            CaseId(ref.kind or kind or "process", ref.number, year).canonical, today=today
        )
    except IdentifierError:
        return None


async def _read(
    registry: CaseRegistry, case: CaseId, typed: str, today: dt.date | None, movements: int
) -> dict[str, Any] | None:
    record: Process | Expediente | None = (
        await registry.process(case) if case.kind == "process" else await registry.expediente(case)
    )
    if record is None:
        return None
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
