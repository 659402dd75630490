"""The dense index as the retriever relies on it: exact cosine search below the HNSW threshold,
an HNSW graph with its settings from the threshold on, results as int64 positions and float32
scores best first, empty answers for nothing to search or nothing asked, stored vectors read
back by position, and a saved index that loads back the same."""

from __future__ import annotations

from pathlib import Path

import faiss
import numpy as np
import pytest

from colmeia.rag.index.dense import DenseIndex
from colmeia.rag.index.embedders import normalize


def _unit(rows: int, dim: int = 16) -> np.ndarray:
    return normalize(np.random.default_rng(3).standard_normal((rows, dim))).astype(np.float32)


def _is_empty_result(result: tuple[np.ndarray, np.ndarray]) -> bool:
    ids, scores = result
    return (
        ids.shape == (0,)
        and ids.dtype == np.int64
        and scores.shape == (0,)
        and (scores.dtype == np.float32)
    )


def test_a_small_collection_is_searched_exactly_by_cosine_best_first() -> None:
    vecs = _unit(50)
    index = DenseIndex.build(vecs)
    assert (index.size, index.dim) == (50, 16)
    ids, scores = index.search(vecs[7], 5)
    expected = np.argsort(-(vecs @ vecs[7]))[:5]
    assert ids.tolist() == expected.tolist()
    assert ids[0] == 7 and scores[0] == pytest.approx(1.0, abs=1e-5)
    assert scores == pytest.approx((vecs @ vecs[7])[expected], abs=1e-5)
    assert (ids.dtype, scores.dtype) == (np.int64, np.float32)


def test_the_first_position_is_a_result_like_any_other() -> None:
    index = DenseIndex.build(_unit(1))
    ids, scores = index.search(_unit(1)[0], 5)  # five asked, one there
    assert ids.tolist() == [0]
    assert scores == pytest.approx([1.0], abs=1e-5)


def test_nothing_to_search_or_nothing_asked_gives_empty_typed_results() -> None:
    empty = DenseIndex.build(np.zeros((0, 16), np.float32))
    assert (empty.size, empty.dim) == (0, 0)
    assert _is_empty_result(empty.search(_unit(1)[0], 5))
    index = DenseIndex.build(_unit(10))
    assert _is_empty_result(index.search(_unit(1)[0], 0))
    assert _is_empty_result(index.search(_unit(1)[0], -3))


def test_stored_vectors_are_read_back_in_the_order_of_the_positions_given() -> None:
    vecs = _unit(20)
    index = DenseIndex.build(vecs)
    rows = index.vectors(np.asarray([3, 1, 3], np.int64))
    assert rows.dtype == np.float32
    assert rows == pytest.approx(vecs[[3, 1, 3]])
    none = index.vectors(np.asarray([], np.int64))
    assert (none.shape, none.dtype) == ((0, 16), np.float32)
    assert DenseIndex.build(np.zeros((0, 16), np.float32)).vectors(np.asarray([])).shape == (0, 0)


def test_from_the_threshold_on_the_index_is_an_hnsw_graph_with_its_settings(tmp_path: Path) -> None:
    vecs = _unit(40)
    DenseIndex.build(vecs[:39], exact_below=40).save(tmp_path / "flat.faiss")
    assert type(faiss.read_index(str(tmp_path / "flat.faiss"))) is faiss.IndexFlatIP
    DenseIndex.build(vecs, exact_below=40).save(tmp_path / "hnsw.faiss")
    graph = faiss.read_index(str(tmp_path / "hnsw.faiss"))
    assert type(graph) is faiss.IndexHNSWFlat
    assert graph.metric_type == faiss.METRIC_INNER_PRODUCT
    assert (graph.hnsw.efConstruction, graph.hnsw.efSearch) == (80, 64)
    assert graph.hnsw.nb_neighbors(0) == 2 * 32  # M = 32: twice as many links on the base layer


def test_hnsw_scores_are_cosines_too() -> None:
    vecs = _unit(40)
    ids, scores = DenseIndex.build(vecs, exact_below=40).search(vecs[5], 3)
    assert ids[0] == 5
    assert scores == pytest.approx(np.sort(vecs @ vecs[5])[::-1][:3], abs=1e-5)


def test_an_index_saved_in_a_new_folder_loads_back_the_same(tmp_path: Path) -> None:
    vecs = _unit(30)
    path = tmp_path / "collection" / "generation-2" / "dense.faiss"
    DenseIndex.build(vecs).save(path)
    loaded = DenseIndex.load(path)
    assert loaded is not None
    assert (loaded.size, loaded.dim) == (30, 16)
    assert loaded.search(vecs[11], 1)[0].tolist() == [11]
    assert loaded.vectors(np.asarray([], np.int64)).shape == (0, 16)
    assert DenseIndex.load(tmp_path / "missing.faiss") is None
