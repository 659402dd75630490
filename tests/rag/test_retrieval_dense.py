"""Dense and hybrid retrieval with embeddings from the simulated server's /v1/embeddings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from rag_fixtures import laws_folder, store_fixture, store_url_fixture  # noqa: F401  (fixtures)

from colmeia.errors import ConfigurationError, ModelUnreachableError
from colmeia.rag.index.dense import DenseIndex
from colmeia.rag.index.embedders import HTTPEmbedder, normalize
from colmeia.rag.pipeline import ingest
from colmeia.rag.retrieve import Retriever, rrf_fuse, score_fuse
from colmeia.sim.engine import SimulatedModel
from colmeia.store import Store


@pytest.fixture
def embedder(sim_server) -> Iterator[HTTPEmbedder]:  # type: ignore[no-untyped-def]
    srv = sim_server(SimulatedModel(embedding_dim=64))
    with HTTPEmbedder(srv.base_url, "sim-embed", batch_size=2) as emb:
        yield emb


def test_embeddings_come_over_http_as_unit_vectors(embedder: HTTPEmbedder) -> None:
    vecs = embedder.embed(["licitação pública", "licitacao publica", "dados pessoais"])
    assert vecs.shape == (3, 64)
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-5)
    # The simulated embedder folds accents: the same words give the same vector.
    assert float(vecs[0] @ vecs[1]) == pytest.approx(1.0, abs=1e-5)
    assert float(vecs[0] @ vecs[2]) < 0.9


def test_unreachable_embedding_server_is_a_model_error() -> None:
    with (
        HTTPEmbedder("http://127.0.0.1:9/v1", "x") as emb,
        pytest.raises(ModelUnreachableError, match="embeddings server"),
    ):
        emb.embed(["a"])


def test_hybrid_search_fuses_lexical_and_dense_ranks(
    store: Store, embedder: HTTPEmbedder, tmp_path: Path
) -> None:
    report = ingest(store, "leis", [laws_folder(tmp_path / "docs")], embedder=embedder)
    assert report.errors == []
    info = store.collection("leis")
    assert info is not None
    assert info.embedder == embedder.name
    ids, matrix = store.vectors("leis")
    assert len(ids) == info.chunks
    assert matrix.shape == (info.chunks, 64)

    for fusion in ("zscore", "rrf"):
        hits = Retriever(store, "leis", embedder=embedder, fusion=fusion).search(
            "publicidade enganosa", 10
        )
        top = hits[0]
        assert top.doc_id.endswith("consumidor.txt")
        assert (top.lexical_rank, top.dense_rank) == (1, 1)
        if fusion == "rrf":
            assert top.score == pytest.approx(2 / 61)
        # Vectors bring passages that share no word with the query; they rank after.
        dense_only = [h for h in hits if h.lexical_rank is None]
        assert dense_only
        assert all(h.dense_rank is not None for h in dense_only)
        assert hits == sorted(hits, key=lambda h: -h.score)


def test_lexical_only_without_an_embedder(store: Store, embedder: HTTPEmbedder, tmp_path) -> None:  # type: ignore[no-untyped-def]
    ingest(store, "leis", [laws_folder(tmp_path / "docs")], embedder=embedder)
    hits = Retriever(store, "leis").search("publicidade enganosa", 10)
    assert hits
    assert all(h.dense_rank is None for h in hits)
    assert all(h.lexical_rank is not None for h in hits)


def test_vectors_of_another_embedder_are_refused(
    store: Store, embedder: HTTPEmbedder, tmp_path: Path, sim_server
) -> None:  # type: ignore[no-untyped-def]
    ingest(store, "leis", [laws_folder(tmp_path / "docs")], embedder=embedder)
    with HTTPEmbedder(sim_server(SimulatedModel(embedding_dim=64)).base_url, "outro") as other:
        with pytest.raises(ConfigurationError, match="embedded with"):
            Retriever(store, "leis", embedder=other).search("consumidor")
        with pytest.raises(ConfigurationError, match="holds vectors from"):
            ingest(store, "leis", [laws_folder(tmp_path / "more")], embedder=other)


def test_reciprocal_rank_fusion() -> None:
    fused = rrf_fuse([[10, 20, 30], [30, 40]], rrf_k=60)
    by_pos = {p: (score, ranks) for p, score, ranks in fused}
    assert by_pos[30] == (pytest.approx(1 / 63 + 1 / 61), [3, 1])
    assert by_pos[40][1] == [None, 2]
    assert [p for p, _, _ in fused] == [30, 10, 20, 40]


def test_score_fusion_keeps_a_lexical_match_far_ahead_of_the_rest_first() -> None:
    # Passage 7 matches every word of the query (BM25 far above the others); the vectors of a
    # corpus on one topic are all alike and put passage 8 a hair ahead of it.
    lexical = ([7, 8, 9, 10], [24.0, 6.0, 5.5, 5.0])
    dense = ([8, 10, 7, 9], [0.861, 0.860, 0.859, 0.80])
    assert [p for p, _, _ in rrf_fuse([lexical[0], dense[0]])][:2] == [8, 7]  # ranks only
    for how in ("zscore", "minmax"):
        fused = score_fuse([lexical, dense], [0.5, 0.5], how)
        assert fused[0][0] == 7
        assert fused[0][2] == [1, 3]  # its rank in each list
    # Positions one list did not return count as that list's lowest candidate.
    fused = {p: s for p, s, _ in score_fuse([([1, 2], [3.0, 1.0]), ([3], [0.5])], [0.5, 0.5])}
    assert fused[1] == pytest.approx(0.5 * 1.0 + 0.5 * 0.0)
    assert fused[3] == pytest.approx(0.5 * -1.0 + 0.5 * 0.0)


def test_hnsw_index_finds_nearest_neighbours(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    vecs = normalize(rng.standard_normal((3000, 16)))
    exact = DenseIndex.build(vecs)
    hnsw = DenseIndex.build(vecs, exact_below=100)
    query = vecs[42] + 0.01
    assert exact.search(query, 1)[0].tolist() == [42]
    assert hnsw.search(query, 5)[0][0] == 42
    hnsw.save(tmp_path / "d.faiss")
    loaded = DenseIndex.load(tmp_path / "d.faiss")
    assert loaded is not None
    assert loaded.search(query, 1)[0].tolist() == [42]
