"""The vector side of a hybrid search for a keyword query: it is searched with both its
query-form and its passage-form vectors, and its vector moves toward the first fused passages
before the vectors are searched again (dense pseudo-relevance feedback); a question or a longer
description keeps the plain query form. Real SQLite stores in temp folders and
small table embedders whose vectors are written out, so each ranking can be checked by hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from colmeia.rag.retrieve import (
    DEFAULT_FEEDBACK_PASSAGES,
    DEFAULT_FEEDBACK_WEIGHT,
    KEYWORD_QUERY_WORDS,
    Retriever,
    is_keyword_query,
)
from colmeia.store import Store, StoredChunk, StoredDocument, open_store


def _unit(rows: Any) -> Any:
    arr = np.asarray(rows, np.float32)
    return arr / np.linalg.norm(arr, axis=-1, keepdims=True)


class Table:
    """Passage vectors from ``passages``; query vectors from ``queries`` when given (an
    asymmetric model such as E5), else the passage table (a symmetric one)."""

    name = "table-v1"
    dim = 4

    def __init__(self, passages: dict[str, list[float]]) -> None:
        self.passages = passages

    def embed(self, texts: Any) -> Any:
        return _unit([self.passages[t] for t in texts])


class AsymmetricTable(Table):
    def __init__(self, passages: dict[str, list[float]], queries: dict[str, list[float]]) -> None:
        super().__init__(passages)
        self.queries = queries

    def embed_query(self, texts: Any) -> Any:
        return _unit([self.queries[t] for t in texts])


def _store(folder: Path, embedder: Table, passages: dict[str, str]) -> Store:
    """One passage per document, ``doc_id: text``, with the embedder's vectors."""
    store = open_store(str(folder / "colmeia.db"))
    for doc_id, text in passages.items():
        store.replace_document(
            "c",
            StoredDocument(doc_id, "h", title=doc_id.upper()),
            [StoredChunk(f"{doc_id}#0", doc_id, 0, text, char_start=0, char_end=len(text))],
            vectors=embedder.embed([text]),
        )
    store.set_embedder("c", embedder.name, embedder.dim)
    return store


def _order(store: Store, embedder: Table, query: str, **kw: Any) -> list[str]:
    return [h.doc_id for h in Retriever(store, "c", embedder=embedder, **kw).search(query, 5)]


def test_a_keyword_query_is_also_searched_as_a_passage(tmp_path: Path) -> None:
    """The query shares no word with the passages, so the vectors alone rank them. Its
    query-form vector leans to "beta" (0.6 against 0), its passage-form vector is "alfa"'s:
    searched with both, "alfa" comes first; with the query form alone, "beta"."""
    passages = {"alfa": [1, 0, 0, 0], "beta": [0, 1, 0, 0], "gama": [0, 0, 1, 0]}
    embedder = AsymmetricTable(
        {**passages, "restos a pagar": [1, 0, 0, 0]},
        {"restos a pagar": [0, 0.6, 0, 0.8]},
    )
    store = _store(tmp_path, embedder, {k: k for k in passages})
    retriever = Retriever(store, "c", embedder=embedder, feedback_passages=0)

    expected = _unit(np.array([1, 0.6, 0, 0.8]))  # the unit mean of the two forms
    np.testing.assert_allclose(retriever.search_vector("restos a pagar"), expected, atol=1e-6)
    assert _order(store, embedder, "restos a pagar", feedback_passages=0)[0] == "alfa"
    only_query_form = _order(
        store, embedder, "restos a pagar", feedback_passages=0, both_query_forms=False
    )
    assert only_query_form[0] == "beta"
    store.close()


def test_a_symmetric_embedder_searches_with_its_one_vector(tmp_path: Path) -> None:
    """Without a query form both forms are the same vector: the search vector is it."""
    embedder = Table({"prazo": [1, 0, 0, 0], "outro": [0, 1, 0, 0]})
    store = _store(tmp_path, embedder, {"p": "prazo", "o": "outro"})
    vector = Retriever(store, "c", embedder=embedder).search_vector("prazo")
    np.testing.assert_allclose(vector, [1, 0, 0, 0], atol=1e-6)
    store.close()


def _feedback_store(folder: Path) -> tuple[Store, Table]:
    """Three passages share the query's words, "f1" most, "f3" least (one word); "f1" and "f2"
    sit on axis 0, "f3" on axis 2. "cartel" shares no word with the query but sits on axis 0
    too; "ferias" shares none and sits near axis 3. The query vector (0.6 on axis 0, 0.8 on
    axis 3) is a little nearer "ferias" (0.64) than "cartel" (0.6)."""
    texts = {
        "f1": "fraude em licitação e fraude na licitação",
        "f2": "fraude em licitação de obras",
        "f3": "licitação de serviços",
        "cartel": "cartel combinado entre concorrentes",
        "ferias": "férias de servidores",
    }
    vectors = {
        texts["f1"]: [1, 0, 0, 0],
        texts["f2"]: [1, 0, 0, 0],
        texts["f3"]: [0, 0, 1, 0],
        texts["cartel"]: [1, 0, 0, 0],
        texts["ferias"]: [0, 0.6, 0, 0.8],
        "fraude em licitação": [0.6, 0, 0, 0.8],
        "há fraude em licitação?": [0.6, 0, 0, 0.8],
        "casos de fraude em licitação de obras públicas": [0.6, 0, 0, 0.8],
    }
    embedder = Table(vectors)
    return _store(folder, embedder, texts), embedder


def test_dense_feedback_brings_up_a_passage_like_the_best_matches(tmp_path: Path) -> None:
    """The passages that match the words best come first either way. Then, with feedback, the
    query vector moves toward them (axis 0), so "cartel" — like them in meaning, no word in
    common — ranks above "ferias"; without feedback the raw query vector puts "ferias" first."""
    store, embedder = _feedback_store(tmp_path)
    query = "fraude em licitação"

    with_feedback = _order(store, embedder, query, feedback_passages=2)
    assert with_feedback == ["f1", "f2", "cartel", "ferias", "f3"]
    without = _order(store, embedder, query, feedback_passages=0)
    assert without == ["f1", "f2", "ferias", "cartel", "f3"]
    store.close()


def test_feedback_is_on_by_default_with_the_tuned_depth_and_weight(tmp_path: Path) -> None:
    """A plain ``Retriever`` uses feedback (15 passages, weight 0.5, chosen on JurisTCU's
    tuning half): the same order as asked for explicitly, not the order without it."""
    store, embedder = _feedback_store(tmp_path)
    assert (DEFAULT_FEEDBACK_PASSAGES, DEFAULT_FEEDBACK_WEIGHT) == (15, 0.5)
    default = _order(store, embedder, "fraude em licitação")
    assert default == ["f1", "f2", "cartel", "ferias", "f3"]
    assert default == _order(
        store, embedder, "fraude em licitação", feedback_passages=15, feedback_weight=0.5
    )
    store.close()


@pytest.mark.parametrize("weight", [0.0, -1.0])
def test_feedback_weight_zero_or_none_leaves_the_query_where_it_was(
    tmp_path: Path, weight: float
) -> None:
    """Weight 0 searches again with the same vector (the order without feedback); a negative
    count of passages is read as none."""
    store, embedder = _feedback_store(tmp_path)
    query = "fraude em licitação"
    without = _order(store, embedder, query, feedback_passages=0)
    if weight == 0.0:
        assert _order(store, embedder, query, feedback_weight=0.0) == without
    else:
        assert _order(store, embedder, query, feedback_passages=-1) == without
    store.close()


@pytest.mark.parametrize(
    ("query", "keyword"),
    [
        ("restos a pagar", True),
        ("decreto-lei 4.657/1942", True),  # decreto, lei, 4, 657, 1942: five words
        ("adesão a ata de registro", True),
        ("adesão a ata de registro de preços", False),  # seven words: a description
        ("o que é licitação?", False),  # a question, however short
    ],
)
def test_a_keyword_query_is_a_few_words_and_no_question(query: str, keyword: bool) -> None:
    assert KEYWORD_QUERY_WORDS == 5
    assert is_keyword_query(query) is keyword


@pytest.mark.parametrize(
    "query", ["há fraude em licitação?", "casos de fraude em licitação de obras públicas"]
)
def test_a_question_or_a_description_keeps_the_plain_query_vector(
    tmp_path: Path, query: str
) -> None:
    """The same vector as "fraude em licitação", but asked as a question or in seven words:
    no feedback, so "ferias" stays above "cartel" — the order of the plain search."""
    store, embedder = _feedback_store(tmp_path)
    default = _order(store, embedder, query)
    assert default[2:4] == ["ferias", "cartel"]
    plain = _order(store, embedder, query, feedback_passages=0, both_query_forms=False)
    assert default == plain
    store.close()


def test_keyword_query_words_sets_which_queries_get_the_stronger_vector_side(
    tmp_path: Path,
) -> None:
    """With the limit raised to 10 words, the seven-word description gets dense feedback."""
    store, embedder = _feedback_store(tmp_path)
    query = "casos de fraude em licitação de obras públicas"
    assert _order(store, embedder, query, keyword_query_words=10)[2:4] == ["cartel", "ferias"]
    store.close()
