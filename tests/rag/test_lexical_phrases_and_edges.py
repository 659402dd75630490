"""The lexical index at its edges, as a search shows them: the collection's first and last words
count like any other (in phrases too), a word the collection lacks adds nothing to a phrase, a
query in any word order over the collection's words answers, ten passages unless asked, and a
saved index is read from disk as a memory map under the same folder name as before."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from colmeia.rag.index.lexical import LexicalConfig, LexicalIndex

# The same three words in each passage, in another order: unigram scores are equal, so only a
# phrase (a bigram) the query keeps together can put one passage first. "licitação" is the
# first word the index learns (term 0), "prazo" the last.
PHRASES = [
    "licitação contrato prazo",  # 0: "contrato prazo" together
    "contrato licitação prazo",  # 1: "licitação prazo" together
    "prazo licitação contrato",  # 2: "prazo licitação" together
]
WITH_BIGRAMS = LexicalConfig(bigram_weight=0.5)


def _ranking(index: LexicalIndex, query: str) -> list[tuple[int, float]]:
    positions, scores = index.search(query, 5)
    return [(int(p), round(float(s), 5)) for p, s in zip(positions, scores, strict=True)]


@pytest.mark.parametrize(
    ("query", "first"),
    [("licitação prazo", 1), ("prazo licitação", 2), ("contrato prazo", 0)],
)
def test_the_passage_that_keeps_the_querys_phrase_ranks_first(query: str, first: int) -> None:
    index = LexicalIndex.build(PHRASES, WITH_BIGRAMS)
    ranking = _ranking(index, query)
    assert ranking[0][0] == first
    assert ranking[0][1] > ranking[1][1] == ranking[2][1]  # the others tie on the words alone


def test_without_bigrams_the_word_order_changes_nothing() -> None:
    index = LexicalIndex.build(PHRASES, LexicalConfig())
    scores = {s for _, s in _ranking(index, "licitação prazo")}
    assert len(scores) == 1


def test_a_word_the_collection_lacks_adds_no_phrase_to_the_query() -> None:
    index = LexicalIndex.build(PHRASES, WITH_BIGRAMS)
    # "desconhecida" is in no passage: beside a word it makes no phrase with anything
    for word in ("licitação", "contrato", "prazo"):
        assert _ranking(index, f"desconhecida {word}") == _ranking(index, word)
        assert _ranking(index, f"{word} desconhecida") == _ranking(index, word)


def test_the_last_word_the_index_learned_is_found() -> None:
    index = LexicalIndex.build(["alfa beta", "gama delta", "épsilon ômega"], LexicalConfig())
    assert [p for p, _ in _ranking(index, "ômega")] == [2]
    assert [p for p, _ in _ranking(index, "alfa")] == [0]


def test_every_order_of_the_collections_words_is_a_query_that_answers() -> None:
    passages = [
        "O consumidor pode desistir do contrato no prazo de sete dias.",
        "O prazo de garantia legal é de noventa dias para produtos duráveis.",
        "A licitação segue a Lei 14.133 de 2021 e seus prazos.",
        "Contrato de prestação de serviços públicos e o prazo de vigência.",
    ]
    index = LexicalIndex.build(passages, WITH_BIGRAMS)
    words = sorted({w for p in passages for w in index.analyzer.words(p)})
    plain = LexicalIndex.build(passages, LexicalConfig())
    for a, b in itertools.permutations(words, 2):
        found = {p for p, _ in _ranking(index, f"{a} {b}")}
        # phrases reorder what the words find; they never find another passage
        assert found == {p for p, _ in _ranking(plain, f"{a} {b}")}


def test_a_search_gives_ten_passages_unless_asked_for_another_number() -> None:
    passages = [f"Art. {i} O prazo de recurso é contado em dias." for i in range(1, 15)]
    index = LexicalIndex.build(passages)
    assert len(index.search("prazo de recurso")[0]) == 10
    assert len(index.search("prazo de recurso", 12)[0]) == 12


def test_a_query_with_a_word_has_something_to_search_for() -> None:
    index = LexicalIndex.build(PHRASES)
    assert index.has_terms("qual o prazo?") is True
    assert index.has_terms("qual o") is False


def test_a_saved_index_is_read_as_a_memory_map(tmp_path: Path) -> None:
    # a million-passage index is read on demand by the pages a query touches, not copied in
    LexicalIndex.build(PHRASES, WITH_BIGRAMS).save(tmp_path / "lexical")
    loaded = LexicalIndex.load(tmp_path / "lexical")
    assert loaded is not None and loaded.bigrams is not None
    for postings in (loaded.unigrams, loaded.bigrams):
        assert isinstance(postings.data, np.memmap) and isinstance(postings.indices, np.memmap)


def test_the_default_configuration_names_the_same_index_folder_as_before() -> None:
    # the folder of a collection's index is named from this key: another spelling of the same
    # settings would rebuild every collection's index after an upgrade
    assert LexicalConfig().key() == (
        '{"b": 0.75, "bigram_weight": 0.0, "delta": 0.5, "k1": 1.2, "method": "lucene", '
        '"stem": true, "stopwords": true}'
    )
