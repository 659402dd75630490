"""The vector seed: the shipped corpora's vectors come with colmeia, keyed by model and text,
checked against the live model before use, ignored when they came from another model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from colmeia.apps.literature import import_library
from colmeia.rag.index.embedders import OFFLINE_E5_NAME, OfflineE5Embedder
from colmeia.rag.index.vector_cache import CachedEmbedder, cache_key
from colmeia.rag.index.vector_seed import VectorSeed, default_seed, quantize, write_seed
from colmeia.store import open_store
from shared_data import DATA_DIR

PASSAGES = [
    "O consumidor pode desistir do contrato no prazo de 7 dias a contar do recebimento do "
    "produto, sempre que a contratação ocorrer fora do estabelecimento comercial.",
    "A licitação destina-se a garantir a seleção da proposta mais vantajosa para a "
    "administração pública.",
]
PROBE = "Uma frase de prova para o modelo."


@pytest.fixture(scope="module")
def model() -> OfflineE5Embedder:
    return OfflineE5Embedder()


def _seed(tmp_path: Path, model: OfflineE5Embedder, probe_vector: np.ndarray) -> VectorSeed:
    keys = [cache_key(OFFLINE_E5_NAME, "passage", t) for t in PASSAGES]
    write_seed(
        tmp_path / "seed.npz",
        tmp_path / "seed.json",
        model=OFFLINE_E5_NAME,
        hex_keys=keys,
        vectors=model.embed(PASSAGES),
        probe_text=PROBE,
        probe_vector=probe_vector,
        built={"by": "test"},
    )
    return VectorSeed.load(tmp_path / "seed.npz", tmp_path / "seed.json")


def test_int8_storage_keeps_the_vectors_direction(model: OfflineE5Embedder) -> None:
    vectors = model.embed(PASSAGES)
    codes, scales = quantize(vectors)
    back = codes.astype(np.float32) * scales[:, None]
    back /= np.linalg.norm(back, axis=1, keepdims=True)
    assert codes.dtype == np.int8
    assert float(np.min(np.sum(back * vectors, axis=1))) > 0.9999


def test_seeded_texts_are_not_embedded_again(tmp_path: Path, model: OfflineE5Embedder) -> None:
    seed = _seed(tmp_path, model, model.embed([PROBE])[0])
    cached = CachedEmbedder(OFFLINE_E5_NAME, lambda: model, tmp_path / "v.sqlite", seed=seed)
    got = cached.embed([*PASSAGES, "Um texto que a semente não tem."])
    assert (cached.seeded, cached.misses) == (2, 1)
    assert seed.state == "ok"
    # the shipped vectors are the model's, to int8 precision
    assert float(np.min(np.sum(got[:2] * model.embed(PASSAGES), axis=1))) > 0.9999


def test_a_seed_from_another_model_is_ignored(tmp_path: Path, model: OfflineE5Embedder) -> None:
    # Built by "another model": its probe vector is not what the model here gives.
    seed = _seed(tmp_path, model, model.embed_query([PROBE])[0])
    cached = CachedEmbedder(OFFLINE_E5_NAME, lambda: model, tmp_path / "v.sqlite", seed=seed)
    got = cached.embed(PASSAGES)
    assert seed.state == "rejected"
    assert (cached.seeded, cached.misses) == (0, 2)
    assert np.allclose(got, model.embed(PASSAGES), atol=1e-6)


@pytest.mark.default_embedder
def test_the_shipped_catalogue_imports_from_the_shipped_seed(tmp_path: Path) -> None:
    seed = default_seed(OFFLINE_E5_NAME)
    assert seed is not None and seed.manifest["built"]["commands"]
    embedder = CachedEmbedder(OFFLINE_E5_NAME, OfflineE5Embedder, tmp_path / "v.sqlite", seed=seed)
    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    report = import_library(
        store, "teses", [DATA_DIR / "theses" / "capes_resumos.csv"], embedder=embedder
    )
    store.close()
    assert report.records == 171
    # every passage of every record came from the seed: the model embedded only the probe
    assert embedder.misses == 0
    assert embedder.seeded >= 171
