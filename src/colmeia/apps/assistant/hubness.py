"""How much of a "hub" each passage is in the vector space: the mean cosine to its nearest
other passages of the collection.

Nearest-neighbour search in high dimensions has hubs — passages near almost everything, so
they come near every question (Radovanović et al., 2010). On the shipped laws they are the
long articles and lists (Lei 13.303 Art. 29's cases of dispensa, the CDC's Arts. 54-B–54-G on
credit, the ANPD's powers): the vectors put them near lay questions on any topic. Subtracting
part of a passage's hubness from its cosine to the question (the CSLS correction of Conneau et
al., 2018, with the passages themselves as its neighbourhood) lets the passage that is near
*this* question, not near everything, stand out. The value depends only on the collection's
stored vectors, so it is built once per collection generation and kept on disk.
"""

from __future__ import annotations

import random

import numpy as np
import orjson

from colmeia.apps.assistant.collection_cache import PerCollection, Saved
from colmeia.store.base import Store

__all__ = ["NEIGHBOURS", "hubness"]

NEIGHBOURS = 10
# Above this many passages the neighbours are looked for among a fixed sample of them: the
# all-pairs product grows with the square of the collection.
_REFERENCE = 20_000
_BLOCK = 1024


def build(store: Store, collection: str) -> dict[str, float]:
    """Each passage's mean cosine to its ``NEIGHBOURS`` nearest other passages ({} when the
    collection has no vectors)."""
    ids, matrix = store.vectors(collection)
    if len(ids) <= NEIGHBOURS or not matrix.size:
        return {}
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32)
    reference = np.arange(len(ids))
    if len(ids) > _REFERENCE:
        reference = np.array(sorted(random.Random(7).sample(range(len(ids)), _REFERENCE)))
    ref = unit[reference]
    column = {int(p): j for j, p in enumerate(reference)}
    out: dict[str, float] = {}
    for start in range(0, len(ids), _BLOCK):
        block = unit[start : start + _BLOCK] @ ref.T
        for row, i in enumerate(range(start, min(start + _BLOCK, len(ids)))):
            if i in column:
                block[row, column[i]] = -1.0  # not its own neighbour
        nearest = np.partition(block, -NEIGHBOURS, axis=1)[:, -NEIGHBOURS:]
        for row, value in enumerate(nearest.mean(axis=1)):
            out[ids[start + row]] = round(float(value), 5)
    return out


def _dump(value: dict[str, float]) -> bytes:
    return orjson.dumps(value)


def _load(data: bytes) -> dict[str, float]:
    loaded = orjson.loads(data)
    if not isinstance(loaded, dict):
        raise ValueError("hubness file is not an object")
    return {str(k): float(v) for k, v in loaded.items()}


_HUBNESS: PerCollection[dict[str, float]] = PerCollection(
    build, dict, saved=Saved("hubness", _dump, _load, (__name__,))
)


def hubness(store: Store, collection: str) -> dict[str, float]:
    """The collection's hubness by chunk id (built on first use, then read from disk)."""
    return _HUBNESS.get(store, collection)
