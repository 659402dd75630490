"""The case registry's records: processes, expedientes, parties, movements, documents,
list lines, locations and subscriptions, a batch of them to write, and where a case is
(:func:`locate`) — what every backend returns (:mod:`colmeia.apps.assistant.registry`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(slots=True)
class Process:
    """A process (``TC/XXXXXX/YYYY``) as the registry holds it."""

    number: str
    filed_on: str
    unit: str
    case_class: str
    subclass: str
    rapporteur: str
    status: str
    location: str
    subject: str = ""
    #: the audited body (``unidade jurisdicionada``): the municipality, fund or agency whose
    #: accounts or acts the case examines — not the court's technical unit (``unit``)
    audited_body: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class Expediente:
    """An expediente (``EXP-YYYY-XXXXX``): a filed document or request, maybe tied to a process."""

    number: str
    opened_on: str
    type: str
    origin_unit: str
    subject: str
    status: str
    location: str = ""
    process: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class Party:
    """Someone in a case: a responsible person, an interested party, a representative."""

    name: str
    role: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class Movement:
    """One step of a case's path: when, from which unit to which, and what happened."""

    seq: int
    at: str
    from_unit: str
    to_unit: str
    description: str
    status: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class CaseDocument:
    """A document in a case file."""

    seq: int
    kind: str
    title: str
    date: str
    pages: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class CaseSummary:
    """One line of a case list: a process or an expediente with what identifies it."""

    kind: str
    number: str
    date: str
    type: str
    unit: str
    rapporteur: str
    status: str
    location: str
    subject: str
    audited_body: str = ""
    #: BM25 relevance and how many of the query's terms the case holds (0 outside a ranking)
    score: float = 0.0
    matched: int = 0
    phrase: bool = False
    #: how many of the query's terms any case of the registry holds (0 outside a ranking)
    known: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class Location:
    """Where a case is now and since when (the last movement that brought it there)."""

    number: str
    location: str
    since: str
    days: int
    status: str
    last_movement: Movement | None = None
    #: where the latest movement sent the case when that is not the recorded location: the
    #: record and its history disagree, and ``since`` is then unknown (empty), not guessed
    conflict_unit: str = ""

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["last_movement"] = self.last_movement.as_dict() if self.last_movement else None
        return out


@dataclass(slots=True)
class Subscription:
    """A request to be told of a case's movements; ``key`` makes repeating it harmless."""

    key: str
    number: str
    contact: str
    created_at: str
    created: bool = True

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def locate(
    record: Process | Expediente, movements: Sequence[Movement], today: dt.date | None = None
) -> Location:
    """Where ``record`` is and since when: the start of the latest stay at its current unit.

    ``movements`` are newest first. A case that moves inside its unit (a diligence, a
    citation) has been there since it first arrived, not since the last event. When the
    latest movement sent the case elsewhere than its recorded location, the two disagree:
    the location is kept, ``conflict_unit`` names the movement's unit and ``since`` is left
    empty (the filing date would be a guess).
    """
    today = today or dt.date.today()
    opened = record.filed_on if isinstance(record, Process) else record.opened_on
    last = movements[0] if movements else None
    if last is not None and record.location and last.to_unit != record.location:
        return Location(
            record.number, record.location, "", 0, record.status, last, conflict_unit=last.to_unit
        )
    since = opened
    for m in movements:
        if m.to_unit != record.location:
            break
        since = m.at
    return Location(
        record.number, record.location, since, _days_between(since, today), record.status, last
    )


def _days_between(since: str, today: dt.date) -> int:
    try:
        day = dt.date.fromisoformat(since[:10])
    except ValueError:
        return 0
    return max((today - day).days, 0)


@dataclass(slots=True)
class RegistryBatch:
    """Records to write at once; parties, movements and documents carry their case number."""

    processes: list[Process] = field(default_factory=list)
    expedientes: list[Expediente] = field(default_factory=list)
    parties: list[tuple[str, Party]] = field(default_factory=list)
    movements: list[tuple[str, Movement]] = field(default_factory=list)
    documents: list[tuple[str, CaseDocument]] = field(default_factory=list)

    def extend(self, other: RegistryBatch) -> None:
        self.processes += other.processes
        self.expedientes += other.expedientes
        self.parties += other.parties
        self.movements += other.movements
        self.documents += other.documents

    def __len__(self) -> int:
        return len(self.processes) + len(self.expedientes)
