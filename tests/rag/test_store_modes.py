"""Stores open to create, to change or only to read; only ``create`` ever makes anything."""

from __future__ import annotations

from pathlib import Path

import pytest
from rag_fixtures import store_url_fixture  # noqa: F401  (fixture)

from colmeia.errors import MissingStoreError, StoreError
from colmeia.store import StoredChunk, StoredDocument, open_store
from pg import PG_URL, drop_schema, new_schema, postgres_unreachable


def _one_document(url: str, cache: Path) -> None:
    store = open_store(url, cache_dir=cache)
    store.ensure_collection("c")
    doc = StoredDocument(doc_id="d", content_hash="h", n_chunks=1)
    chunk = StoredChunk(chunk_id="d#0", doc_id="d", seq=0, text="texto da lei")
    store.replace_document("c", doc, [chunk])
    store.close()


def test_sqlite_read_and_write_modes_never_create_a_file_or_folder(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "colmeia.db"
    for mode in ("read", "write"):
        with pytest.raises(MissingStoreError, match="there is no store at"):
            open_store(f"sqlite:///{path}", mode=mode)  # type: ignore[arg-type]
    assert not (tmp_path / "nowhere").exists()

    not_ours = tmp_path / "other.db"
    import sqlite3

    sqlite3.connect(not_ours).execute("CREATE TABLE t(x)").connection.close()
    with pytest.raises(MissingStoreError, match="not a colmeia store"):
        open_store(str(not_ours), mode="read")


def test_a_store_opened_to_read_refuses_writes(store_url: str, tmp_path: Path) -> None:
    _one_document(store_url, tmp_path / "cache")
    store = open_store(store_url, cache_dir=tmp_path / "cache", mode="read")
    try:
        assert [c.name for c in store.collections()] == ["c"]
        assert store.chunks("c")[0].text == "texto da lei"
        with pytest.raises(StoreError):
            store.ensure_collection("new")
        with pytest.raises(StoreError):
            store.delete_collection("c")
    finally:
        store.close()
    writer = open_store(store_url, cache_dir=tmp_path / "cache", mode="write")
    try:
        assert writer.delete_collection("c")
        assert writer.collections() == []
    finally:
        writer.close()


def test_postgres_read_mode_creates_no_schema(tmp_path: Path) -> None:
    reason = postgres_unreachable()
    if reason:
        pytest.skip(reason)
    import psycopg

    schema = new_schema()
    drop_schema(schema)  # a schema name nobody has made
    url = f"{PG_URL}?schema={schema}"
    try:
        with pytest.raises(MissingStoreError, match=f"no colmeia store in schema '{schema}'"):
            open_store(url, cache_dir=tmp_path, mode="read")
        with psycopg.connect(PG_URL) as conn:
            row = conn.execute(
                "SELECT 1 FROM information_schema.schemata WHERE schema_name = %s", (schema,)
            ).fetchone()
        assert row is None
    finally:
        drop_schema(schema)
