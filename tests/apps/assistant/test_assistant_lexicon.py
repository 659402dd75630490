"""The law's noun for a question's verb (NomLex-PT, shipped): "pode intervir" searches
"intervenção", "desistir" "desistência" — only nouns the collection uses, only from words read
as verbs ("a conta" is not "contar", "lei" is not "ler")."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from colmeia.apps.assistant.lexicon import Nominalizations
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.rag_state import RagConfig
from colmeia.apps.assistant.relations import content_terms
from colmeia.rag.expansion import ENV as EXPANSION_ENV
from colmeia.rag.pipeline import ingest
from colmeia.store import Store, open_store

LAWS = Path(__file__).resolve().parents[3] / "data" / "laws" / "lexml"
LAW_WORDS = set(content_terms("intervenção desistência cobrança contagem leitura governança"))


@pytest.fixture(scope="module")
def laws(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = open_store(str(tmp_path_factory.mktemp("lexicon") / "laws.db"))
    ingest(store, "docs", [LAWS])
    return store


def test_a_verb_brings_the_noun_the_law_uses() -> None:
    lexicon = Nominalizations.shipped()
    assert "intervenção" in lexicon.related("O governo pode intervir na empresa?", LAW_WORDS)
    assert lexicon.related("posso desistir da compra?", LAW_WORDS) == ["desistência"]
    assert lexicon.related("a empresa cobrou duas vezes", LAW_WORDS) == ["cobrança"]


def test_nouns_light_verbs_and_unused_words_bring_nothing() -> None:
    lexicon = Nominalizations.shipped()
    # nouns that share a verb's stem, a short verb's forms, a light verb, a noun the law lacks
    assert lexicon.related("a conta do governo segundo a lei", LAW_WORDS) == []
    assert lexicon.related("o que devo fazer para ver?", LAW_WORDS) == []
    assert lexicon.related("posso intervir?", set()) == []
    # a question already using the noun gets nothing more
    assert lexicon.related("a intervenção: posso intervir?", LAW_WORDS) == []


def _rank(store: Store, question: str, article: str, *, lexicon: bool) -> int:
    async def run() -> int:
        rag = RagPipeline(store, "docs", None, config=RagConfig(nominalizations=lexicon))
        state: dict[str, Any] = {"question": question}
        state.update(await rag.analyze(state))  # type: ignore[arg-type]
        state.update(await rag.retrieve(state))  # type: ignore[arg-type]
        paths = [h.citation.path for h in state["hits"]]
        return next((i for i, p in enumerate(paths) if p.startswith(article)), len(paths))

    return asyncio.run(run())


def test_the_laws_noun_finds_the_article_the_verb_alone_misses(
    laws: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # CDC Art. 42: "Na cobrança de débitos, o consumidor inadimplente não será exposto a
    # ridículo…" — the question says "cobrar", the law "cobrança". The lay questions shipped
    # for the articles (colmeia.rag.expansion) find it by themselves: off, to see the noun's.
    monkeypatch.setenv(EXPANSION_ENV, "off")
    question = "A empresa pode me cobrar expondo meu nome na frente dos vizinhos?"
    with_lexicon = _rank(laws, question, "Lei 8.078/1990, Art. 42", lexicon=True)
    without = _rank(laws, question, "Lei 8.078/1990, Art. 42", lexicon=False)
    assert with_lexicon < 10 < without
