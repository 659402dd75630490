"""Import a case registry from CSV files (one file per table), and export one.

Files are recognised by name: ``processes.csv``, ``expedientes.csv``, ``parties.csv``,
``movements.csv``, ``documents.csv`` (or ``processos``/``partes``/``movimentacoes``/
``documentos``). Identifiers are normalised from common typings; dates may be ISO
(``2024-03-05``) or Brazilian (``05/03/2024``). A bad row is reported with its file, line and
reason and skipped; the rest is imported. Rows that refer to a case that is neither in the
import nor in the registry are reported too, never attached to nothing.

The same rows can come from elsewhere than files on disk: :func:`import_tables` takes them
from any source (uploaded CSV bytes through :func:`csv_rows`, JSON objects through
:func:`json_rows`), so every way in is checked by the same rules.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from colmeia.apps.assistant.ids import IdentifierError, parse_case_id
from colmeia.apps.assistant.registry_diff import (
    CHILD_TABLES,
    CaseChange,
    LocationConflict,
    case_changes,
    location_conflicts,
)
from colmeia.apps.assistant.registry_records import (
    CaseDocument,
    Expediente,
    Movement,
    Party,
    Process,
    RegistryBatch,
)
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.errors import ConfigurationError
from colmeia.spreadsheet import csv_row, csv_text

__all__ = [
    "TABLES",
    "ImportProblem",
    "ImportReport",
    "Row",
    "TableRows",
    "csv_rows",
    "export_registry",
    "import_registry",
    "import_tables",
    "json_rows",
    "table_of",
]

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
    #: per case named by the import, what it changed (new case, fields, rows ±/~)
    changes: list[CaseChange] = field(default_factory=list)
    #: cases whose recorded location contradicts their latest movement
    conflicts: list[LocationConflict] = field(default_factory=list)
    merged: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "imported": self.counts,
            "merged": self.merged,
            "changes": [c.as_dict() for c in self.changes if not c.unchanged],
            "location_conflicts": [c.as_dict() for c in self.conflicts],
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
        audited_body=next(
            (row[k].strip() for k in _AUDITED_BODY if (row.get(k) or "").strip()), ""
        ),
    )


#: the audited body's column, as registries name it
_AUDITED_BODY = ("audited_body", "unidade_jurisdicionada", "jurisdicionada", "jurisdicionado")


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


#: the tables an import fills, in the order they are read (cases before what refers to them)
TABLES = _ORDER

#: a row (column → text), or why the source could not make one of what it read
Row = dict[str, str] | str
#: one table: its source's name and its rows as ``(where, row)`` pairs, ``where`` naming the
#: row in problems (``processes.csv:3``); reading may raise ``OSError``, ``csv.Error`` or
#: ``ValueError`` (``UnicodeDecodeError`` included), reported against the source
TableRows = tuple[str, Iterable[tuple[str, Row]]]


def _dict_rows(label: str, reader: csv.DictReader[str]) -> Iterator[tuple[str, Row]]:
    if reader.fieldnames:
        reader.fieldnames = [n.strip().lower() for n in reader.fieldnames]
    for row in reader:
        yield (
            f"{label}:{reader.line_num}",
            {
                k: csv_text(v) if isinstance(v, str) else v
                for k, v in row.items()
                if isinstance(k, str)
            },
        )


def _file_rows(path: Path) -> Iterator[tuple[str, Row]]:
    with path.open(encoding="utf-8-sig", newline="") as fh:
        yield from _dict_rows(str(path), csv.DictReader(fh))


def csv_rows(label: str, data: bytes) -> Iterator[tuple[str, Row]]:
    """The rows of CSV ``data`` (UTF-8, a header line first), named ``label:line``."""
    text = data.decode("utf-8-sig")
    yield from _dict_rows(label, csv.DictReader(io.StringIO(text, newline="")))


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"a value must be text or a number, not {type(value).__name__}")
    return str(value)


def json_rows(label: str, rows: Iterable[object]) -> Iterator[tuple[str, Row]]:
    """JSON objects as rows (the CSV's columns as keys), named ``label[index]``.

    A row that is not an object, or holds a list or an object as a value, comes as the
    reason instead, so the import reports that row and goes on.
    """
    for i, row in enumerate(rows, start=1):
        where = f"{label}[{i}]"
        if not isinstance(row, Mapping):
            yield where, f"a row must be an object with the CSV's columns, not {type(row).__name__}"
            continue
        try:
            yield where, {str(k).strip().lower(): _cell(v) for k, v in row.items()}
        except ValueError as exc:
            yield where, str(exc)


def table_of(name: str) -> str | None:
    """The table a file name stands for (``processos.csv`` → ``processes``), or ``None``."""
    stem = Path(name).stem.strip().lower()
    return next((t for t, names in _TABLES.items() if stem in names), None)


def import_registry(
    registry: SQLiteCaseRegistry, paths: list[Path], *, merge: bool = False
) -> ImportReport:
    """Import CSV files (or folders holding them) into ``registry`` (see
    :func:`import_tables` for ``merge``)."""
    problems: list[ImportProblem] = []
    files: dict[str, Path] = {}
    for p in paths:
        if not p.exists():
            problems.append(ImportProblem(str(p), "no such file or folder"))
            continue
        candidates = sorted(p.glob("*.csv")) if p.is_dir() else [p]
        for f in candidates:
            table = table_of(f.name)
            if table is None:
                problems.append(ImportProblem(str(f), UNKNOWN_TABLE))
            else:
                files[table] = f
    if not files:
        raise ConfigurationError(NOTHING_TO_IMPORT)
    tables = {table: (str(path), _file_rows(path)) for table, path in files.items()}
    report = import_tables(registry, tables, merge=merge)
    report.problems[:0] = problems
    return report


UNKNOWN_TABLE = (
    "unknown table: name the file processes.csv, expedientes.csv, parties.csv, movements.csv "
    "or documents.csv"
)
NOTHING_TO_IMPORT = (
    "nothing to import: give CSV files named processes.csv, expedientes.csv, "
    "parties.csv, movements.csv or documents.csv (or a folder holding them)"
)


def import_tables(
    registry: SQLiteCaseRegistry, tables: Mapping[str, TableRows], *, merge: bool = False
) -> ImportReport:
    """Import rows into ``registry``: ``tables`` maps a table (see :data:`TABLES`) to its
    source's name and its rows. Bad rows are reported and skipped; the rest is written.

    A re-import replaces: for every case the import names, its parties, movements and
    documents are those of the import, in each of those tables the import carries (old rows
    not in it are removed). With ``merge`` the import's rows are added to what is there
    (a row of the same case and ``seq`` is overwritten). The report says, per case, what
    changed, and which cases' recorded location contradicts their latest movement."""
    report = ImportReport(merged=merge)
    unknown = sorted(set(tables) - set(_ORDER))
    if unknown:
        raise ConfigurationError(f"unknown tables {unknown}: use {', '.join(_ORDER)}")
    known = registry.known_numbers()
    batch = RegistryBatch()

    def each(table: str, build: Callable[[dict[str, str]], None]) -> None:
        source = tables.get(table)
        if source is None:
            return
        label, rows = source
        report.files.append(label)
        try:
            for where, row in rows:
                try:
                    if isinstance(row, str):  # the source could not make a row of it
                        raise _RowError(row)
                    build(row)
                    report.counts[table] += 1
                except _RowError as exc:
                    report.problems.append(ImportProblem(where, str(exc)))
        except (OSError, UnicodeError, csv.Error, ValueError) as exc:
            report.problems.append(ImportProblem(label, f"{type(exc).__name__}: {exc}"))

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
    named = list(
        dict.fromkeys(
            [p.number for p in batch.processes]
            + [e.number for e in batch.expedientes]
            + [n for n, _ in (*batch.parties, *batch.movements, *batch.documents)]
        )
    )
    before = registry.rows_of(named)
    if not merge:
        registry.replace_rows(named, [t for t in CHILD_TABLES if t in tables])
    registry.write(batch)
    after = registry.rows_of(named)
    report.changes = case_changes(before, after)
    report.conflicts = location_conflicts(after)
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
            w.writerows(csv_row(r) for r in rows)
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
            "audited_body",
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
