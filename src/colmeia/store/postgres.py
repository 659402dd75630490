"""PostgreSQL store: the same tables as SQLite, plus ``portuguese`` full-text and pgvector.

Every store lives in one schema (``public`` unless the URL says ``?schema=name``), so several
stores, or tests, can share a database. Chunks get a generated ``tsvector`` column over a text
search configuration that is ``portuguese`` with ``unaccent`` (when that extension can be
created). Vectors go to a pgvector ``vector`` column when the extension exists; otherwise they
are kept as ``bytea`` and searched in-process (FAISS) like in SQLite.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

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

__all__ = ["PostgresStore", "split_schema"]

log = logging.getLogger(__name__)

_IDENT = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def split_schema(url: str) -> tuple[str, str]:
    """``postgresql://…?schema=s`` → (URL without it, ``s``); default schema ``public``."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = next((v for k, v in query if k == "schema"), "public")
    rest = urlencode([(k, v) for k, v in query if k != "schema"])
    if not _IDENT.match(schema):
        raise StoreError(f"invalid schema name {schema!r} in the store URL: use [a-z0-9_]")
    return urlunsplit(parts._replace(query=rest)), schema


class PostgresStore(SQLStore):
    """Documents and chunks in PostgreSQL (psycopg 3)."""

    placeholder = "%s"

    def __init__(
        self, url: str, *, cache_dir: Path | None = None, mode: OpenMode = "create"
    ) -> None:
        import psycopg

        self.url = url
        self.mode = mode
        conninfo, self.schema = split_schema(url)
        self._cache_dir = cache_dir or Path(".colmeia")
        try:
            self._db = psycopg.connect(conninfo, autocommit=True, connect_timeout=10)
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot connect to PostgreSQL at {conninfo}: {exc}; "
                "check that the server runs and the URL (COLMEIA_STORE / --store)"
            ) from exc
        self._lock = threading.RLock()
        self.has_unaccent = False
        self.has_pgvector = False
        if mode == "create":
            self._setup()
        else:
            self._attach()

    @property
    def index_dir(self) -> Path:
        digest = hashlib.sha256(self.url.encode()).hexdigest()[:16]
        return self._cache_dir / "index-cache" / f"pg-{digest}"

    # ---------------------------------------------------------------- schema
    def _try_extension(self, name: str) -> bool:
        import psycopg

        with self._lock:
            row = self._db.execute(
                "SELECT 1 FROM pg_extension WHERE extname = %s", (name,)
            ).fetchone()
            if row:
                return True
            available = self._db.execute(
                "SELECT 1 FROM pg_available_extensions WHERE name = %s", (name,)
            ).fetchone()
            if not available:
                return False
            try:
                self._db.execute(f"CREATE EXTENSION IF NOT EXISTS {name} SCHEMA public")
            except psycopg.errors.UniqueViolation:
                pass  # another connection created it at the same moment
            except psycopg.Error as exc:
                log.warning("PostgreSQL extension %s could not be created: %s", name, exc)
                return False
            return True

    def _setup(self) -> None:
        import psycopg

        s = self.schema
        try:
            with self._lock:
                self._db.execute(f"CREATE SCHEMA IF NOT EXISTS {s}")
                self._db.execute(f"SET search_path TO {s}, public")
                self.has_unaccent = self._try_extension("unaccent")
                self.has_pgvector = self._try_extension("vector")
                self._db.execute(f"SET search_path TO {s}, public")
                config = self._text_config()
                vector_type = "vector" if self.has_pgvector else "bytea"
                with self._db.transaction():
                    self._db.execute(
                        "CREATE TABLE IF NOT EXISTS collections ("
                        " name TEXT PRIMARY KEY, generation BIGINT NOT NULL DEFAULT 0,"
                        " embedder TEXT NOT NULL DEFAULT '', dim INTEGER NOT NULL DEFAULT 0)"
                    )
                    self._db.execute(
                        "CREATE TABLE IF NOT EXISTS documents ("
                        " collection TEXT NOT NULL REFERENCES collections(name) ON DELETE CASCADE,"
                        " doc_id TEXT NOT NULL, content_hash TEXT NOT NULL,"
                        " title TEXT NOT NULL DEFAULT '', path TEXT NOT NULL DEFAULT '',"
                        " doc_type TEXT NOT NULL DEFAULT '', year INTEGER,"
                        " metadata TEXT NOT NULL DEFAULT '{}', n_chunks INTEGER NOT NULL DEFAULT 0,"
                        " PRIMARY KEY (collection, doc_id))"
                    )
                    self._db.execute(
                        "CREATE TABLE IF NOT EXISTS chunks ("
                        " collection TEXT NOT NULL, chunk_id TEXT NOT NULL, doc_id TEXT NOT NULL,"
                        " seq INTEGER NOT NULL, text TEXT NOT NULL,"
                        " page_start INTEGER NOT NULL, page_end INTEGER NOT NULL,"
                        " char_start INTEGER NOT NULL, char_end INTEGER NOT NULL,"
                        " path TEXT NOT NULL DEFAULT '', heading TEXT NOT NULL DEFAULT '',"
                        " metadata TEXT NOT NULL DEFAULT '{}',"
                        f" vector {vector_type},"
                        f" tsv tsvector GENERATED ALWAYS AS (to_tsvector('{config}'::regconfig,"
                        " text)) STORED,"
                        " PRIMARY KEY (collection, chunk_id),"
                        " FOREIGN KEY (collection, doc_id) REFERENCES documents(collection, doc_id)"
                        " ON DELETE CASCADE)"
                    )
                    self._db.execute(
                        "CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(collection, doc_id, seq)"
                    )
                    self._db.execute(
                        "CREATE INDEX IF NOT EXISTS chunks_tsv ON chunks USING gin(tsv)"
                    )
                self.has_pgvector = self._vectors_are_pgvector()
        except psycopg.Error as exc:
            raise StoreError(f"cannot prepare the PostgreSQL schema {s}: {exc}") from exc

    def _vectors_are_pgvector(self) -> bool:
        # The column type decides how vectors are read back (an older store may differ).
        row = self._db.execute(
            "SELECT udt_name FROM information_schema.columns"
            " WHERE table_schema = %s AND table_name = 'chunks' AND column_name = 'vector'",
            (self.schema,),
        ).fetchone()
        return bool(row and row[0] == "vector")

    def _attach(self) -> None:
        """Use an existing store's schema without creating anything (``write``/``read``)."""
        import psycopg

        s = self.schema
        try:
            with self._lock:
                found = self._db.execute(
                    "SELECT 1 FROM information_schema.tables"
                    " WHERE table_schema = %s AND table_name = 'collections'",
                    (s,),
                ).fetchone()
                if not found:
                    self._db.close()
                    raise MissingStoreError(
                        f"there is no colmeia store in schema {s!r} of {split_schema(self.url)[0]}:"
                        " nothing has been ingested there yet (`colmeia ingest PATH --collection"
                        " NAME`), or COLMEIA_STORE / --store points elsewhere"
                    )
                if self.mode == "read":
                    self._db.execute("SET default_transaction_read_only = on")
                self._db.execute(f"SET search_path TO {s}, public")
                # Full-text search uses the schema's colmeia_pt configuration when it was made.
                self.has_unaccent = bool(
                    self._db.execute(
                        "SELECT 1 FROM pg_ts_config c JOIN pg_namespace n"
                        " ON n.oid = c.cfgnamespace WHERE n.nspname = %s AND c.cfgname = 'colmeia_pt'",
                        (s,),
                    ).fetchone()
                )
                self.has_pgvector = self._vectors_are_pgvector()
        except psycopg.Error as exc:
            raise StoreError(f"cannot read the PostgreSQL schema {s}: {exc}") from exc

    def _text_config(self) -> str:
        """``portuguese`` with ``unaccent`` as a schema-local configuration, if possible."""
        import psycopg

        if not self.has_unaccent:
            return "pg_catalog.portuguese"
        name = f"{self.schema}.colmeia_pt"
        exists = self._db.execute(
            "SELECT 1 FROM pg_ts_config c JOIN pg_namespace n ON n.oid = c.cfgnamespace"
            " WHERE n.nspname = %s AND c.cfgname = 'colmeia_pt'",
            (self.schema,),
        ).fetchone()
        if exists:
            return name
        try:
            with self._db.transaction():
                self._db.execute(
                    f"CREATE TEXT SEARCH CONFIGURATION {name} (COPY = pg_catalog.portuguese)"
                )
                self._db.execute(
                    f"ALTER TEXT SEARCH CONFIGURATION {name} ALTER MAPPING FOR"
                    " hword, hword_part, word WITH public.unaccent, portuguese_stem"
                )
        except psycopg.Error as exc:
            log.warning("unaccent text search configuration not created: %s", exc)
            return "pg_catalog.portuguese"
        return name

    @contextmanager
    def _tx(self) -> Iterator[Any]:
        import psycopg

        with self._lock:
            try:
                with self._db.transaction():
                    yield self._db
            except psycopg.Error as exc:
                raise StoreError(f"PostgreSQL store ({self.schema}): {exc}") from exc

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        import psycopg

        with self._lock:
            try:
                return self._db.execute(sql, params).fetchall()
            except psycopg.Error as exc:
                raise StoreError(f"PostgreSQL store ({self.schema}): {exc}") from exc

    # ---------------------------------------------------------------- collections
    def ensure_collection(self, name: str) -> None:
        validate_collection_name(name)
        with self._tx() as db:
            db.execute("INSERT INTO collections(name) VALUES (%s) ON CONFLICT DO NOTHING", (name,))

    def replace_document(
        self,
        collection: str,
        document: StoredDocument,
        chunks: Sequence[StoredChunk],
        vectors: npt.NDArray[np.float32] | None = None,
    ) -> None:
        if self.has_pgvector:
            import numpy as np

            vecs: list[Any] = (
                [None] * len(chunks)
                if vectors is None
                else [_pgvector_literal(v) for v in np.asarray(vectors, np.float32)]
            )
            if len(vecs) != len(chunks):
                raise StoreError(f"{len(vecs)} vectors for {len(chunks)} chunks")
        else:
            vecs = list(vector_blobs(vectors, len(chunks)))
        cast = "::vector" if self.has_pgvector else ""
        with self._tx() as db:
            db.execute(
                "INSERT INTO collections(name) VALUES (%s) ON CONFLICT DO NOTHING", (collection,)
            )
            db.execute(
                "DELETE FROM chunks WHERE collection = %s AND doc_id = %s",
                (collection, document.doc_id),
            )
            db.execute(
                "INSERT INTO documents(collection, doc_id, content_hash, title, path, doc_type,"
                " year, metadata, n_chunks) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s)"
                " ON CONFLICT (collection, doc_id) DO UPDATE SET content_hash = EXCLUDED.content_hash,"
                " title = EXCLUDED.title, path = EXCLUDED.path, doc_type = EXCLUDED.doc_type,"
                " year = EXCLUDED.year, metadata = EXCLUDED.metadata, n_chunks = EXCLUDED.n_chunks",
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
            with db.cursor() as cur:
                cur.executemany(
                    "INSERT INTO chunks(collection, chunk_id, doc_id, seq, text, page_start,"
                    " page_end, char_start, char_end, path, heading, metadata, vector)"
                    f" VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s{cast})",
                    [
                        (
                            collection,
                            c.chunk_id,
                            document.doc_id,
                            c.seq,
                            _clean(c.text),
                            c.page_start,
                            c.page_end,
                            c.char_start,
                            c.char_end,
                            _clean(c.path),
                            _clean(c.heading),
                            orjson.dumps(c.metadata, default=str).decode(),
                            v,
                        )
                        for c, v in zip(chunks, vecs, strict=True)
                    ],
                )
            db.execute(
                "UPDATE collections SET generation = generation + 1 WHERE name = %s", (collection,)
            )

    def get_chunks(self, collection: str, chunk_ids: Sequence[str]) -> dict[str, StoredChunk]:
        ids = list(dict.fromkeys(chunk_ids))
        if not ids:
            return {}
        rows = self._query(
            f"SELECT {CHUNK_COLS} FROM chunks c JOIN documents d"
            " ON d.collection = c.collection AND d.doc_id = c.doc_id"
            " WHERE c.collection = %s AND c.chunk_id = ANY(%s)",
            (collection, ids),
        )
        return {r[0]: chunk_from_row(r) for r in rows}

    def vectors(self, collection: str) -> tuple[list[str], npt.NDArray[np.float32]]:
        col = "vector::text" if self.has_pgvector else "vector"
        rows = self._query(
            f"SELECT chunk_id, doc_id, seq, {col} FROM chunks"
            " WHERE collection = %s AND vector IS NOT NULL",
            (collection,),
        )
        rows.sort(key=lambda r: (r[1], r[2]))
        if self.has_pgvector:
            import numpy as np

            blobs = [np.asarray(orjson.loads(r[3]), np.float32).tobytes() for r in rows]
        else:
            blobs = [bytes(r[3]) for r in rows]
        return stack_vectors([r[0] for r in rows], blobs)

    def native_vector_search(
        self, collection: str, vector: npt.NDArray[np.float32], k: int
    ) -> list[tuple[str, float]] | None:
        if not self.has_pgvector:
            return None
        literal = _pgvector_literal(vector)
        rows = self._query(
            "SELECT chunk_id, 1 - (vector <=> %s::vector) AS sim FROM chunks"
            " WHERE collection = %s AND vector IS NOT NULL"
            " ORDER BY vector <=> %s::vector, doc_id, seq LIMIT %s",
            (literal, collection, literal, k),
        )
        return [(r[0], float(r[1])) for r in rows]

    def fulltext_search(self, collection: str, query: str, k: int) -> list[tuple[str, float]]:
        """PostgreSQL's own ranking (``ts_rank_cd``, terms OR-ed), for comparison with BM25."""
        config = f"{self.schema}.colmeia_pt" if self.has_unaccent else "pg_catalog.portuguese"
        rows = self._query(
            "WITH q AS (SELECT replace(plainto_tsquery(%s::regconfig, %s)::text, '&', '|')::tsquery"
            " AS tsq) SELECT chunk_id, ts_rank_cd(tsv, q.tsq) AS r FROM chunks, q"
            " WHERE collection = %s AND tsv @@ q.tsq ORDER BY r DESC, doc_id, seq LIMIT %s",
            (config, query, collection, k),
        )
        return [(r[0], float(r[1])) for r in rows]

    def drop_schema(self) -> None:
        """Remove this store's schema and everything in it (tests, uninstall)."""
        if self.schema == "public":
            raise StoreError("refusing to drop the public schema; delete collections instead")
        with self._lock:
            self._db.execute(f"DROP SCHEMA IF EXISTS {self.schema} CASCADE")

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _pgvector_literal(v: npt.NDArray[np.float32]) -> str:
    import numpy as np

    return "[" + ",".join(f"{float(x):.7g}" for x in np.asarray(v).ravel()) + "]"


def _clean(text: str) -> str:
    # PostgreSQL text cannot hold NUL; SQLite can, so drop it here to keep both equal.
    return text.replace("\x00", "")
