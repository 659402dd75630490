"""What the SQLite and PostgreSQL stores share: the row ↔ chunk mapping and the SQL that both
dialects read alike (written with ``?`` placeholders; PostgreSQL's store turns them into ``%s``).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, ClassVar

import orjson

from colmeia.errors import StoreError
from colmeia.store.base import CollectionInfo, StoredChunk, StoredDocument

# numpy is loaded by the functions that handle vectors (see store/base.py).
if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "CHUNK_COLS",
    "SQLStore",
    "chunk_from_row",
    "sort_chunks",
    "stack_vectors",
    "vector_blobs",
]

CHUNK_COLS = (
    "c.chunk_id, c.doc_id, c.seq, c.text, c.page_start, c.page_end, c.char_start, c.char_end, "
    "c.path, c.heading, c.metadata, d.title, d.path, d.doc_type, d.year"
)


def chunk_from_row(row: Sequence[Any]) -> StoredChunk:
    """A chunk from a row selected with :data:`CHUNK_COLS`."""
    return StoredChunk(
        chunk_id=row[0],
        doc_id=row[1],
        seq=row[2],
        text=row[3],
        page_start=row[4],
        page_end=row[5],
        char_start=row[6],
        char_end=row[7],
        path=row[8],
        heading=row[9],
        metadata=orjson.loads(row[10]) if row[10] else {},
        title=row[11],
        source_path=row[12],
        doc_type=row[13],
        year=row[14],
    )


def sort_chunks(chunks: list[StoredChunk]) -> list[StoredChunk]:
    """Index order, decided in Python so every database (and collation) agrees."""
    chunks.sort(key=lambda c: (c.doc_id, c.seq))
    return chunks


def vector_blobs(vectors: npt.NDArray[np.float32] | None, n: int) -> list[bytes | None]:
    """One float32 blob per chunk (or ``None`` each without vectors)."""
    if vectors is None:
        return [None] * n
    if len(vectors) != n:
        raise StoreError(f"{len(vectors)} vectors for {n} chunks: they must be row-aligned")
    import numpy as np

    arr = np.ascontiguousarray(vectors, dtype=np.float32)
    return [row.tobytes() for row in arr]


def stack_vectors(
    ids: list[str], blobs: Sequence[bytes]
) -> tuple[list[str], npt.NDArray[np.float32]]:
    """Ids and the matrix of their float32 blobs, one row each."""
    import numpy as np

    if not blobs:
        return [], np.empty((0, 0), np.float32)
    mat = np.vstack([np.frombuffer(b, dtype=np.float32) for b in blobs])
    return ids, mat


class SQLStore:
    """The store methods whose SQL is the same in SQLite and PostgreSQL."""

    #: the driver's placeholder: ``?`` (sqlite3) or ``%s`` (psycopg)
    placeholder: ClassVar[str] = "?"

    def _tx(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        raise NotImplementedError

    def _sql(self, sql: str) -> str:
        return sql if self.placeholder == "?" else sql.replace("?", self.placeholder)

    # ---------------------------------------------------------------- collections
    def collections(self) -> list[CollectionInfo]:
        rows = self._query(
            "SELECT c.name, c.generation, c.embedder, c.dim,"
            " (SELECT count(*) FROM documents d WHERE d.collection = c.name),"
            " (SELECT coalesce(sum(n_chunks), 0) FROM documents d WHERE d.collection = c.name)"
            " FROM collections c"
        )
        infos = [CollectionInfo(r[0], int(r[4]), int(r[5]), int(r[1]), r[2], r[3]) for r in rows]
        return sorted(infos, key=lambda c: c.name)

    def collection(self, name: str) -> CollectionInfo | None:
        return next((c for c in self.collections() if c.name == name), None)

    def delete_collection(self, name: str) -> bool:
        with self._tx() as db:
            db.execute(self._sql("DELETE FROM chunks WHERE collection = ?"), (name,))
            db.execute(self._sql("DELETE FROM documents WHERE collection = ?"), (name,))
            cur = db.execute(self._sql("DELETE FROM collections WHERE name = ?"), (name,))
            return bool(cur.rowcount > 0)

    def set_embedder(self, collection: str, embedder: str, dim: int) -> None:
        with self._tx() as db:
            db.execute(
                self._sql("UPDATE collections SET embedder = ?, dim = ? WHERE name = ?"),
                (embedder, dim, collection),
            )

    # ---------------------------------------------------------------- documents
    def document_hashes(self, collection: str) -> dict[str, str]:
        rows = self._query(
            self._sql("SELECT doc_id, content_hash FROM documents WHERE collection = ?"),
            (collection,),
        )
        return {r[0]: r[1] for r in rows}

    def documents(self, collection: str) -> list[StoredDocument]:
        rows = self._query(
            self._sql(
                "SELECT doc_id, content_hash, title, path, doc_type, year, metadata, n_chunks"
                " FROM documents WHERE collection = ?"
            ),
            (collection,),
        )
        docs = [
            StoredDocument(r[0], r[1], r[2], r[3], r[4], r[5], orjson.loads(r[6]), r[7])
            for r in rows
        ]
        return sorted(docs, key=lambda d: d.doc_id)

    def delete_documents(self, collection: str, doc_ids: Sequence[str]) -> int:
        deleted = 0
        with self._tx() as db:
            for doc_id in doc_ids:
                db.execute(
                    self._sql("DELETE FROM chunks WHERE collection = ? AND doc_id = ?"),
                    (collection, doc_id),
                )
                cur = db.execute(
                    self._sql("DELETE FROM documents WHERE collection = ? AND doc_id = ?"),
                    (collection, doc_id),
                )
                deleted += cur.rowcount
            if deleted:
                db.execute(
                    self._sql("UPDATE collections SET generation = generation + 1 WHERE name = ?"),
                    (collection,),
                )
        return deleted

    # ---------------------------------------------------------------- chunks
    def chunks(self, collection: str) -> list[StoredChunk]:
        rows = self._query(
            self._sql(
                f"SELECT {CHUNK_COLS} FROM chunks c JOIN documents d"
                " ON d.collection = c.collection AND d.doc_id = c.doc_id WHERE c.collection = ?"
            ),
            (collection,),
        )
        return sort_chunks([chunk_from_row(r) for r in rows])
