"""Durable documents and chunks, selected by URL: SQLite (default) or PostgreSQL.

``open_store("sqlite:///path/colmeia.db")``, ``open_store("path/colmeia.db")`` or
``open_store("postgresql://user@host/db?schema=name")``.
"""

from __future__ import annotations

from pathlib import Path

from colmeia.errors import ConfigurationError
from colmeia.store.base import CollectionInfo, OpenMode, Store, StoredChunk, StoredDocument

__all__ = ["CollectionInfo", "OpenMode", "Store", "StoredChunk", "StoredDocument", "open_store"]


def open_store(url: str, *, cache_dir: Path | None = None, mode: OpenMode = "create") -> Store:
    """Open the store at ``url``.

    ``mode="create"`` creates the file, folder or schema when missing (ingestion);
    ``"write"`` opens an existing store to change it (deletion); ``"read"`` opens an existing
    store and refuses writes (search, listing, evaluation). With ``"write"`` and ``"read"``
    nothing is ever created: a missing store raises :class:`~colmeia.errors.MissingStoreError`.
    ``cache_dir`` is where a PostgreSQL store caches derived indexes (default ``./.colmeia``);
    a SQLite store keeps them beside its file.
    """
    if mode not in ("create", "write", "read"):
        raise ConfigurationError(f"unknown store mode {mode!r}: use create, write or read")
    if url.startswith(("postgresql://", "postgres://")):
        from colmeia.store.postgres import PostgresStore

        return PostgresStore(url, cache_dir=cache_dir, mode=mode)
    if url.startswith("sqlite:///"):
        path = url[len("sqlite:///") :]
    elif url.startswith("sqlite://"):
        raise ConfigurationError(
            f"store URL {url!r} has no file: write sqlite:///relative/path.db or "
            "sqlite:////absolute/path.db"
        )
    elif "://" in url:
        raise ConfigurationError(
            f"unknown store URL {url!r}: use a file path, sqlite:///path or postgresql://…"
        )
    else:
        path = url
    if not path:
        raise ConfigurationError("the store path is empty: set COLMEIA_STORE or --store")
    from colmeia.store.sqlite import SQLiteStore

    return SQLiteStore(Path(path), mode=mode)
