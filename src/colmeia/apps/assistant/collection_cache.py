"""One value per collection of a store (an index built from its passages), kept until the
collection changes: its generation moves on every ingest, so a stale index is never served."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from colmeia.store.base import Store

__all__ = ["PerCollection"]

T = TypeVar("T")


class PerCollection(Generic[T]):
    """``build(store, collection)`` once per collection generation; ``empty()`` for a
    collection that does not exist. Only the newest generation of a collection is kept."""

    def __init__(self, build: Callable[[Store, str], T], empty: Callable[[], T]) -> None:
        self._build = build
        self._empty = empty
        self._cache: dict[tuple[str, str, int], T] = {}
        self._lock = threading.Lock()

    def get(self, store: Store, collection: str) -> T:
        info = store.collection(collection)
        generation = info.generation if info else -1
        key = (store.url, collection, generation)
        with self._lock:
            if key not in self._cache:
                found = self._build(store, collection) if info else self._empty()
                self._cache = {k: v for k, v in self._cache.items() if k[:2] != key[:2]}
                self._cache[key] = found
            return self._cache[key]
