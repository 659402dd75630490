"""The service's tables (keys, jobs, audit log, threads, sign-ins) over SQLite or PostgreSQL.

One small wrapper speaks both: SQL is written once with ``?`` placeholders and portable types,
and translated for psycopg. Calls are short and serialised on one connection per process;
SQLite runs in WAL mode with a busy timeout so ``colmeia keys`` can write while a server runs.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from colmeia.errors import ConfigurationError, StoreError

__all__ = ["Database", "open_database"]

Row = dict[str, Any]


class Database:
    """A connection to the service tables, safe to share between threads."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._lock = threading.RLock()
        self._in_tx = False
        self.dialect: Literal["sqlite", "postgresql"]
        if url.startswith(("postgresql://", "postgres://")):
            self.dialect = "postgresql"
            from colmeia.store.postgres import split_schema

            self._conninfo, self.schema = split_schema(url)
            self._pg: Any = None
            self._connect_pg()
        elif url.startswith("sqlite:///"):
            self.dialect = "sqlite"
            self.schema = "main"
            self.path = Path(url[len("sqlite:///") :])
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._sq = sqlite3.connect(
                    self.path, check_same_thread=False, isolation_level=None, timeout=10.0
                )
                self._sq.row_factory = sqlite3.Row
                self._sq.execute("PRAGMA journal_mode=WAL")
                self._sq.execute("PRAGMA synchronous=NORMAL")
                self._sq.execute("PRAGMA foreign_keys=ON")
            except (sqlite3.Error, OSError) as exc:
                raise StoreError(
                    f"cannot open the service database {self.path}: {exc}; check "
                    "COLMEIA_SERVICE_DB / COLMEIA_HOME and the folder's permissions"
                ) from exc
        else:
            raise ConfigurationError(
                f"COLMEIA_SERVICE_DB={url!r} is not sqlite:///path or postgresql://…"
            )

    # ------------------------------------------------------------------ connections
    def _connect_pg(self) -> None:
        import psycopg
        from psycopg.rows import dict_row

        try:
            conn = psycopg.connect(
                self._conninfo, autocommit=True, row_factory=dict_row, connect_timeout=10
            )
            conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
            conn.execute(f'SET search_path TO "{self.schema}"')
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot connect to the service database ({self.schema}): {exc}; "
                "check COLMEIA_SERVICE_DB"
            ) from exc
        self._pg = conn

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self.dialect == "postgresql" else sql

    def _run(self, sql: str, params: Sequence[Any]) -> tuple[list[Row], int]:
        if self.dialect == "sqlite":
            try:
                cur = self._sq.execute(sql, tuple(params))
                rows = [dict(r) for r in cur.fetchall()] if cur.description else []
                return rows, cur.rowcount
            except sqlite3.Error as exc:
                raise StoreError(f"service database {self.path}: {exc}") from exc
        import psycopg

        for attempt in (0, 1):
            try:
                cur = self._pg.execute(self._sql(sql), tuple(params))
                rows = list(cur.fetchall()) if cur.description else []
                return rows, cur.rowcount
            except psycopg.OperationalError as exc:
                # A dropped connection outside a transaction is reopened once; inside one the
                # caller's work is lost and must be reported.
                if attempt or self._in_tx or not self._pg.closed:
                    raise StoreError(f"service database ({self.schema}): {exc}") from exc
                self._connect_pg()
            except psycopg.Error as exc:
                raise StoreError(f"service database ({self.schema}): {exc}") from exc
        raise AssertionError("unreachable")

    # ------------------------------------------------------------------ public
    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; the number of rows it changed."""
        with self._lock:
            return self._run(sql, params)[1]

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Rows as dicts."""
        with self._lock:
            return self._run(sql, params)[0]

    def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """The first row, or ``None``."""
        rows = self.query(sql, params)
        return rows[0] if rows else None

    @contextmanager
    def transaction(self) -> Iterator[Database]:
        """Statements inside run atomically (nested use joins the outer transaction)."""
        with self._lock:
            if self._in_tx:
                yield self
                return
            self._run("BEGIN IMMEDIATE" if self.dialect == "sqlite" else "BEGIN", ())
            self._in_tx = True
            try:
                yield self
            except BaseException:
                self._in_tx = False
                self._run("ROLLBACK", ())
                raise
            self._in_tx = False
            self._run("COMMIT", ())

    def executescript(self, script: str) -> None:
        """Run several statements separated by ``;`` lines, in one transaction."""
        statements = [s.strip() for s in script.split(";\n") if s.strip().strip(";").strip()]
        with self.transaction():
            for stmt in statements:
                self._run(stmt.rstrip(";"), ())

    def table_names(self) -> set[str]:
        """The tables that exist (for migration tests)."""
        if self.dialect == "sqlite":
            rows = self.query("SELECT name FROM sqlite_master WHERE type = 'table'")
        else:
            rows = self.query(
                "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ?",
                (self.schema,),
            )
        return {str(r["name"]) for r in rows}

    def close(self) -> None:
        with self._lock:
            if self.dialect == "sqlite":
                self._sq.close()
            elif self._pg is not None:
                self._pg.close()


def open_database(url: str, *, migrate: bool = True) -> Database:
    """Open the service tables at ``url`` and bring them to the latest migration."""
    db = Database(url)
    if migrate:
        from colmeia.service.migrate import upgrade

        try:
            upgrade(db)
        except BaseException:
            db.close()
            raise
    return db
