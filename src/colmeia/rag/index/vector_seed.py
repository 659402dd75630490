"""Vectors shipped with colmeia for the corpora it ships: a read-only seed for the vector cache.

Embedding the shipped CAPES catalogue with the offline e5 model costs about 0.5 s of CPU per
record (1.4 ms per token, ~450 tokens each): two minutes of CPU, ten on two busy cores, for
vectors that are the same on every machine. So the vectors of what the shipped corpora's
imports embed are built once (``data/build_vector_seed.py``) and shipped here, keyed like the
vector cache — a hash of the model's name, the kind (passage or query) and the text — so that
only a text the seed does not hold (your own documents, a PDF cleaned differently since the
seed was built) goes through the model.

The file ``data/vector_seed.npz`` holds the first 16 bytes of each key's SHA-256 and the
vector as int8 with one float32 scale per row (cosine to the float32 vector ≥ 0.9999, a
quarter of its size); ``data/vector_seed.json`` says how it was built and holds a probe: a
sentence and its float32 vector. Before the first vector is served, the live model embeds the
probe; a different vector (another model, another quantisation, another engine) disables the
seed with a warning and every text is embedded as if there were none. Rebuild it with
``python data/build_vector_seed.py``; ``COLMEIA_VECTOR_SEED=off`` leaves it unused.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "PROBE_MIN_COSINE",
    "VectorSeed",
    "default_seed",
    "quantize",
    "seed_key",
    "write_seed",
]

log = logging.getLogger(__name__)

#: Below this cosine between the live model's probe vector and the shipped one, the seed was
#: built by another model. int8 storage alone keeps it above 0.9999; 4-bit engines built for
#: another CPU may differ in the last float bits, not by 1e-3.
PROBE_MIN_COSINE = 0.999
KEY_BYTES = 16


def seed_key(hex_key: str) -> bytes:
    """The seed's key for a vector-cache key (the first bytes of the same SHA-256)."""
    return bytes.fromhex(hex_key)[:KEY_BYTES]


def quantize(
    vectors: npt.NDArray[np.float32],
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32]]:
    """Rows as int8 times one scale per row (the row's largest magnitude / 127)."""
    arr = np.asarray(vectors, dtype=np.float32)
    scales = np.abs(arr).max(axis=1) / 127.0 if len(arr) else np.empty(0, np.float32)
    scales = np.where(scales == 0, 1.0, scales).astype(np.float32)
    codes = np.clip(np.rint(arr / scales[:, None]), -127, 127).astype(np.int8)
    return codes, scales


@dataclass(slots=True)
class VectorSeed:
    """Shipped vectors by key; ``verify`` is called with the live model before the first use."""

    model: str
    keys: dict[bytes, int]
    codes: npt.NDArray[np.int8]
    scales: npt.NDArray[np.float32]
    probe_text: str
    probe_vector: npt.NDArray[np.float32]
    manifest: dict[str, Any] = field(default_factory=dict)
    state: str = "unverified"  # "ok" | "rejected"

    def __len__(self) -> int:
        return len(self.keys)

    def verify(self, embed: Callable[[Sequence[str]], npt.NDArray[np.float32]]) -> bool:
        """Whether ``embed`` (the live model's passage embedding) gives the probe's vector;
        checked once, the answer kept."""
        if self.state == "unverified":
            live = np.asarray(embed([self.probe_text]), dtype=np.float32)[0]
            denom = float(np.linalg.norm(live) * np.linalg.norm(self.probe_vector)) or 1.0
            cosine = float(live @ self.probe_vector) / denom
            if cosine >= PROBE_MIN_COSINE:
                self.state = "ok"
            else:
                self.state = "rejected"
                log.warning(
                    "the shipped vector seed (%s) was built with another model than the one "
                    "running here (probe cosine %.4f): ignored, texts are embedded instead; "
                    "rebuild it with `python data/build_vector_seed.py`",
                    self.model,
                    cosine,
                )
        return self.state == "ok"

    def lookup(self, hex_keys: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        """The shipped vectors of those keys it holds (unit float32 rows)."""
        out: dict[str, npt.NDArray[np.float32]] = {}
        if self.state == "rejected":
            return out
        for key in hex_keys:
            row = self.keys.get(seed_key(key))
            if row is not None:
                vec = self.codes[row].astype(np.float32) * self.scales[row]
                norm = float(np.linalg.norm(vec)) or 1.0
                out[key] = vec / norm
        return out

    @classmethod
    def load(cls, npz: Path, manifest: Path) -> VectorSeed:
        meta = json.loads(manifest.read_text("utf-8"))
        with np.load(npz) as data:
            raw_keys = np.asarray(data["keys"], dtype=np.uint8)
            codes = np.asarray(data["codes"], dtype=np.int8)
            scales = np.asarray(data["scales"], dtype=np.float32)
        if not (len(raw_keys) == len(codes) == len(scales)) or codes.shape[1] != meta["dim"]:
            raise ValueError(
                f"{npz}: {len(raw_keys)} keys, {len(codes)} vectors of {codes.shape[1]} "
                f"dimensions, {len(scales)} scales (want one each, {meta['dim']} dimensions)"
            )
        keys = {bytes(k): i for i, k in enumerate(raw_keys)}
        probe = np.asarray(meta["probe"]["vector"], dtype=np.float32)
        return cls(meta["model"], keys, codes, scales, meta["probe"]["text"], probe, meta)


def write_seed(
    npz: Path,
    manifest: Path,
    *,
    model: str,
    hex_keys: Sequence[str],
    vectors: npt.NDArray[np.float32],
    probe_text: str,
    probe_vector: npt.NDArray[np.float32],
    built: dict[str, Any],
) -> None:
    """Write the seed files (keys sorted, so that a rebuild of the same vectors is the same
    file); ``built`` says how (corpora, commands, versions) and goes in the manifest."""
    order = np.argsort(np.asarray(hex_keys))
    keys = np.frombuffer(b"".join(seed_key(hex_keys[i]) for i in order), dtype=np.uint8)
    codes, scales = quantize(np.asarray(vectors, dtype=np.float32)[order])
    npz.parent.mkdir(parents=True, exist_ok=True)
    with npz.open("wb") as fh:
        np.savez_compressed(fh, keys=keys.reshape(-1, KEY_BYTES), codes=codes, scales=scales)
    meta = {
        "model": model,
        "dim": int(codes.shape[1]) if codes.ndim == 2 else 0,
        "vectors": len(order),
        "storage": "int8 per component, one float32 scale per row; keys: first 16 bytes of "
        "sha256(model \\0 kind \\0 text), as colmeia.rag.index.vector_cache",
        "probe": {"text": probe_text, "vector": [round(float(x), 7) for x in probe_vector]},
        "built": built,
    }
    manifest.write_text(json.dumps(meta, ensure_ascii=False, indent=1) + "\n", "utf-8")


_DEFAULT: dict[str, VectorSeed | None] = {}


def default_seed(model: str) -> VectorSeed | None:
    """The seed shipped in package data for ``model`` (loaded once per process), or ``None``
    when there is none for that model, it cannot be read (logged) or
    ``COLMEIA_VECTOR_SEED=off``."""
    if os.environ.get("COLMEIA_VECTOR_SEED", "").strip().lower() in ("off", "none", "0"):
        return None
    if model in _DEFAULT:
        return _DEFAULT[model]
    seed: VectorSeed | None = None
    folder = files("colmeia.rag.index").joinpath("data")
    npz, manifest = folder.joinpath("vector_seed.npz"), folder.joinpath("vector_seed.json")
    if npz.is_file() and manifest.is_file():
        try:
            loaded = VectorSeed.load(Path(str(npz)), Path(str(manifest)))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("the shipped vector seed is unreadable, embedding without it: %s", exc)
        else:
            seed = loaded if loaded.model == model else None
    _DEFAULT[model] = seed
    return seed
