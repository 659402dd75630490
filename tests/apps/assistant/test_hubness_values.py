"""The hubness of a passage, in numbers: the mean cosine to its ten nearest *other* passages,
rounded to five places, for every passage of the collection; nothing for a collection too small
to have ten neighbours; a passage with an all-zero vector is near nothing. What is saved on disk
reads back as the same numbers, and a file that is not an object is refused."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from colmeia.apps.assistant.hubness import NEIGHBOURS, _dump, _load, build


class _Vectors:
    """Just what ``build`` reads from a store: the collection's chunk ids and their vectors."""

    def __init__(self, matrix: npt.NDArray[np.float32]) -> None:
        self.matrix = matrix
        self.ids = [f"c{i}" for i in range(len(matrix))]

    def vectors(self, collection: str) -> tuple[list[str], npt.NDArray[np.float32]]:
        assert collection == "docs"
        return self.ids, self.matrix


def _by_hand(matrix: npt.NDArray[np.float32]) -> list[float]:
    """Each row's mean cosine to its ten nearest other rows, the slow way."""
    out = []
    for i, v in enumerate(matrix):
        cosines = []
        for j, w in enumerate(matrix):
            if j != i:
                nv, nw = float(np.linalg.norm(v)), float(np.linalg.norm(w))
                cosines.append(float(v @ w) / (nv * nw) if nv and nw else 0.0)
        out.append(sum(sorted(cosines)[-NEIGHBOURS:]) / NEIGHBOURS)
    return out


def _hubs(matrix: npt.NDArray[np.float32]) -> dict[str, float]:
    return build(_Vectors(matrix), "docs")  # type: ignore[arg-type]


@pytest.mark.parametrize("n", [NEIGHBOURS + 1, 30])
def test_each_passage_gets_the_mean_cosine_to_its_ten_nearest_others(n: int) -> None:
    matrix = np.random.default_rng(n).normal(size=(n, 6)).astype(np.float32) * 3.0
    hubs = _hubs(matrix)
    assert list(hubs) == [f"c{i}" for i in range(n)]
    for got, expected in zip(hubs.values(), _by_hand(matrix), strict=True):
        assert got == pytest.approx(expected, abs=2e-5)
        assert got == round(got, 5)


def test_a_collection_with_only_ten_passages_has_no_hubness() -> None:
    matrix = np.random.default_rng(1).normal(size=(NEIGHBOURS, 6)).astype(np.float32)
    assert _hubs(matrix) == {}
    assert _hubs(np.zeros((NEIGHBOURS + 5, 0), np.float32)) == {}  # no vectors stored


def test_a_passage_with_a_zero_vector_is_near_nothing() -> None:
    matrix = np.random.default_rng(2).normal(size=(15, 4)).astype(np.float32)
    matrix[3] = 0.0
    hubs = _hubs(matrix)
    assert hubs["c3"] == 0.0
    assert all(np.isfinite(v) for v in hubs.values())
    for got, expected in zip(hubs.values(), _by_hand(matrix), strict=True):
        assert got == pytest.approx(expected, abs=2e-5)


def test_more_passages_than_one_block_are_all_scored() -> None:
    """Passages are compared a block of 1024 at a time: the ones past the first block count."""
    rng = np.random.default_rng(3)
    matrix = rng.normal(size=(2100, 3)).astype(np.float32)
    hubs = _hubs(matrix)
    assert len(hubs) == 2100
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    for i in (0, 1023, 1024, 2047, 2048, 2099):
        cos = unit @ unit[i]
        cos[i] = -1.0
        assert hubs[f"c{i}"] == pytest.approx(float(np.sort(cos)[-NEIGHBOURS:].mean()), abs=2e-5)


def test_the_saved_hubness_reads_back_the_same() -> None:
    hubs = {"a": 0.12345, "b": 1.0, "c": -0.5}
    loaded = _load(_dump(hubs))
    assert loaded == hubs and all(type(v) is float for v in loaded.values())
    assert _load(b'{"7": 1}') == {"7": 1.0}


@pytest.mark.parametrize("data", [b"[1, 2]", b"0.5", b'"x"'])
def test_a_saved_file_that_is_not_an_object_is_refused(data: Any) -> None:
    with pytest.raises(ValueError, match=r"^hubness file is not an object$"):
        _load(data)


def test_a_large_collection_is_compared_with_a_fixed_sample_of_its_passages() -> None:
    """Past 20,000 passages the neighbours are looked for among a sample of 20,000 of them:
    every passage is still scored, the numbers stay near the exact ones, and the sample is the
    same on every build (the hubness of a collection does not change from one build to the next).
    """
    rng = np.random.default_rng(4)
    matrix = rng.normal(size=(20_050, 3)).astype(np.float32)
    hubs = _hubs(matrix)
    assert len(hubs) == 20_050
    assert _hubs(matrix) == hubs
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    for i in (0, 20_049):
        cos = unit @ unit[i]
        cos[i] = -1.0
        assert hubs[f"c{i}"] == pytest.approx(float(np.sort(cos)[-NEIGHBOURS:].mean()), abs=1e-3)
