"""The law's words that share a sense with a lay question's (OpenWordNet-PT synsets, shipped):
"empréstimo" searches "crédito", "anúncio" "publicidade" — only words the collection uses, in a
list of their own fused beside the question's."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.rag_state import RagConfig
from colmeia.apps.assistant.relations import content_terms
from colmeia.apps.assistant.synonyms import Synonyms
from colmeia.rag.expansion import ENV as EXPANSION_ENV
from colmeia.rag.pipeline import ingest
from colmeia.store import Store, open_store

LAWS = Path(__file__).resolve().parents[3] / "data" / "laws" / "lexml"
LAW_WORDS = set(content_terms("publicidade crédito fornecedor cumprimento"))


@pytest.fixture(scope="module")
def laws(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = open_store(str(tmp_path_factory.mktemp("synonyms") / "laws.db"))
    ingest(store, "docs", [LAWS])
    return store


def test_a_lay_word_brings_the_law_word_sharing_its_sense() -> None:
    synonyms = Synonyms.shipped()
    assert "publicidade" in synonyms.related("cumprir o que prometeu no anúncio?", LAW_WORDS)
    assert synonyms.related("antes de um empréstimo", LAW_WORDS) == ["crédito"]


def test_words_the_collection_lacks_or_the_question_has_add_nothing() -> None:
    synonyms = Synonyms.shipped()
    assert synonyms.related("o que prometeu no anúncio?", set()) == []
    assert synonyms.related("antes de um empréstimo", set(content_terms("banco"))) == []
    # the question already says the law's word
    assert synonyms.related("o crédito de um empréstimo", LAW_WORDS) == []
    # a word the collection uses in many passages is not expanded ("fornecedor": 96 of them)
    vocabulary = {t: 1 for t in content_terms("comerciante")} | {content_terms("fornecedor")[0]: 96}
    assert synonyms.related("o fornecedor", vocabulary) == ["comerciante"]
    assert synonyms.related("o fornecedor", vocabulary, rare=20) == []


def _hits(store: Store, question: str, *, weight: float) -> list[str]:
    async def run() -> list[str]:
        config = RagConfig(synonym_weight=weight, synonym_max_df=20)
        rag = RagPipeline(store, "docs", None, config=config)
        state: dict[str, Any] = {"question": question}
        state.update(await rag.analyze(state))  # type: ignore[arg-type]
        state.update(await rag.retrieve(state))  # type: ignore[arg-type]
        return [h.citation.path for h in state["hits"]]

    return asyncio.run(run())


def test_the_synonym_finds_the_article_the_lay_word_misses(
    laws: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # CDC Art. 52: "No fornecimento de produtos ou serviços que envolva outorga de crédito…, o
    # fornecedor deverá… informá-lo prévia e adequadamente" — the question says "empréstimo".
    # The lay questions shipped for the articles find it by themselves: off, to see the
    # synonyms' part.
    monkeypatch.setenv(EXPANSION_ENV, "off")
    question = "Que informação o banco tem que me dar antes de um empréstimo?"
    article = "Lei 8.078/1990, Art. 52"
    assert not any(p.startswith(article) for p in _hits(laws, question, weight=0.0))
    assert any(p.startswith(article) for p in _hits(laws, question, weight=0.3))


def test_the_questions_own_list_still_leads(laws: Store) -> None:
    # the synonyms' list is fused at a low weight: the question's own first passage stays first
    question = "O recurso pode piorar minha situação?"
    assert _hits(laws, question, weight=0.3)[0] == _hits(laws, question, weight=0.0)[0]
