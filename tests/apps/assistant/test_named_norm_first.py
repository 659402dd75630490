"""A question that names a norm the collection holds asks that norm: its passages come first
among the candidates, whatever another norm's passages share with the question's words."""

from __future__ import annotations

from pathlib import Path

import pytest

from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.config import EmbeddingsSettings
from colmeia.rag.index.embedders import default_embedder
from colmeia.rag.pipeline import ingest
from colmeia.store import open_store

DATA = Path(__file__).resolve().parents[3] / "data" / "laws"


@pytest.mark.default_embedder
async def test_the_norm_named_is_the_one_cited(tmp_path: Path) -> None:
    # the consumer code and the Constitution, searched as shipped (words + offline vectors)
    embedder = default_embedder(EmbeddingsSettings())
    store = open_store(f"sqlite:///{tmp_path / 'leis.db'}")
    sources = [DATA / "lexml" / "lei_8078_19900911.csv", DATA / "constituicao" / "lexml"]
    ingest(store, "leis", sources, embedder=embedder)
    try:
        result = await RagPipeline(store, "leis", embedder=embedder).run(
            "o tribunal pode multar os gestores, oq a constituicao fala"
        )
    finally:
        store.close()
    first = result["citations"][0]
    # Red when the norm named only weighs in the grade: a CDC passage on a "multa" (Art. 84)
    # lead; the courts of accounts' fines are the Constitution's Art. 71
    assert (first["law"], first["article"]) == ("CF/88", "71"), result["citations"]
