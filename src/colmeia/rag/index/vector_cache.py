"""Vectors kept across runs: an embedder wrapper that embeds each text once per model.

Re-ingesting the shipped laws, rebuilding an evaluation store or embedding the same question
again costs a model pass per text every time; on a CPU a passage of the offline e5 model costs
about 0.1 s, so the nine laws (3,400 dispositivos) are minutes of work that gives the same
vectors each time. :class:`CachedEmbedder` keeps each vector in a SQLite file keyed by the
model's name, the kind (passage or query) and a hash of the text: a text seen before is read
back instead of embedded (and the model is not even loaded when every text is known).

The file is ``$COLMEIA_CACHE_DIR/vectors.sqlite`` (else ``$XDG_CACHE_HOME/colmeia/…``, else
``~/.cache/colmeia/…``); ``COLMEIA_CACHE_DIR=off`` keeps nothing. A cache that cannot be opened
or written is logged and skipped: vectors are then embedded as if there were no cache.

Below the cache sits the seed shipped with colmeia (:mod:`colmeia.rag.index.vector_seed`): the
vectors of the shipped corpora, read-only, checked against the live model before first use. A
text found in neither is embedded (and kept in the cache).
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from colmeia.rag.index.vector_seed import VectorSeed

__all__ = ["CachedEmbedder", "cache_key", "vector_cache_file"]

log = logging.getLogger(__name__)

_SCHEMA = "CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)"
_LOOKUP_BATCH = 500  # SQLite's default limit on host parameters is 999


def cache_key(model: str, kind: str, text: str) -> str:
    """The key of ``text``'s vector by ``model`` (``kind``: passage or query), hex SHA-256."""
    return hashlib.sha256(f"{model}\0{kind}\0{text}".encode()).hexdigest()


def vector_cache_file() -> Path | None:
    """Where vectors are kept, or ``None`` when ``COLMEIA_CACHE_DIR=off``."""
    configured = os.environ.get("COLMEIA_CACHE_DIR", "").strip()
    if configured.lower() in ("off", "none", "0"):
        return None
    if configured:
        return Path(configured).expanduser() / "vectors.sqlite"
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    root = Path(base).expanduser() if base else Path.home() / ".cache"
    return root / "colmeia" / "vectors.sqlite"


class CachedEmbedder:
    """Embeds through ``make()`` (called on the first text not in the cache) and keeps every
    vector in ``path``; ``name`` is the wrapped model's (a collection records it)."""

    def __init__(
        self,
        name: str,
        make: Callable[[], object],
        path: Path,
        *,
        seed: VectorSeed | None = None,
    ) -> None:
        self._name = name
        self._make = make
        self._inner: object | None = None
        self.path = path
        self.seed = seed
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self.hits = 0
        self.misses = 0
        self.seeded = 0  # texts served by the shipped seed (counted among hits)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(path, check_same_thread=False, timeout=30)
            db.execute(_SCHEMA)
            db.commit()
            self._db = db
        except (OSError, sqlite3.Error) as exc:
            log.warning("vector cache %s unusable, embedding without it: %s", path, exc)

    @property
    def name(self) -> str:
        return self._name

    @property
    def inner(self) -> object:
        """The wrapped embedder, made on first use."""
        if self._inner is None:
            self._inner = self._make()
        return self._inner

    def _key(self, kind: str, text: str) -> str:
        return cache_key(self._name, kind, text)

    def _lookup(self, keys: list[str]) -> dict[str, npt.NDArray[np.float32]]:
        found: dict[str, npt.NDArray[np.float32]] = {}
        if self._db is None:
            return found
        unique = list(dict.fromkeys(keys))
        try:
            with self._lock:
                for start in range(0, len(unique), _LOOKUP_BATCH):
                    part = unique[start : start + _LOOKUP_BATCH]
                    marks = ",".join("?" * len(part))
                    rows = self._db.execute(
                        f"SELECT key, vector FROM vectors WHERE key IN ({marks})", part
                    )
                    for key, blob in rows:
                        found[key] = np.frombuffer(blob, dtype=np.float32)
        except sqlite3.Error as exc:
            log.warning("vector cache %s unreadable: %s", self.path, exc)
        return found

    def _store(self, rows: list[tuple[str, npt.NDArray[np.float32]]]) -> None:
        if self._db is None or not rows:
            return
        try:
            with self._lock:
                self._db.executemany(
                    "INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)",
                    [(k, np.ascontiguousarray(v, dtype=np.float32).tobytes()) for k, v in rows],
                )
                self._db.commit()
        except sqlite3.Error as exc:
            log.warning("vector cache %s not written: %s", self.path, exc)

    def _vectors(self, texts: Sequence[str], kind: str) -> npt.NDArray[np.float32]:
        keys = [self._key(kind, t) for t in texts]
        found = self._lookup(keys)
        if self.seed is not None and len(found) < len(set(keys)):
            seeded = self.seed.lookup([k for k in keys if k not in found])
            if seeded and self.seed.verify(self._passages):
                found.update(seeded)
                self.seeded += sum(1 for k in keys if k in seeded)
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in found))
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        if missing:
            inner = self.inner
            method = getattr(inner, "embed_query", None) if kind == "query" else None
            embed = method if callable(method) else getattr(inner, "embed")  # noqa: B009
            rows = np.asarray(embed(missing), dtype=np.float32)
            new = [(self._key(kind, t), rows[i]) for i, t in enumerate(missing)]
            self._store(new)
            found.update(new)
        if not texts:
            return np.empty((0, 0), np.float32)
        return np.vstack([found[k] for k in keys]).astype(np.float32, copy=False)

    def _passages(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """The wrapped model's own passage vectors (no cache): the seed's probe."""
        return np.asarray(getattr(self.inner, "embed")(texts), dtype=np.float32)  # noqa: B009

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Passage vectors for ``texts``, in order (known ones read back)."""
        return self._vectors(texts, "passage")

    def embed_query(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Query vectors for ``texts``, in order (the model's query form when it has one)."""
        return self._vectors(texts, "query")

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
