"""An article named with a slip of the fingers ("artiog 49") is the article named: the law
answerer cites it first, as it does for "artigo 49"; a real word that looks like a citation
word ("antigo") is read as typed."""

from __future__ import annotations

import pytest

from colmeia.apps.assistant.citation_words import mend_citation_words
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.store import Store


@pytest.mark.parametrize(
    ("question", "law", "article"),
    [
        ("qual o teor do artiog 49 da Lei 8.078", "Lei 8.078/1990", "49"),
        ("me explica o atrigo 5 da lei 13.709", "Lei 13.709/2018", "5"),
        ("qual o teor do arrtigo 59 da lei 9.784?", "Lei 9.784/1999", "59"),
    ],
)
async def test_an_article_typed_with_a_slip_is_the_article_cited_first(
    laws_store: Store, question: str, law: str, article: str
) -> None:
    # Red without the mending: the exact lookup never saw an article, other articles came first.
    result = await RagPipeline(laws_store, "leis").run(question)
    first = result["citations"][0]
    assert (first["law"], str(first["article"]).rstrip("º°")) == (law, article)


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("o incisso iv do art. 5", "o inciso iv do art. 5"),
        ("o paragarfo 2 do artigo 18", "o paragrafo 2 do artigo 18"),
        # a real word, and a citation word not before a number, stay as typed
        ("um antigo 5 anos atras", "um antigo 5 anos atras"),
        ("o artiog que fala de prazo", "o artiog que fala de prazo"),
        # a roman numeral only follows "inciso"
        ("o artista iv", "o artista iv"),
    ],
)
def test_only_a_citation_word_before_its_number_is_mended(typed: str, read: str) -> None:
    assert mend_citation_words(typed) == read
