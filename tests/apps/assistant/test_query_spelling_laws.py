"""On the shipped laws: a law question typed with a slip reaches the article the word meant
reaches (the search and the word list as they ship; no model)."""

from __future__ import annotations

from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.store import Store


async def test_a_question_with_a_slip_reaches_the_article_the_right_word_reaches(
    laws_store: Store,
) -> None:
    pipeline = RagPipeline(laws_store, "leis")
    typed = await pipeline.run("qual o prazo para interpor recuros administrativo?")
    right = await pipeline.run("qual o prazo para interpor recurso administrativo?")
    assert typed["citations"][0]["label"] == right["citations"][0]["label"]
    assert right["citations"][0]["article"] == "59"
