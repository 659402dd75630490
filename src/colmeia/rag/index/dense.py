"""Dense (vector) index: exact inner product for small collections, FAISS HNSW for large ones.

Vectors are L2-normalised, so inner product is cosine similarity.
"""

from __future__ import annotations

from pathlib import Path

import faiss
import numpy as np
import numpy.typing as npt

__all__ = ["DenseIndex"]

# Below this many vectors an exact scan is both fast and deterministic.
EXACT_BELOW = 20_000


class DenseIndex:
    """Nearest passages by cosine similarity; positions are rows of the vectors given."""

    def __init__(self, index: faiss.Index, dim: int) -> None:
        self._index = index
        self.dim = dim

    @property
    def size(self) -> int:
        return int(self._index.ntotal)

    @classmethod
    def build(
        cls,
        vectors: npt.NDArray[np.float32],
        *,
        hnsw_m: int = 32,
        ef_construction: int = 80,
        ef_search: int = 64,
        exact_below: int = EXACT_BELOW,
    ) -> DenseIndex:
        """Index row-aligned unit vectors (HNSW from ``exact_below`` rows on)."""
        arr = np.ascontiguousarray(vectors, dtype=np.float32)
        dim = int(arr.shape[1]) if arr.ndim == 2 and arr.size else 0
        if len(arr) < exact_below:
            index: faiss.Index = faiss.IndexFlatIP(dim)
        else:
            index = faiss.IndexHNSWFlat(dim, hnsw_m, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = ef_construction
            index.hnsw.efSearch = ef_search
        if dim:  # rows of at least one value each (no rows: nothing to add)
            index.add(arr)
        return cls(index, dim)

    def search(
        self, vector: npt.NDArray[np.float32], k: int
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """Top ``k`` positions and cosine similarities, best first."""
        if self.size == 0 or k <= 0:
            return np.empty(0, np.int64), np.empty(0, np.float32)
        q = np.ascontiguousarray(np.asarray(vector, np.float32).reshape(1, -1))
        if isinstance(self._index, faiss.IndexHNSWFlat):
            self._index.hnsw.efSearch = max(self._index.hnsw.efSearch, k)
        scores, ids = self._index.search(q, min(k, self.size))
        keep = ids[0] >= 0
        return ids[0][keep].astype(np.int64), scores[0][keep].astype(np.float32)

    def vectors(self, positions: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        """The stored vectors at ``positions`` (rows in the order given; none: ``(0, dim)``)."""
        keys = np.ascontiguousarray(positions, dtype=np.int64)
        return np.asarray(self._index.reconstruct_batch(keys), dtype=np.float32)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        faiss.write_index(self._index, str(path))

    @classmethod
    def load(cls, path: Path) -> DenseIndex | None:
        if not path.exists():
            return None
        index = faiss.read_index(str(path))
        return cls(index, int(index.d))
