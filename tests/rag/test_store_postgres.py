"""PostgreSQL specifics: portuguese full-text with unaccent, and pgvector (via pgserver)."""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from colmeia.store.postgres import PostgresStore, split_schema
from pg import PG_URL, drop_schema, new_schema, postgres_unreachable


@pytest.fixture
def pg(tmp_path: Path) -> Iterator[PostgresStore]:
    reason = postgres_unreachable()
    if reason:
        pytest.skip(reason)
    schema = new_schema()
    s = PostgresStore(f"{PG_URL}?schema={schema}", cache_dir=tmp_path)
    yield s
    s.close()
    drop_schema(schema)


def test_schema_is_taken_out_of_the_url() -> None:
    assert split_schema("postgresql://u@h/db?schema=abc&sslmode=disable") == (
        "postgresql://u@h/db?sslmode=disable",
        "abc",
    )
    assert split_schema("postgresql://u@h/db")[1] == "public"


def test_portuguese_full_text_ignores_accents(pg: PostgresStore) -> None:
    from colmeia.store import StoredChunk, StoredDocument

    pg.replace_document(
        "c1",
        StoredDocument("d", "h"),
        [
            StoredChunk("d#0", "d", 0, "A licitação será na modalidade concorrência."),
            StoredChunk("d#1", "d", 1, "O consumidor tem direito à informação."),
        ],
    )
    assert pg.has_unaccent, "the machine's PostgreSQL ships unaccent"
    assert [cid for cid, _ in pg.fulltext_search("c1", "licitacao concorrencia", 5)] == ["d#0"]
    assert [cid for cid, _ in pg.fulltext_search("c1", "LICITAÇÃO", 5)] == ["d#0"]
    assert pg.fulltext_search("c1", "inexistente", 5) == []


def test_without_pgvector_vectors_are_kept_as_bytes(pg: PostgresStore) -> None:
    if pg.has_pgvector:
        pytest.skip("this server has pgvector")
    assert pg.native_vector_search("c1", np.ones(4, np.float32), 3) is None


@pytest.fixture(scope="module")
def pgvector_url() -> Iterator[str]:
    """A private PostgreSQL with pgvector from the ``pgserver`` package."""
    folder = tempfile.mkdtemp(prefix="colmeia-pgserver-")
    with warnings.catch_warnings():
        # platformdirs (used by pgserver) warns when XDG_RUNTIME_DIR is unset.
        warnings.simplefilter("ignore")
        try:
            import pgserver
        except ImportError:
            pytest.skip("pgserver is not installed")
        srv = pgserver.get_server(folder, cleanup_mode="stop")
    try:
        yield srv.get_uri()
    finally:
        srv.cleanup()


def test_pgvector_searches_in_the_database(pgvector_url: str, tmp_path: Path) -> None:
    from colmeia.store import StoredChunk, StoredDocument

    sep = "&" if "?" in pgvector_url else "?"
    s = PostgresStore(f"{pgvector_url}{sep}schema=t_vec", cache_dir=tmp_path)
    try:
        assert s.has_pgvector
        vecs = np.eye(3, 4, dtype=np.float32)
        s.replace_document(
            "c1",
            StoredDocument("d", "h"),
            [StoredChunk(f"d#{i}", "d", i, f"texto {i}") for i in range(3)],
            vecs,
        )
        hits = s.native_vector_search("c1", np.array([0, 1, 0.1, 0], np.float32), 2)
        assert hits is not None
        assert [cid for cid, _ in hits] == ["d#1", "d#2"]
        assert hits[0][1] == pytest.approx(0.995, abs=0.01)
        ids, matrix = s.vectors("c1")
        assert ids == ["d#0", "d#1", "d#2"]
        np.testing.assert_allclose(matrix, vecs)
    finally:
        s.drop_schema()
        s.close()
