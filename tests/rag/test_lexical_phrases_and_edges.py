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


def test_a_phrase_split_between_two_passages_is_no_phrase() -> None:
    # "licitação" ends the first passage and "contrato" starts the second
    passages = ["o prazo da licitação", "contrato assinado hoje", "licitação e contrato"]
    with_bigrams = LexicalIndex.build(passages, WITH_BIGRAMS)
    plain = LexicalIndex.build(passages, LexicalConfig())
    for query in ("licitação contrato", "hoje licitação"):
        # the third passage keeps "licitação (e) contrato" together: it alone gains
        got, want = with_bigrams.scores(query), plain.scores(query)
        assert list(got[:2]) == pytest.approx(list(want[:2]))
    assert with_bigrams.scores("licitação contrato")[2] > plain.scores("licitação contrato")[2]


def test_a_collection_of_one_two_word_passage_still_scores_its_phrase() -> None:
    with_bigrams = LexicalIndex.build(["licitação contrato"], WITH_BIGRAMS)
    plain = LexicalIndex.build(["licitação contrato"], LexicalConfig())
    assert (
        _ranking(with_bigrams, "licitação contrato")[0][1]
        > _ranking(plain, "licitação contrato")[0][1]
    )


def test_an_index_built_in_blocks_is_the_index_built_at_once() -> None:
    passages = [f"Art. {i}º O prazo de {i} dias para o contrato nº {i % 3}." for i in range(11)]
    queries = ["prazo do contrato", "contrato 2", "art 7", "dias para o contrato"]
    for config in (LexicalConfig(), WITH_BIGRAMS):
        whole = LexicalIndex.build(passages, config)
        blocks = LexicalIndex.build(passages, config, block_size=3)
        assert [_ranking(blocks, q) for q in queries] == [_ranking(whole, q) for q in queries]


def test_an_empty_collection_builds_an_index_that_finds_nothing() -> None:
    for config in (LexicalConfig(), WITH_BIGRAMS):
        index = LexicalIndex.build([], config)
        assert index.num_docs == 0 and _ranking(index, "prazo") == []


def test_without_stemming_a_plural_is_another_word() -> None:
    passages = ["os contratos firmados", "o contrato firmado"]
    stemmed = LexicalIndex.build(passages)
    assert {p for p, _ in _ranking(stemmed, "contratos")} == {0, 1}
    exact = LexicalIndex.build(passages, LexicalConfig(stem=False))
    assert [p for p, _ in _ranking(exact, "contratos")] == [0]
    assert [p for p, _ in _ranking(exact, "contrato")] == [1]


def test_a_word_written_seventy_thousand_times_in_a_passage_still_finds_it() -> None:
    # a generated table or a log pasted whole: the count is capped, never wrapped to zero
    index = LexicalIndex.build(["tabela " * 70_000, "outro texto sem ela"])
    assert [p for p, _ in _ranking(index, "tabela")] == [0]


def test_scores_are_lucenes_bm25_and_a_repeated_query_word_counts_twice() -> None:
    import math

    passages = ["prazo de recurso", "prazo prazo e mais prazo para contestar", "outro assunto"]
    index = LexicalIndex.build(passages)  # k1 1.2, b 0.75, Lucene's variant
    lengths = [len(index.analyzer.tokens(p)) for p in passages]
    avg = sum(lengths) / len(lengths)
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))

    def bm25(tf: int, length: int) -> float:
        return idf * tf / (tf + 1.2 * (1 - 0.75 + 0.75 * length / avg))

    scores = index.scores("prazo")
    assert scores[0] == pytest.approx(bm25(1, lengths[0]), rel=1e-5)
    assert scores[1] == pytest.approx(bm25(3, lengths[1]), rel=1e-5)
    assert scores[2] == 0
    assert index.scores("prazo prazo") == pytest.approx(2 * scores, rel=1e-5)


def test_a_collection_of_one_word_is_found_by_it() -> None:
    index = LexicalIndex.build(["prazo"])
    assert [p for p, _ in _ranking(index, "prazo")] == [0]


def test_a_two_word_query_over_one_word_passages_answers_with_bigrams_on() -> None:
    # no passage holds two words: the bigram postings are empty, and searching them finds none
    index = LexicalIndex.build(["prazo", "contrato", "recurso"], WITH_BIGRAMS)
    assert {p for p, _ in _ranking(index, "prazo contrato")} == {0, 1}


@pytest.mark.parametrize(
    ("plural", "singular"), [("leões", "leão"), ("limões", "limão"), ("licitações", "licitação")]
)
def test_a_nasal_plural_finds_its_singular_and_the_other_way_round(
    plural: str, singular: str
) -> None:
    index = LexicalIndex.build([f"o {singular} citado", "outro texto", f"os {plural} citados"])
    assert {p for p, _ in _ranking(index, plural)} == {0, 2}
    assert {p for p, _ in _ranking(index, singular)} == {0, 2}


def test_a_short_plural_is_not_folded_into_another_word() -> None:
    # "mães" (mothers) is not a plural of "mão" (hand): only longer -ões/-ães words are mapped
    index = LexicalIndex.build(["a mão direita", "as mães presentes"])
    assert [p for p, _ in _ranking(index, "mães")] == [1]
    assert [p for p, _ in _ranking(index, "mão")] == [0]
