"""Function words with accents ("não", "até", "à", "está", "também") are stopwords whether a user
types them with accents, without, or in capitals: they never become search terms, so they
neither rank a passage nor make a query of nothing but them look searchable."""

from __future__ import annotations

import pytest

from colmeia.rag.index.lexical import Analyzer, LexicalIndex

ACCENTED = ["não", "até", "à", "às", "está", "estão", "também", "já", "só", "há", "você", "nós"]

PASSAGES = [
    "O prazo de garantia do produto não se confunde com o prazo de reclamação.",
    "A loja também está obrigada à troca até o fim do prazo, já que há defeito.",
    "Você só pode desistir da compra em sete dias.",
]


@pytest.mark.parametrize("word", ACCENTED)
def test_an_accented_function_word_is_no_term_however_it_is_typed(word: str) -> None:
    analyzer = Analyzer()
    assert analyzer.tokens(word) == []
    assert analyzer.tokens(word.upper()) == []
    assert analyzer.tokens(word.translate(str.maketrans("ãáàéêíóôúç", "aaaeeioouc"))) == []


def test_a_query_of_function_words_alone_has_nothing_to_search_for() -> None:
    index = LexicalIndex.build(PASSAGES)
    assert not index.has_terms("Não é até à, já está também")
    assert not index.scores("NÃO ATÉ ESTÁ TAMBÉM").any()


def test_function_words_in_a_query_do_not_change_which_passage_ranks_first() -> None:
    index = LexicalIndex.build(PASSAGES)
    plain = index.scores("troca defeito")
    with_function_words = index.scores("a troca até já há defeito também, não?")
    assert with_function_words.tolist() == plain.tolist()
    assert int(with_function_words.argmax()) == 1


def test_content_words_with_accents_stay_terms() -> None:
    # the same folding must not turn content words into stopwords
    tokens = Analyzer().tokens("reclamação GARANTIA Você desistência")
    assert len(tokens) == 3
    assert Analyzer().tokens("reclamacao garantia desistencia") == tokens
