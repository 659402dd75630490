"""Threads begun on the offline fast path (:mod:`.frame_turn`), kept until the graph adopts them.

A thread lives in LangGraph's checkpointer, whose format only LangGraph writes. A turn that
runs without the graph keeps its thread's state instead in a table of the same SQLite
database (``colmeia_fast_threads``), as JSON, and the next fast turn of that thread continues
from it. The first time the graph opens such a thread (:class:`.session.Assistant` on any of
its thread operations), it writes that state as the thread's checkpoint — as if ``finish``
had just written it — and forgets the row: from then on the thread is an ordinary graph
thread, and the fast path leaves it alone.

A state is kept only when JSON gives back exactly the same values (messages rebuilt as
:class:`ChatMessage`); anything else (a date, a tuple) is refused here, and the turn runs on
the graph. Nothing here imports LangGraph.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import orjson

from colmeia.graphs.messages import ChatMessage

__all__ = ["FastThreads", "adoptable", "decode_state", "encode_state", "forget", "prepare"]

TABLE = "colmeia_fast_threads"
_CREATE = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} "
    "(thread_id TEXT PRIMARY KEY, state BLOB NOT NULL, updated_at TEXT NOT NULL)"
)


def decode_state(data: bytes) -> dict[str, Any]:
    """A kept state, its messages rebuilt."""
    state: dict[str, Any] = orjson.loads(data)
    state["messages"] = [ChatMessage(**m) for m in state.get("messages", [])]
    return state


def encode_state(state: dict[str, Any]) -> bytes | None:
    """``state`` as JSON, or ``None`` when JSON would not give back the same values."""
    plain = {k: [m.as_dict() for m in v] if k == "messages" else v for k, v in state.items()}
    try:
        data = orjson.dumps(plain)
    except TypeError:  # orjson.JSONEncodeError: a value JSON has no type for
        return None
    return data if decode_state(data) == state else None


class FastThreads:
    """The fast path's threads in the checkpoint database at ``path`` (stdlib sqlite3)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=30)
        conn.execute(_CREATE)
        return conn

    def on_graph(self, thread_id: str) -> bool:
        """Whether the graph already keeps ``thread_id`` (its turns are then the graph's)."""
        if not self.path.exists():
            return False
        with sqlite3.connect(self.path, timeout=30) as conn:
            has = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'"
            ).fetchone()
            if has is None:
                return False
            row = conn.execute(
                "SELECT 1 FROM checkpoints WHERE thread_id = ? LIMIT 1", (thread_id,)
            ).fetchone()
        return row is not None

    def load(self, thread_id: str) -> dict[str, Any] | None:
        """The kept state of ``thread_id``, or ``None`` when the fast path has none."""
        if not self.path.exists():
            return None
        conn = self._connect()
        try:
            row = conn.execute(
                f"SELECT state FROM {TABLE} WHERE thread_id = ?", (thread_id,)
            ).fetchone()
        finally:
            conn.close()
        return decode_state(row[0]) if row is not None else None

    def save(self, thread_id: str, data: bytes, when: str) -> None:
        """Keep ``data`` (:func:`encode_state`) as the state of ``thread_id``."""
        conn = self._connect()
        try:
            with conn:
                conn.execute(
                    f"INSERT INTO {TABLE} (thread_id, state, updated_at) VALUES (?, ?, ?) "
                    "ON CONFLICT(thread_id) DO UPDATE SET state = excluded.state, "
                    "updated_at = excluded.updated_at",
                    (thread_id, data, when),
                )
        finally:
            conn.close()


async def prepare(conn: Any) -> None:
    """Create the fast path's table in an aiosqlite connection to the checkpoint database."""
    await conn.execute(_CREATE)
    await conn.commit()


async def adoptable(conn: Any, thread_id: str | None = None) -> list[tuple[str, dict[str, Any]]]:
    """The fast path's threads (one, or all with ``None``) in an aiosqlite connection to the
    checkpoint database (:func:`prepare` d), with their states: what the graph adopts."""
    sql = f"SELECT thread_id, state FROM {TABLE}"
    args: tuple[str, ...] = ()
    if thread_id is not None:
        sql, args = f"{sql} WHERE thread_id = ?", (thread_id,)
    async with conn.execute(sql, args) as cur:
        rows = await cur.fetchall()
    return [(str(r[0]), decode_state(r[1])) for r in rows]


async def forget(conn: Any, thread_id: str) -> None:
    """Drop the fast path's copy of ``thread_id`` (the graph keeps it now)."""
    await conn.execute(f"DELETE FROM {TABLE} WHERE thread_id = ?", (thread_id,))
    await conn.commit()
