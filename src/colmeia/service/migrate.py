"""Schema migrations: plain ordered SQL files, ``NNNN_name.up.sql`` and ``NNNN_name.down.sql``.

The same files run on SQLite and PostgreSQL. Each step runs in one transaction together with
its row in ``schema_migrations``, so a step is either wholly applied or not at all; two servers
starting at once take turns (SQLite's write lock, a PostgreSQL advisory lock).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol

from colmeia.errors import ConfigurationError


class Database(Protocol):
    """What migrations need of the service database (:class:`colmeia.service.db.Database`).
    A protocol, so this module does not import ``db`` (which runs the migrations on open)."""

    @property
    def dialect(self) -> str: ...

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int: ...

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]: ...

    def one(self, sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None: ...

    def transaction(self) -> AbstractContextManager[Any]: ...

    def executescript(self, script: str) -> None: ...


__all__ = ["Migration", "current_version", "downgrade", "migrations", "upgrade"]

log = logging.getLogger(__name__)

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.(up|down)\.sql$")
_LOCK_ID = 0x636F6C6D  # "colm": the advisory lock migrations hold on PostgreSQL


@dataclass(frozen=True, slots=True)
class Migration:
    """One step: its number, name and the SQL that applies and reverts it."""

    version: int
    name: str
    up: str
    down: str


def migrations() -> list[Migration]:
    """Every shipped migration, in order."""
    found: dict[int, dict[str, str]] = {}
    for entry in resources.files("colmeia.service").joinpath("migrations").iterdir():
        m = _NAME.match(entry.name)
        if not m:
            continue
        version, name, way = int(m.group(1)), m.group(2), m.group(3)
        slot = found.setdefault(version, {"name": name})
        slot[way] = entry.read_text(encoding="utf-8")
    out = []
    for version in sorted(found):
        slot = found[version]
        if "up" not in slot or "down" not in slot:
            raise ConfigurationError(f"migration {version:04d} lacks its up or down file")
        out.append(Migration(version, slot["name"], slot["up"], slot["down"]))
    return out


def _ensure_table(db: Database) -> None:
    db.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at DOUBLE PRECISION NOT NULL)"
    )


def _lock(db: Database) -> None:
    if db.dialect == "postgresql":
        db.query("SELECT pg_advisory_xact_lock(?)", (_LOCK_ID,))


def current_version(db: Database) -> int:
    """The highest applied migration (0 for an empty database)."""
    _ensure_table(db)
    row = db.one("SELECT MAX(version) AS v FROM schema_migrations")
    return int(row["v"]) if row and row["v"] is not None else 0


def upgrade(db: Database, target: int | None = None) -> list[int]:
    """Apply every migration up to ``target`` (default: the latest); the versions applied."""
    _ensure_table(db)
    applied: list[int] = []
    for step in migrations():
        if target is not None and step.version > target:
            break
        with db.transaction():
            _lock(db)
            if db.one("SELECT 1 AS x FROM schema_migrations WHERE version = ?", (step.version,)):
                continue
            db.executescript(step.up)
            db.execute(
                "INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)",
                (step.version, step.name, time.time()),
            )
        log.info("service database: applied migration %04d_%s", step.version, step.name)
        applied.append(step.version)
    return applied


def downgrade(db: Database, target: int = 0) -> list[int]:
    """Revert migrations above ``target`` (default: all), newest first; the versions reverted."""
    _ensure_table(db)
    reverted: list[int] = []
    for step in reversed(migrations()):
        if step.version <= target:
            break
        with db.transaction():
            _lock(db)
            if not db.one(
                "SELECT 1 AS x FROM schema_migrations WHERE version = ?", (step.version,)
            ):
                continue
            db.executescript(step.down)
            db.execute("DELETE FROM schema_migrations WHERE version = ?", (step.version,))
        log.info("service database: reverted migration %04d_%s", step.version, step.name)
        reverted.append(step.version)
    return reverted
