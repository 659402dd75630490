"""Import a case registry from CSV files (one file per table), and export one.

Files are recognised by name: ``processes.csv``, ``expedientes.csv``, ``parties.csv``,
``movements.csv``, ``documents.csv`` (or ``processos``/``partes``/``movimentacoes``/
``documentos``). Identifiers are normalised from common typings; dates may be ISO
(``2024-03-05``) or Brazilian (``05/03/2024``). A bad row is reported with its file, line and
reason and skipped; the rest is imported. Rows that refer to a case that is neither in the
import nor in the registry are reported too, never attached to nothing.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from colmeia.apps.assistant.ids import IdentifierError, parse_case_id
from colmeia.apps.assistant.registry import (
    CaseDocument,
    Expediente,
    Movement,
    Party,
    Process,
    RegistryBatch,
    SQLiteCaseRegistry,
)
from colmeia.errors import ConfigurationError

__all__ = ["ImportProblem", "ImportReport", "export_registry", "import_registry"]

_TABLES: dict[str, tuple[str, ...]] = {
    "processes": ("processes", "processos"),
    "expedientes": ("expedientes",),
    "parties": ("parties", "partes"),
    "movements": ("movements", "movimentacoes", "movimentações"),
    "documents": ("documents", "documentos"),
}
_ORDER = ("processes", "expedientes", "parties", "movements", "documents")
_BR_DATE = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4})$")


@dataclass(slots=True)
class ImportProblem:
    """One row (or file) that was not imported, and why."""

    where: str
    reason: str


@dataclass(slots=True)
class ImportReport:
    """What an import did, per table, and what it could not import."""

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_ORDER, 0))
    problems: list[ImportProblem] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "imported": self.counts,
            "problems": [{"where": p.where, "reason": p.reason} for p in self.problems],
        }


class _RowError(ValueError):
    pass


def _date(value: str, name: str) -> str:
    value = value.strip()
    m = _BR_DATE.match(value)
    try:
        if m:
            return dt.date(int(m.group(3)), int(m.group(2)), int(m.group(1))).isoformat()
        return dt.date.fromisoformat(value[:10]).isoformat()
    except ValueError:
        raise _RowError(f"{name} {value!r} is not a date (use 2024-03-05 or 05/03/2024)") from None


def _need(row: dict[str, str], name: str) -> str:
    value = (row.get(name) or "").strip()
    if not value:
        raise _RowError(f"column {name!r} is empty or missing")
    return value


def _case(row: dict[str, str], kind: str | None = None) -> str:
    raw = _need(row, "number")
    try:
        case = parse_case_id(raw)
    except IdentifierError as exc:
        raise _RowError(str(exc)) from None
    if kind and case.kind != kind:
        raise _RowError(f"{raw!r} is not a {kind} number")
    return case.canonical


def _int(value: str, name: str) -> int:
    try:
        return int(value.strip() or "0")
    except ValueError:
        raise _RowError(f"{name} {value!r} is not a whole number") from None


def _process(row: dict[str, str]) -> Process:
    return Process(
        number=_case(row, "process"),
        filed_on=_date(_need(row, "filed_on"), "filed_on"),
        unit=_need(row, "unit"),
        case_class=_need(row, "case_class"),
        subclass=(row.get("subclass") or "").strip(),
        rapporteur=_need(row, "rapporteur"),
        status=_need(row, "status"),
        location=_need(row, "location"),
        subject=(row.get("subject") or "").strip(),
    )


def _expediente(row: dict[str, str]) -> Expediente:
    linked = (row.get("process") or "").strip()
    if linked:
        try:
            linked = parse_case_id(linked).canonical
        except IdentifierError as exc:
            raise _RowError(f"process: {exc}") from None
    return Expediente(
        number=_case(row, "expediente"),
        opened_on=_date(_need(row, "opened_on"), "opened_on"),
        type=_need(row, "type"),
        origin_unit=_need(row, "origin_unit"),
        subject=_need(row, "subject"),
        status=_need(row, "status"),
        location=(row.get("location") or "").strip(),
        process=linked,
    )


def _rows(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    with path.open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh)
        if reader.fieldnames:
            reader.fieldnames = [n.strip().lower() for n in reader.fieldnames]
        for row in reader:
            yield reader.line_num, {k: v for k, v in row.items() if isinstance(k, str)}


def _table_of(path: Path) -> str | None:
    stem = path.stem.strip().lower()
    return next((t for t, names in _TABLES.items() if stem in names), None)


def import_registry(registry: SQLiteCaseRegistry, paths: list[Path]) -> ImportReport:
    """Import CSV files (or folders holding them) into ``registry``."""
    report = ImportReport()
    files: dict[str, Path] = {}
    for p in paths:
        if not p.exists():
            report.problems.append(ImportProblem(str(p), "no such file or folder"))
            continue
        candidates = sorted(p.glob("*.csv")) if p.is_dir() else [p]
        for f in candidates:
            table = _table_of(f)
            if table is None:
                report.problems.append(
                    ImportProblem(
                        str(f),
                        "unknown table: name the file processes.csv, expedientes.csv, "
                        "parties.csv, movements.csv or documents.csv",
                    )
                )
            else:
                files[table] = f
    if not files:
        raise ConfigurationError(
            "nothing to import: give CSV files named processes.csv, expedientes.csv, "
            "parties.csv, movements.csv or documents.csv (or a folder holding them)"
        )
    known = registry.known_numbers()
    batch = RegistryBatch()

    def each(table: str, build: Callable[[dict[str, str]], None]) -> None:
        path = files.get(table)
        if path is None:
            return
        report.files.append(str(path))
        try:
            for line, row in _rows(path):
                try:
                    build(row)
                    report.counts[table] += 1
                except _RowError as exc:
                    report.problems.append(ImportProblem(f"{path}:{line}", str(exc)))
        except (OSError, UnicodeError, csv.Error) as exc:
            report.problems.append(ImportProblem(str(path), f"{type(exc).__name__}: {exc}"))

    def add_process(row: dict[str, str]) -> None:
        p = _process(row)
        batch.processes.append(p)
        known.add(p.number)

    def add_expediente(row: dict[str, str]) -> None:
        e = _expediente(row)
        batch.expedientes.append(e)
        known.add(e.number)

    def attached(row: dict[str, str]) -> str:
        number = _case(row)
        if number not in known:
            raise _RowError(f"{number} is not in the registry nor in this import")
        return number

    def add_party(row: dict[str, str]) -> None:
        batch.parties.append((attached(row), Party(_need(row, "name"), _need(row, "role"))))

    def add_movement(row: dict[str, str]) -> None:
        batch.movements.append(
            (
                attached(row),
                Movement(
                    seq=_int(_need(row, "seq"), "seq"),
                    at=_date(_need(row, "at"), "at"),
                    from_unit=(row.get("from_unit") or "—").strip(),
                    to_unit=_need(row, "to_unit"),
                    description=_need(row, "description"),
                    status=(row.get("status") or "").strip(),
                ),
            )
        )

    def add_document(row: dict[str, str]) -> None:
        batch.documents.append(
            (
                attached(row),
                CaseDocument(
                    seq=_int(_need(row, "seq"), "seq"),
                    kind=_need(row, "kind"),
                    title=_need(row, "title"),
                    date=_date(_need(row, "date"), "date"),
                    pages=_int(row.get("pages") or "0", "pages"),
                ),
            )
        )

    for table, build in zip(
        _ORDER, (add_process, add_expediente, add_party, add_movement, add_document), strict=True
    ):
        each(table, build)
    registry.write(batch)
    return report


def export_registry(batch: RegistryBatch, folder: Path) -> list[Path]:
    """Write ``batch`` as the CSV files :func:`import_registry` reads."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def write(name: str, header: list[str], rows: list[list[Any]]) -> None:
        path = folder / f"{name}.csv"
        with path.open("w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(header)
            w.writerows(rows)
        written.append(path)

    write(
        "processes",
        [
            "number",
            "filed_on",
            "unit",
            "case_class",
            "subclass",
            "rapporteur",
            "status",
            "location",
            "subject",
        ],
        [list(p.as_dict().values()) for p in batch.processes],
    )
    write(
        "expedientes",
        ["number", "opened_on", "type", "origin_unit", "subject", "status", "location", "process"],
        [list(e.as_dict().values()) for e in batch.expedientes],
    )
    write("parties", ["number", "name", "role"], [[n, p.name, p.role] for n, p in batch.parties])
    write(
        "movements",
        ["number", "seq", "at", "from_unit", "to_unit", "description", "status"],
        [[n, *m.as_dict().values()] for n, m in batch.movements],
    )
    write(
        "documents",
        ["number", "seq", "kind", "title", "date", "pages"],
        [[n, *d.as_dict().values()] for n, d in batch.documents],
    )
    return written
