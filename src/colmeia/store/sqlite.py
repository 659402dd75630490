"""SQLite store: one file, no server. Derived indexes live in a folder beside the file."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from colmeia.errors import MissingStoreError, StoreError
from colmeia.store.base import (
    OpenMode,
    StoredChunk,
    StoredDocument,
    validate_collection_name,
)
from colmeia.store.sql import (
    CHUNK_COLS,
    SQLStore,
    chunk_from_row,
    stack_vectors,
    vector_blobs,
)

# numpy is loaded by the methods that handle vectors (see store/base.py).
if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["SQLiteStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS collections (
    name TEXT PRIMARY KEY,
    generation INTEGER NOT NULL DEFAULT 0,
    embedder TEXT NOT NULL DEFAULT '',
    dim INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS documents (
    collection TEXT NOT NULL REFERENCES collections(name) ON DELETE CASCADE,
    doc_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    path TEXT NOT NULL DEFAULT '',
    doc_type TEXT NOT NULL DEFAULT '',
    year INTEGER,
    metadata TEXT NOT NULL DEFAULT '{}',
    n_chunks INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (collection, doc_id)
);
CREATE INDEX IF NOT EXISTS documents_path ON documents(collection, path);
CREATE TABLE IF NOT EXISTS chunks (
    collection TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    text TEXT NOT NULL,
    page_start INTEGER NOT NULL,
    page_end INTEGER NOT NULL,
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    path TEXT NOT NULL DEFAULT '',
    heading TEXT NOT NULL DEFAULT '',
    metadata TEXT NOT NULL DEFAULT '{}',
    vector BLOB,
    PRIMARY KEY (collection, chunk_id),
    FOREIGN KEY (collection, doc_id) REFERENCES documents(collection, doc_id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(collection, doc_id, seq);
"""


class SQLiteStore(SQLStore):
    """Documents and chunks in one SQLite file (WAL mode).

    ``mode="create"`` makes the folder and file when missing; ``"write"`` and ``"read"`` open
    only an existing store (``"read"`` also refuses every write), so a command that reads can
    never leave an empty database or folder behind.
    """

    def __init__(self, path: str | Path, *, mode: OpenMode = "create") -> None:
        self.path = Path(path)
        self.url = f"sqlite:///{self.path}"
        self.mode = mode
        if mode != "create" and not self.path.is_file():
            raise MissingStoreError(
                f"there is no store at {self.path}: nothing has been ingested there yet "
                "(`colmeia ingest PATH --collection NAME`), or COLMEIA_STORE / --store points "
                "elsewhere"
            )
        try:
            if mode == "create":
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            else:
                # mode=rw opens an existing file and never creates one.
                self._db = sqlite3.connect(
                    f"{self.path.resolve().as_uri()}?mode=rw",
                    uri=True,
                    check_same_thread=False,
                    isolation_level=None,
                )
            if mode == "read":
                self._db.execute("PRAGMA query_only=ON")
            else:
                self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute("PRAGMA synchronous=NORMAL")
            if mode == "create":
                self._db.executescript(_SCHEMA)
            elif not self._db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'collections'"
            ).fetchone():
                self._db.close()
                raise MissingStoreError(
                    f"{self.path} is not a colmeia store (it has no collections table); "
                    "check COLMEIA_STORE / --store"
                )
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(
                f"cannot open the SQLite store at {self.path}: {exc}; "
                "check the path (COLMEIA_STORE / --store) and its permissions"
            ) from exc
        self._lock = threading.RLock()

    @property
    def index_dir(self) -> Path:
        return self.path.with_name(self.path.name + ".indexes")

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    yield self._db
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                raise StoreError(f"SQLite store {self.path}: {exc}") from exc

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._db.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"SQLite store {self.path}: {exc}") from exc

    # ---------------------------------------------------------------- collections
    def ensure_collection(self, name: str) -> None:
        validate_collection_name(name)
        with self._tx() as db:
            db.execute("INSERT OR IGNORE INTO collections(name) VALUES (?)", (name,))

    def replace_document(
        self,
        collection: str,
        document: StoredDocument,
        chunks: Sequence[StoredChunk],
        vectors: npt.NDArray[np.float32] | None = None,
    ) -> None:
        blobs = vector_blobs(vectors, len(chunks))
        with self._tx() as db:
            db.execute("INSERT OR IGNORE INTO collections(name) VALUES (?)", (collection,))
            db.execute(
                "DELETE FROM chunks WHERE collection = ? AND doc_id = ?",
                (collection, document.doc_id),
            )
            db.execute(
                "INSERT OR REPLACE INTO documents(collection, doc_id, content_hash, title, path,"
                " doc_type, year, metadata, n_chunks) VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    collection,
                    document.doc_id,
                    document.content_hash,
                    document.title,
                    document.path,
                    document.doc_type,
                    document.year,
                    orjson.dumps(document.metadata, default=str).decode(),
                    len(chunks),
                ),
            )
            db.executemany(
                "INSERT INTO chunks(collection, chunk_id, doc_id, seq, text, page_start, page_end,"
                " char_start, char_end, path, heading, metadata, vector)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                [
                    (
                        collection,
                        c.chunk_id,
                        document.doc_id,
                        c.seq,
                        c.text,
                        c.page_start,
                        c.page_end,
                        c.char_start,
                        c.char_end,
                        c.path,
                        c.heading,
                        orjson.dumps(c.metadata, default=str).decode(),
                        blob,
                    )
                    for c, blob in zip(chunks, blobs, strict=True)
                ],
            )
            db.execute(
                "UPDATE collections SET generation = generation + 1 WHERE name = ?", (collection,)
            )

    def get_chunks(self, collection: str, chunk_ids: Sequence[str]) -> dict[str, StoredChunk]:
        out: dict[str, StoredChunk] = {}
        ids = list(dict.fromkeys(chunk_ids))
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = self._query(
                f"SELECT {CHUNK_COLS} FROM chunks c JOIN documents d"
                " ON d.collection = c.collection AND d.doc_id = c.doc_id"
                f" WHERE c.collection = ? AND c.chunk_id IN ({marks})",
                (collection, *part),
            )
            out.update((r[0], chunk_from_row(r)) for r in rows)
        return out

    def vectors(self, collection: str) -> tuple[list[str], npt.NDArray[np.float32]]:
        rows = self._query(
            "SELECT chunk_id, doc_id, seq, vector FROM chunks"
            " WHERE collection = ? AND vector IS NOT NULL",
            (collection,),
        )
        rows.sort(key=lambda r: (r[1], r[2]))
        return stack_vectors([r[0] for r in rows], [r[3] for r in rows])

    def native_vector_search(
        self, collection: str, vector: npt.NDArray[np.float32], k: int
    ) -> list[tuple[str, float]] | None:
        return None

    def close(self) -> None:
        with self._lock:
            self._db.close()
