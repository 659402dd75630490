"""Lay questions and the vector space's hubs: a passage near every question gives way to the
one near this question; a reformulated query adds candidates to the question's own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from assistant_helpers import LAWS

from colmeia.apps.assistant.hubness import hubness
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.config import EmbeddingsSettings
from colmeia.rag.index.embedders import default_embedder, normalize
from colmeia.rag.pipeline import ingest
from colmeia.sim.engine import hashed_embedding
from colmeia.store import Store, open_store


class _Words:
    """A real embedder: hashed bag of words (texts sharing words lie near each other)."""

    name = "words-64"

    def embed(self, texts: Any) -> npt.NDArray[np.float32]:
        return normalize(np.asarray([hashed_embedding(t, 64) for t in texts], np.float32))


def test_the_passage_sharing_words_with_every_other_is_the_hub(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    topics = ["tarifa ônibus", "prazo recurso", "dados saúde", "multa atraso", "garantia obra"]
    for i, topic in enumerate(topics):
        (folder / f"{i}.txt").write_text(f"{topic} {topic} {topic}", encoding="utf-8")
        (folder / f"{i}b.txt").write_text(f"{topic} regra própria", encoding="utf-8")
    (folder / "hub.txt").write_text(" ".join(topics), encoding="utf-8")
    store = open_store(f"sqlite:///{tmp_path / 'h.db'}")
    try:
        ingest(store, "docs", [folder], embedder=_Words())
        ingest(store, "plain", [folder])  # no vectors: nothing to correct
        hubs = hubness(store, "docs")
        by_file = {
            Path(d.path).name: hubs[c.chunk_id]
            for d in store.documents("docs")
            for c in store.chunks("docs")
            if c.doc_id == d.doc_id
        }
        assert max(by_file, key=lambda name: by_file[name]) == "hub.txt"
        assert hubness(store, "plain") == {}
    finally:
        store.close()


async def test_a_retry_adds_candidates_to_the_questions_own(laws_store: Store) -> None:
    # The rule rewrite keeps the question's content words only; its list must not push out
    # what the question found. Red when a retry's hits replace the earlier ones: the
    # question's first passages are gone from the candidates.
    rag = RagPipeline(laws_store, "leis")
    question = "Comprei um produto pela internet, posso desistir da compra e devolver?"
    state: dict[str, Any] = {"question": question}
    state.update(await rag.analyze(state))  # type: ignore[arg-type]
    state.update(await rag.retrieve(state))  # type: ignore[arg-type]
    found = [h.chunk_id for h in state["hits"][:5]]
    state["query"] = "multa tarifa concessionária"  # a retry's words, nothing of the question's
    state.update(await rag.retrieve(state))  # type: ignore[arg-type]
    assert set(found) <= {h.chunk_id for h in state["hits"]}


@pytest.mark.slow  # embeds Lei 8.987 and Lei 14.129 (~60 s of CPU on a cold vector cache)
@pytest.mark.default_embedder
@pytest.mark.parametrize(
    ("law", "question", "article"),
    [
        # Red with the raw cosine (_HUB_FACTOR = 0): Art. 9 (the tarifa's rules, long) first.
        (
            "lei_8987_19950213.csv",
            "A tarifa pode ser diferente para tipos diferentes de usuários?",
            "13",
        ),
        # Red with the raw cosine: Art. 54 (another law's wording) first.
        (
            "lei_14129_20210329.csv",
            "Meu CPF basta para me identificar nos serviços públicos?",
            "28",
        ),
    ],
)
async def test_a_lay_question_reaches_the_article_near_it_not_a_hub(
    tmp_path: Path, law: str, question: str, article: str
) -> None:
    embedder = default_embedder(EmbeddingsSettings())
    store = open_store(f"sqlite:///{tmp_path / 'lei.db'}")
    ingest(store, "leis", [LAWS / law], embedder=embedder)
    try:
        result = await RagPipeline(store, "leis", embedder=embedder).run(question)
    finally:
        store.close()
    assert result["citations"][0]["article"] == article
