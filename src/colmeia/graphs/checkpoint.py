"""Checkpointers by URL — SQLite (default) or PostgreSQL — with a serialiser allow-list.

``open_checkpointer("sqlite:///threads.db")`` or ``("postgresql://…?schema=name")`` yields a
LangGraph async checkpointer. Checkpoints are written with LangGraph's msgpack serialiser in
strict mode: only its own safe types and the types passed in ``allowed`` are rebuilt when
a checkpoint is read; anything else comes back as plain data, so a tampered database cannot
make the process construct arbitrary objects. ``memory://`` keeps threads in the process.

:func:`list_threads` and :func:`delete_thread` give the history listing and deletion a user
interface needs.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from colmeia.errors import ConfigurationError, StoreError

__all__ = ["ThreadInfo", "delete_thread", "list_threads", "open_checkpointer", "serializer"]

log = logging.getLogger(__name__)
_SCHEMA = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


def serializer(allowed: Iterable[type]) -> JsonPlusSerializer:
    """LangGraph's serialiser, rebuilding only its safe types and ``allowed``."""
    modules = [(t.__module__, t.__qualname__) for t in allowed]
    return JsonPlusSerializer(pickle_fallback=False, allowed_msgpack_modules=modules or None)


@dataclass(slots=True)
class ThreadInfo:
    """A conversation thread: its id, how many checkpoints it has and when it last changed."""

    thread_id: str
    checkpoints: int
    updated_at: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "thread_id": self.thread_id,
            "checkpoints": self.checkpoints,
            "updated_at": self.updated_at,
        }


def _postgres_url(url: str) -> tuple[str, str | None]:
    """The connection string without ``schema=…``, and that schema."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = next((v for k, v in query if k == "schema"), None)
    if schema is not None and not _SCHEMA.match(schema):
        raise ConfigurationError(f"invalid schema name {schema!r} in the checkpoint URL")
    rest = [(k, v) for k, v in query if k != "schema"]
    if schema:
        rest.append(("options", f"-csearch_path={schema}"))
    return urlunsplit(parts._replace(query=urlencode(rest))), schema


@asynccontextmanager
async def open_checkpointer(
    url: str, *, allowed: Iterable[type] = ()
) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    """An async checkpointer for ``url`` (``sqlite:///path``, ``postgresql://…``, ``memory://``)."""
    serde = serializer(allowed)
    if url.startswith("memory://"):
        from langgraph.checkpoint.memory import InMemorySaver

        yield InMemorySaver(serde=serde)
        return
    if url.startswith(("postgresql://", "postgres://")):
        import psycopg
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

        conn_url, schema = _postgres_url(url)
        try:
            if schema:
                async with await psycopg.AsyncConnection.connect(
                    conn_url.split("?")[0], autocommit=True
                ) as conn:
                    await conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
            async with AsyncPostgresSaver.from_conn_string(conn_url, serde=serde) as saver:
                await saver.setup()
                yield saver
        except psycopg.OperationalError as exc:
            raise StoreError(
                f"cannot open the checkpoint database {parts_for_log(url)}: "
                f"{str(exc).strip().splitlines()[0] if str(exc).strip() else exc}"
            ) from None
        return
    path = url.removeprefix("sqlite:///") if url.startswith("sqlite:///") else url
    if "://" in path:
        raise ConfigurationError(
            f"unsupported checkpoint URL {url!r}: use sqlite:///path.db, postgresql://… "
            "or memory://"
        )
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    async with aiosqlite.connect(path) as conn:
        lite = AsyncSqliteSaver(conn, serde=serde)
        await lite.setup()  # turns on WAL
        # WAL + NORMAL: a crash of the process loses nothing committed; only a power cut may
        # lose the last checkpoints. FULL would fsync every checkpoint (several per turn).
        await conn.execute("PRAGMA synchronous=NORMAL")
        yield lite


def parts_for_log(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


async def list_threads(saver: BaseCheckpointSaver[Any]) -> list[ThreadInfo]:
    """Every thread the checkpointer holds, most recently changed first."""
    sql = (
        "SELECT thread_id, COUNT(*), MAX(checkpoint_id) FROM checkpoints "
        "WHERE checkpoint_ns = '' GROUP BY thread_id"
    )
    rows: list[tuple[str, int, str]] = []
    conn: Any = getattr(saver, "conn", None)
    if conn is None:  # in-memory saver
        storage: dict[str, Any] = getattr(saver, "storage", {})
        for thread_id, by_ns in storage.items():
            ids = list(by_ns.get("", {}))
            if ids:
                rows.append((thread_id, len(ids), max(ids)))
    elif type(saver).__name__ == "AsyncSqliteSaver":
        async with conn.execute(sql) as cur:
            rows = [(str(r[0]), int(r[1]), str(r[2])) for r in await cur.fetchall()]
    else:
        async with conn.cursor() as cur:
            await cur.execute(
                sql.replace("COUNT(*)", "COUNT(*) AS n").replace(
                    "MAX(checkpoint_id)", "MAX(checkpoint_id) AS last"
                )
            )
            rows = [
                (str(r["thread_id"]), int(r["n"]), str(r["last"])) for r in await cur.fetchall()
            ]
    out: list[ThreadInfo] = []
    for thread_id, count, last in rows:
        config = {
            "configurable": {"thread_id": thread_id, "checkpoint_ns": "", "checkpoint_id": last}
        }
        found = await saver.aget_tuple(config)  # type: ignore[arg-type]
        ts = str(found.checkpoint.get("ts", "")) if found else ""
        out.append(ThreadInfo(thread_id, count, ts))
    out.sort(key=lambda t: t.updated_at, reverse=True)
    return out


async def delete_thread(saver: BaseCheckpointSaver[Any], thread_id: str) -> bool:
    """Delete a thread and all its checkpoints; ``False`` if there was no such thread."""
    config = {"configurable": {"thread_id": thread_id}}
    if await saver.aget_tuple(config) is None:  # type: ignore[arg-type]
        return False
    await saver.adelete_thread(thread_id)
    log.info("deleted thread %s", thread_id)
    return True
