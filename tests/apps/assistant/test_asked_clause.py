"""A message that tells a situation and then asks: the law is ranked by its nearness to the
whole message and to the question asked, alike — the story told ("pedi… e negaram") must not
drown what is asked ("quantos dias eu tenho para recorrer?")."""

from __future__ import annotations

from pathlib import Path

import pytest
from assistant_helpers import LAWS

from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.rag_query import asked_clause
from colmeia.config import EmbeddingsSettings
from colmeia.rag.index.embedders import default_embedder
from colmeia.rag.pipeline import ingest
from colmeia.store import open_store


def test_the_question_asked_is_the_last_sentence_after_a_situation_told() -> None:
    told = "Fiz um pedido à prefeitura e ela negou. Quantos dias eu tenho para recorrer?"
    assert asked_clause(told) == "Quantos dias eu tenho para recorrer?"
    # one sentence: nothing told apart from what is asked
    assert asked_clause("quantos dias tenho para recorrer de uma negativa?") == ""
    # a last sentence that asks nothing ("Obrigado.") is no question
    assert asked_clause("Quantos dias tenho para recorrer? Obrigado.") == ""


@pytest.mark.slow  # the nine laws with their vectors (which ship in the vector seed)
@pytest.mark.default_embedder
async def test_a_deadline_asked_after_a_story_reaches_the_article_that_sets_it(
    tmp_path: Path,
) -> None:
    # Red with the whole message alone: Art. 11 § 1º (the 20 days the body has to answer)
    # first, nearer the story of a request made; the appeal's ten days are Art. 15's
    question = (
        "Fiz um pedido de informação à prefeitura sobre as obras da praça e ela negou. "
        "Quantos dias eu tenho para recorrer?"
    )
    embedder = default_embedder(EmbeddingsSettings())
    store = open_store(f"sqlite:///{tmp_path / 'lei.db'}")
    ingest(store, "leis", [LAWS], embedder=embedder)
    try:
        result = await RagPipeline(store, "leis", embedder=embedder).run(question)
    finally:
        store.close()
    assert result["citations"][0]["article"] == "15"
