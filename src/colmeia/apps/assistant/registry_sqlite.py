"""The case registry in one SQLite file (``sqlite:///registry.db``), the default backend of
:class:`~colmeia.apps.assistant.registry.CaseRegistry`."""

from __future__ import annotations

import datetime as dt
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from colmeia.apps.assistant.case_index import CaseIndex
from colmeia.apps.assistant.ids import CaseId, IdentifierError, parse_case_id
from colmeia.apps.assistant.registry_records import (
    CaseDocument,
    CaseSummary,
    Expediente,
    Location,
    Movement,
    Party,
    Process,
    RegistryBatch,
    Subscription,
    locate,
)
from colmeia.errors import ConfigurationError, StoreError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS processes (
    number TEXT PRIMARY KEY, filed_on TEXT NOT NULL, unit TEXT NOT NULL,
    case_class TEXT NOT NULL, subclass TEXT NOT NULL DEFAULT '', rapporteur TEXT NOT NULL,
    status TEXT NOT NULL, location TEXT NOT NULL, subject TEXT NOT NULL DEFAULT '',
    audited_body TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS expedientes (
    number TEXT PRIMARY KEY, opened_on TEXT NOT NULL, type TEXT NOT NULL,
    origin_unit TEXT NOT NULL, subject TEXT NOT NULL, status TEXT NOT NULL,
    location TEXT NOT NULL DEFAULT '', process TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS parties (
    case_number TEXT NOT NULL, name TEXT NOT NULL, role TEXT NOT NULL,
    PRIMARY KEY (case_number, name, role)
);
CREATE TABLE IF NOT EXISTS movements (
    case_number TEXT NOT NULL, seq INTEGER NOT NULL, at TEXT NOT NULL,
    from_unit TEXT NOT NULL, to_unit TEXT NOT NULL, description TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT '', PRIMARY KEY (case_number, seq)
);
CREATE TABLE IF NOT EXISTS documents (
    case_number TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, title TEXT NOT NULL,
    date TEXT NOT NULL, pages INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (case_number, seq)
);
CREATE TABLE IF NOT EXISTS subscriptions (
    key TEXT PRIMARY KEY, case_number TEXT NOT NULL, contact TEXT NOT NULL,
    created_at TEXT NOT NULL
);
"""


class SQLiteCaseRegistry:
    """A registry in one SQLite file. Reads are sub-millisecond, so they run inline."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        self.url = f"sqlite:///{self.path}"
        if not create and not self.path.exists():
            raise ConfigurationError(
                f"no case registry at {self.path}; create one with `colmeia registry demo` "
                "or `colmeia registry import`, or set COLMEIA_ASSISTANT_REGISTRY"
            )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(str(self.path), check_same_thread=False)
            self._conn.executescript("PRAGMA journal_mode=WAL;" + _SCHEMA)
            _migrate(self._conn)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the case registry {self.path}: {exc}") from exc
        self._lock = threading.Lock()
        self._index: CaseIndex | None = None
        self._index_version: tuple[int, int] = (-1, -1)
        self._writes = 0

    # ------------------------------------------------------------------ reads
    def _rows(self, sql: str, args: Sequence[Any]) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return list(self._conn.execute(sql, args))
            except sqlite3.Error as exc:
                raise StoreError(f"case registry {self.path}: {exc}") from exc

    async def process(self, case: CaseId) -> Process | None:
        rows = self._rows(
            "SELECT number, filed_on, unit, case_class, subclass, rapporteur, status, location,"
            " subject, audited_body FROM processes WHERE number = ?",
            (case.canonical,),
        )
        return Process(*rows[0]) if rows and case.kind == "process" else None

    async def expediente(self, case: CaseId) -> Expediente | None:
        rows = self._rows(
            "SELECT number, opened_on, type, origin_unit, subject, status, location, process"
            " FROM expedientes WHERE number = ?",
            (case.canonical,),
        )
        return Expediente(*rows[0]) if rows and case.kind == "expediente" else None

    async def parties(self, case: CaseId) -> list[Party]:
        rows = self._rows(
            "SELECT name, role FROM parties WHERE case_number = ? ORDER BY role, name",
            (case.canonical,),
        )
        return [Party(*r) for r in rows]

    async def movements(self, case: CaseId, limit: int = 20) -> list[Movement]:
        rows = self._rows(
            "SELECT seq, at, from_unit, to_unit, description, status FROM movements"
            " WHERE case_number = ? ORDER BY seq DESC LIMIT ?",
            (case.canonical, max(1, limit)),
        )
        return [Movement(*r) for r in rows]

    async def documents(self, case: CaseId, limit: int = 20) -> list[CaseDocument]:
        rows = self._rows(
            "SELECT seq, kind, title, date, pages FROM documents WHERE case_number = ?"
            " ORDER BY seq DESC LIMIT ?",
            (case.canonical, max(1, limit)),
        )
        return [CaseDocument(*r) for r in rows]

    async def location(self, case: CaseId, today: dt.date | None = None) -> Location | None:
        record: Process | Expediente | None = (
            await self.process(case) if case.kind == "process" else await self.expediente(case)
        )
        if record is None:
            return None
        return locate(record, await self.movements(case, limit=10_000), today)

    async def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for table in ("processes", "expedientes", "parties", "movements", "documents"):
            out[table] = int(self._rows(f"SELECT COUNT(*) FROM {table}", ())[0][0])
        return out

    # ------------------------------------------------------------------ writes
    async def subscribe(self, case: CaseId, contact: str, key: str) -> Subscription:
        if not key:
            raise ConfigurationError("a subscription needs an idempotency key")
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        with self._lock:
            try:
                cur = self._conn.execute(
                    "INSERT OR IGNORE INTO subscriptions (key, case_number, contact, created_at)"
                    " VALUES (?, ?, ?, ?)",
                    (key, case.canonical, contact, now),
                )
                self._conn.commit()
                created = cur.rowcount == 1
                row = self._conn.execute(
                    "SELECT key, case_number, contact, created_at FROM subscriptions WHERE key = ?",
                    (key,),
                ).fetchone()
            except sqlite3.Error as exc:
                raise StoreError(f"case registry {self.path}: {exc}") from exc
        key_, number, contact, created_at = row
        return Subscription(key_, number, contact, created_at, created)

    def subscriptions(self) -> list[Subscription]:
        """Every subscription (for tests and administrators)."""
        rows = self._rows(
            "SELECT key, case_number, contact, created_at FROM subscriptions ORDER BY created_at",
            (),
        )
        return [Subscription(r[0], r[1], r[2], r[3], False) for r in rows]

    def write(self, batch: RegistryBatch) -> None:
        """Insert or replace a batch of records in one transaction."""
        with self._lock:
            try:
                with self._conn:
                    self._conn.executemany(
                        f"INSERT OR REPLACE INTO processes ({_PROCESS_COLUMNS})"
                        " VALUES (?,?,?,?,?,?,?,?,?,?)",
                        [_values(p) for p in batch.processes],
                    )
                    self._conn.executemany(
                        "INSERT OR REPLACE INTO expedientes VALUES (?,?,?,?,?,?,?,?)",
                        [_values(e) for e in batch.expedientes],
                    )
                    self._conn.executemany(
                        "INSERT OR REPLACE INTO parties VALUES (?,?,?)",
                        [(n, p.name, p.role) for n, p in batch.parties],
                    )
                    self._conn.executemany(
                        "INSERT OR REPLACE INTO movements VALUES (?,?,?,?,?,?,?)",
                        [(n, *_values(m)) for n, m in batch.movements],
                    )
                    self._conn.executemany(
                        "INSERT OR REPLACE INTO documents VALUES (?,?,?,?,?,?)",
                        [(n, *_values(d)) for n, d in batch.documents],
                    )
            except sqlite3.Error as exc:
                raise StoreError(f"case registry {self.path}: {exc}") from exc
            self._writes += 1

    def replace_rows(self, numbers: Sequence[str], tables: Sequence[str]) -> None:
        """Delete the ``tables`` rows (``parties``, ``movements``, ``documents``) of the cases
        ``numbers``, so that an import writes them anew instead of merging."""
        wrong = sorted(set(tables) - {"parties", "movements", "documents"})
        if wrong:
            raise ConfigurationError(f"cannot replace rows of {wrong}")
        with self._lock:
            try:
                with self._conn:
                    for table in tables:
                        self._conn.executemany(
                            f"DELETE FROM {table} WHERE case_number = ?", [(n,) for n in numbers]
                        )
            except sqlite3.Error as exc:
                raise StoreError(f"case registry {self.path}: {exc}") from exc
            self._writes += 1

    def rows_of(self, numbers: Sequence[str]) -> dict[str, dict[str, Any]]:
        """What the registry holds of each case in ``numbers``, as plain rows: ``record``
        (field → value, or ``None``) and ``parties``/``movements``/``documents`` (lists of
        tuples, movements and documents with their ``seq`` first) — what an import compares."""
        out: dict[str, dict[str, Any]] = {}
        for n in numbers:
            proc = self._rows(f"SELECT {_PROCESS_COLUMNS} FROM processes WHERE number = ?", (n,))
            exp = self._rows(
                "SELECT number, opened_on, type, origin_unit, subject, status, location, process"
                " FROM expedientes WHERE number = ?",
                (n,),
            )
            record = (
                Process(*proc[0]).as_dict()
                if proc
                else Expediente(*exp[0]).as_dict()
                if exp
                else None
            )
            out[n] = {
                "record": record,
                "parties": self._rows("SELECT name, role FROM parties WHERE case_number = ?", (n,)),
                "movements": self._rows(
                    "SELECT seq, at, from_unit, to_unit, description, status FROM movements"
                    " WHERE case_number = ? ORDER BY seq",
                    (n,),
                ),
                "documents": self._rows(
                    "SELECT seq, kind, title, date, pages FROM documents WHERE case_number = ?"
                    " ORDER BY seq",
                    (n,),
                ),
            }
        return out

    async def case_numbers(self, number: int, year: int | None = None) -> list[CaseId]:
        """Every process and expediente numbered ``number`` (of ``year`` when given), oldest
        first: what a short reference ("processo 4506") may mean."""
        p_year = str(year) if year else "%"
        rows = self._rows(
            "SELECT number FROM processes WHERE number LIKE ? UNION "
            "SELECT number FROM expedientes WHERE number LIKE ?",
            (f"TC/{number:06d}/{p_year}", f"EXP-{p_year}-{number:05d}"),
        )
        out = [_case_id(r[0]) for r in rows]
        return sorted((c for c in out if c is not None), key=lambda c: (c.year, c.kind))

    def _search_index(self) -> CaseIndex:
        version = (self._writes, int(self._rows("PRAGMA data_version", ())[0][0]))
        if self._index is None or version != self._index_version:
            parties: dict[str, list[str]] = {}
            for number, name, role in self._rows("SELECT case_number, name, role FROM parties", ()):
                parties.setdefault(number, []).append(f"{name} {role}")
            docs = [
                (r[0], " ".join([*map(str, r[1:]), *parties.get(r[0], [])]))
                for r in self._rows(
                    f"SELECT number, subject, audited_body, unit, type, rapporteur FROM ({_CASES})",
                    (),
                )
            ]
            self._index = CaseIndex(docs)
            self._index_version = version
        return self._index

    def rank(self, text: str, limit: int = 20) -> tuple[int, list[CaseSummary]]:
        """Cases described by ``text``, best first (see :meth:`CaseRegistry.find`)."""
        hits = self._search_index().rank(text)
        top = hits[: max(1, limit)]
        if not top:
            return 0, []
        marks = ",".join("?" * len(top))
        rows = {
            r[1]: r
            for r in self._rows(
                f"SELECT * FROM ({_CASES}) WHERE number IN ({marks})", [h.key for h in top]
            )
        }
        out = []
        for h in top:
            if h.key in rows:
                summary = CaseSummary(*rows[h.key])
                summary.score, summary.matched = round(h.score, 4), h.matched
                summary.phrase, summary.known = h.phrase, h.known
                out.append(summary)
        return len(hits), out

    def search(
        self,
        text: str = "",
        *,
        kind: str | None = None,
        status: str = "",
        limit: int = 20,
        offset: int = 0,
    ) -> tuple[int, list[CaseSummary]]:
        """Cases whose number, subject, class/type, unit, rapporteur or parties contain
        ``text`` (and of ``kind``, with ``status`` in their status), newest first: the total
        and one page of ``limit`` from ``offset``."""
        where: list[str] = []
        args: list[Any] = []
        if kind:
            where.append("kind = ?")
            args.append(kind)
        if status.strip():
            where.append("status LIKE ? ESCAPE '\\'")
            args.append(_like(status))
        if text.strip():
            like = _like(text)
            where.append(
                "(number LIKE ? ESCAPE '\\' OR subject LIKE ? ESCAPE '\\' OR type LIKE ? "
                "ESCAPE '\\' OR unit LIKE ? ESCAPE '\\' OR rapporteur LIKE ? ESCAPE '\\' "
                "OR audited_body LIKE ? ESCAPE '\\' "
                "OR number IN (SELECT case_number FROM parties WHERE name LIKE ? ESCAPE '\\'))"
            )
            args += [like] * 7
        cond = f" WHERE {' AND '.join(where)}" if where else ""
        total = int(self._rows(f"SELECT COUNT(*) FROM ({_CASES}){cond}", args)[0][0])
        rows = self._rows(
            f"SELECT * FROM ({_CASES}){cond} ORDER BY date DESC, number LIMIT ? OFFSET ?",
            [*args, max(1, limit), max(0, offset)],
        )
        return total, [CaseSummary(*r) for r in rows]

    async def find(self, text: str, limit: int = 20) -> tuple[int, list[CaseSummary]]:
        return self.rank(text, limit=limit)

    async def descriptions(self) -> dict[str, str]:
        """Each case's description as the search ranks it (subject, audited body, unit,
        class, rapporteur, parties), by number."""
        return self._search_index().texts

    def known_numbers(self) -> set[str]:
        """Every process and expediente number (for import checks)."""
        rows = self._rows("SELECT number FROM processes UNION SELECT number FROM expedientes", ())
        return {r[0] for r in rows}

    async def close(self) -> None:
        self.close_sync()

    def close_sync(self) -> None:
        with self._lock:
            self._conn.close()


# processes and expedientes as one list of summaries (see CaseSummary)
_CASES = (
    "SELECT 'process' AS kind, number, filed_on AS date, case_class AS type, unit, rapporteur,"
    " status, location, subject, audited_body FROM processes UNION ALL"
    " SELECT 'expediente', number, opened_on, type, origin_unit, '', status, location, subject,"
    " '' FROM expedientes"
)
_PROCESS_COLUMNS = (
    "number, filed_on, unit, case_class, subclass, rapporteur, status, location, subject,"
    " audited_body"
)


def _migrate(conn: sqlite3.Connection) -> None:
    """Bring a registry written by an older colmeia up to the current schema."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(processes)")}
    if "audited_body" not in columns:
        conn.execute("ALTER TABLE processes ADD COLUMN audited_body TEXT NOT NULL DEFAULT ''")
        conn.commit()


def _case_id(number: str) -> CaseId | None:
    try:
        return parse_case_id(number)
    except IdentifierError:
        return None


def _like(text: str) -> str:
    escaped = text.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _values(record: Any) -> tuple[Any, ...]:
    return tuple(asdict(record).values())
