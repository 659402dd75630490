"""One value per collection of a store (an index built from its passages), kept until the
collection changes: its generation moves on every ingest, so a stale index is never served.

A value may also be kept on disk (:class:`Saved`), beside the store's other derived indexes:
a new process then reads it instead of building it again (the definitions index took about
half of an offline CLI turn's CPU). The file is named by the collection's generation and by
the code that builds it, so an ingest or a change to that code builds it anew.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from colmeia.store.base import Store

__all__ = ["PerCollection", "Saved"]

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Saved(Generic[T]):
    """How a value is written to disk and read back, and the modules whose code builds it."""

    name: str
    dump: Callable[[T], bytes]
    load: Callable[[bytes], T]
    sources: tuple[str, ...]

    def code_key(self) -> str:
        """A digest of the building modules' source: another build, another file."""
        digest = hashlib.sha256()
        for module in self.sources:
            origin = getattr(importlib.import_module(module), "__file__", None) or ""
            digest.update(Path(origin).read_bytes() if origin else module.encode())
        return digest.hexdigest()[:12]


class PerCollection(Generic[T]):
    """``build(store, collection)`` once per collection generation; ``empty()`` for a
    collection that does not exist. Only the newest generation of a collection is kept;
    with ``saved``, on disk too."""

    def __init__(
        self,
        build: Callable[[Store, str], T],
        empty: Callable[[], T],
        *,
        saved: Saved[T] | None = None,
    ) -> None:
        self._build = build
        self._empty = empty
        self._saved = saved
        self._code_key: str | None = None
        self._cache: dict[tuple[str, str, int], T] = {}
        self._lock = threading.Lock()

    def get(self, store: Store, collection: str) -> T:
        info = store.collection(collection)
        generation = info.generation if info else -1
        key = (store.url, collection, generation)
        with self._lock:
            if key not in self._cache:
                found = (
                    self._load_or_build(store, collection, generation) if info else self._empty()
                )
                self._cache = {k: v for k, v in self._cache.items() if k[:2] != key[:2]}
                self._cache[key] = found
            return self._cache[key]

    def _load_or_build(self, store: Store, collection: str, generation: int) -> T:
        saved = self._saved
        if saved is None:
            return self._build(store, collection)
        if self._code_key is None:
            self._code_key = saved.code_key()
        folder = store.index_dir / collection
        path = folder / f"{saved.name}-g{generation}-{self._code_key}.json"
        try:
            return saved.load(path.read_bytes())
        except FileNotFoundError:
            pass
        except (OSError, ValueError, KeyError, TypeError) as exc:  # unreadable: build anew
            log.info("%s: %s; building it again", path, exc)
        found = self._build(store, collection)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            partial = path.with_name(f".{path.name}.{os.getpid()}")
            partial.write_bytes(saved.dump(found))
            os.replace(partial, path)  # a reader sees the whole file or none
            for old in folder.glob(f"{saved.name}-g*.json"):
                if old != path:
                    old.unlink(missing_ok=True)
        except OSError as exc:  # a read-only index folder: the value is still served
            log.info("cannot keep %s: %s", path, exc)
        return found
