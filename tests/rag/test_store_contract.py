"""Every store backend keeps documents and chunks the same way (SQLite and PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from rag_fixtures import store_fixture, store_url_fixture  # noqa: F401  (fixtures)

from colmeia.errors import ConfigurationError, StoreError
from colmeia.store import Store, StoredChunk, StoredDocument, open_store


def _doc(doc_id: str, text: str, *, h: str = "h1", doc_type: str = "lei", year: int = 2020):
    chunks = [
        StoredChunk(
            f"{doc_id}#{i}", doc_id, i, part, page_start=i + 1, page_end=i + 1, path=f"Art. {i + 1}"
        )
        for i, part in enumerate(text.split("|"))
    ]
    document = StoredDocument(
        doc_id,
        h,
        title=f"Título {doc_id}",
        path=f"/x/{doc_id}.txt",
        doc_type=doc_type,
        year=year,
        metadata={"k": "v"},
    )
    return document, chunks


def test_a_document_is_stored_with_its_chunks_in_order(store: Store) -> None:
    store.ensure_collection("leis")
    doc, chunks = _doc("lei-1", "primeiro artigo|segundo artigo|terceiro artigo")
    store.replace_document("leis", doc, chunks)

    info = store.collection("leis")
    assert info is not None
    assert (info.documents, info.chunks) == (1, 3)
    got = store.chunks("leis")
    assert [c.chunk_id for c in got] == ["lei-1#0", "lei-1#1", "lei-1#2"]
    assert got[1].text == "segundo artigo"
    assert got[1].path == "Art. 2"
    assert got[1].page_start == 2
    # Document fields come back with the chunk, for citations and filters.
    assert (got[0].title, got[0].doc_type, got[0].year) == ("Título lei-1", "lei", 2020)
    assert store.document_hashes("leis") == {"lei-1": "h1"}
    assert store.documents("leis")[0].metadata == {"k": "v"}


def test_replacing_a_document_leaves_no_old_chunks(store: Store) -> None:
    doc, chunks = _doc("d", "a|b|c")
    store.replace_document("c1", doc, chunks)
    gen = store.collection("c1").generation  # type: ignore[union-attr]
    doc2, chunks2 = _doc("d", "novo texto", h="h2")
    store.replace_document("c1", doc2, chunks2)

    assert [c.text for c in store.chunks("c1")] == ["novo texto"]
    assert store.document_hashes("c1") == {"d": "h2"}
    assert store.collection("c1").generation > gen  # type: ignore[union-attr]


def test_deleting_documents_and_collections(store: Store) -> None:
    for name in ("a", "b"):
        store.replace_document("c1", *_doc(name, "x|y"))
    assert store.delete_documents("c1", ["a", "missing"]) == 1
    assert [c.doc_id for c in store.chunks("c1")] == ["b", "b"]
    assert store.delete_documents("c1", ["missing"]) == 0

    assert store.delete_collection("c1") is True
    assert store.collection("c1") is None
    assert store.delete_collection("c1") is False


def test_get_chunks_by_id_skips_unknown_ids(store: Store) -> None:
    store.replace_document("c1", *_doc("d", "um|dois"))
    got = store.get_chunks("c1", ["d#1", "nope", "d#0"])
    assert sorted(got) == ["d#0", "d#1"]
    assert got["d#1"].text == "dois"


def test_vectors_round_trip_row_aligned(store: Store) -> None:
    doc, chunks = _doc("d", "um|dois|três")
    vecs = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    store.replace_document("c1", doc, chunks, vecs)
    store.set_embedder("c1", "test-embedder", 4)

    ids, matrix = store.vectors("c1")
    assert ids == ["d#0", "d#1", "d#2"]
    np.testing.assert_allclose(matrix, vecs, rtol=1e-6)
    assert store.collection("c1").embedder == "test-embedder"  # type: ignore[union-attr]


def test_misaligned_vectors_are_refused(store: Store) -> None:
    doc, chunks = _doc("d", "um|dois")
    with pytest.raises(StoreError, match="vectors"):
        store.replace_document("c1", doc, chunks, np.zeros((3, 4), np.float32))


def test_collections_are_listed_by_name(store: Store) -> None:
    store.ensure_collection("zeta")
    store.replace_document("alfa", *_doc("d", "x"))
    assert [(c.name, c.documents) for c in store.collections()] == [("alfa", 1), ("zeta", 0)]


@pytest.mark.parametrize("name", ["", "../x", "a b", ".hidden", "x" * 65])
def test_bad_collection_names_are_refused(store: Store, name: str) -> None:
    with pytest.raises(ConfigurationError, match="collection name"):
        store.ensure_collection(name)


def test_unknown_store_urls_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="unknown store URL"):
        open_store("mysql://x/y")
    with pytest.raises(ConfigurationError, match="no file"):
        open_store("sqlite://")


def test_data_survives_reopening(store_url: str, tmp_path: Path) -> None:
    s1 = open_store(store_url, cache_dir=tmp_path)
    s1.replace_document("c1", *_doc("d", "persistente"))
    s1.close()
    s2 = open_store(store_url, cache_dir=tmp_path)
    assert [c.text for c in s2.chunks("c1")] == ["persistente"]
    s2.close()
