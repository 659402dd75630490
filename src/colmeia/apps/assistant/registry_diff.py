"""What a re-import changed, case by case, and where a case's record and history disagree.

An import compares what the registry held of each case it names before and after writing:
rows added, removed and changed per table (movements and documents are matched by their
``seq``, parties by name and role) and the record's fields that changed. A case whose
recorded location is not where its latest movement sent it is flagged, never silently
explained by its filing date.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from colmeia.apps.assistant.registry_records import Expediente, Movement, Process, locate

__all__ = ["CHILD_TABLES", "CaseChange", "LocationConflict", "case_changes", "location_conflicts"]

CHILD_TABLES = ("parties", "movements", "documents")


@dataclass(slots=True)
class CaseChange:
    """One case's change in an import: ``new`` when the registry did not hold it."""

    number: str
    new: bool = False
    fields: list[str] = field(default_factory=list)
    added: dict[str, int] = field(default_factory=dict)
    removed: dict[str, int] = field(default_factory=dict)
    changed: dict[str, int] = field(default_factory=dict)

    @property
    def unchanged(self) -> bool:
        return not (self.new or self.fields or self.added or self.removed or self.changed)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        """One line: "novo" or what changed ("status; +2 movements, -1 parties")."""
        if self.new:
            return "new case"
        parts = [f"fields: {', '.join(self.fields)}"] if self.fields else []
        parts += [f"+{n} {t}" for t, n in self.added.items()]
        parts += [f"-{n} {t}" for t, n in self.removed.items()]
        parts += [f"~{n} {t}" for t, n in self.changed.items()]
        return "; ".join(parts) or "unchanged"


@dataclass(slots=True)
class LocationConflict:
    """A case recorded at ``location`` whose latest movement sent it to ``movement_unit``."""

    number: str
    location: str
    movement_unit: str
    movement_at: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def message(self) -> str:
        return (
            f"{self.number}: recorded location {self.location!r}, but the latest movement "
            f"({self.movement_at}) sent it to {self.movement_unit!r}; check which is right"
        )


def _keyed(table: str, rows: Sequence[tuple[Any, ...]]) -> dict[Any, tuple[Any, ...]]:
    if table == "parties":
        return {tuple(r): tuple(r) for r in rows}
    return {r[0]: tuple(r) for r in rows}


def case_changes(
    before: Mapping[str, Mapping[str, Any]], after: Mapping[str, Mapping[str, Any]]
) -> list[CaseChange]:
    """Per case, what differs between two :meth:`SQLiteCaseRegistry.rows_of` snapshots."""
    out: list[CaseChange] = []
    for number, now in after.items():
        old = before.get(number) or {}
        change = CaseChange(number, new=old.get("record") is None)
        if not change.new:
            old_rec, new_rec = old["record"], now.get("record") or {}
            change.fields = [k for k in new_rec if old_rec.get(k) != new_rec.get(k)]
        for table in CHILD_TABLES:
            a, b = _keyed(table, old.get(table) or []), _keyed(table, now.get(table) or [])
            counts = (
                ("added", len(b.keys() - a.keys())),
                ("removed", len(a.keys() - b.keys())),
                ("changed", sum(1 for k in a.keys() & b.keys() if a[k] != b[k])),
            )
            for name, n in counts:
                if n and not (change.new and name == "added"):
                    getattr(change, name)[table] = n
        out.append(change)
    return out


def location_conflicts(after: Mapping[str, Mapping[str, Any]]) -> list[LocationConflict]:
    """The cases of a snapshot whose recorded location contradicts their latest movement."""
    out: list[LocationConflict] = []
    for number, now in after.items():
        rec = now.get("record")
        if not rec:
            continue
        record: Process | Expediente = Process(**rec) if "filed_on" in rec else Expediente(**rec)
        moves = [Movement(*r) for r in reversed(now.get("movements") or [])]
        loc = locate(record, moves)
        if loc.conflict_unit and loc.last_movement is not None:
            out.append(
                LocationConflict(number, loc.location, loc.conflict_unit, loc.last_movement.at)
            )
    return out
