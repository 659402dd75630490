"""The parts of retrieval a reader of the results sees: citations and their page numbers, the
result records, query refusals, fusion of the lexical and vector lists, overlapping passages,
and the index cache kept beside the store (real SQLite stores in temp folders).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from colmeia.errors import ConfigurationError, QueryError
from colmeia.rag.retrieve import (
    Citation,
    Filters,
    Hit,
    Retriever,
    document_program,
    group_by_document,
    index_text,
    rrf_fuse,
    score_fuse,
    validate_query,
)
from colmeia.store import Store, StoredChunk, StoredDocument, open_store

# -- citations -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("citation", "pages"),
    [
        (Citation("Lei", 1, "Art. 1º"), ""),  # one-page text: no page to cite
        (Citation("Lei", 0, "Art. 1º"), ""),
        (Citation("Lei", 1, "Art. 1º", page_end=1), ""),
        (Citation("Lei", 2, "Art. 1º"), "2"),
        (Citation("Lei", 1, "", page_end=2), "1-2"),
        (Citation("Lei", 7, "", page_end=8), "7-8"),
        (Citation("Lei", 7, "", page_end=7), "7"),
        (Citation("Lei", 7, "", page_end=3), "7"),
        (Citation("Tese", 17, "", page_end=18, page_label="1"), "1"),
        (Citation("Tese", 17, "", page_end=18, page_label="1", page_label_end="2"), "1-2"),
        (Citation("Tese", 17, "", page_label="iv", page_label_end="iv"), "iv"),
    ],
)
def test_a_citation_gives_printed_page_numbers_when_known(citation: Citation, pages: str) -> None:
    assert citation.pages() == pages


@pytest.mark.parametrize(
    ("citation", "label"),
    [
        (Citation("Lei 8.078/1990", 3, "Art. 43, § 1º"), "Lei 8.078/1990, Art. 43, § 1º (p. 3)"),
        (Citation("Lei 8.078/1990", 1, "Lei 8.078/1990 > Art. 43"), "Lei 8.078/1990 > Art. 43"),
        (Citation("Lei 8.078/1990", 1, ""), "Lei 8.078/1990"),
        (Citation("", 4, "Art. 2º"), "Art. 2º (p. 4)"),
        (Citation("Tese", 17, "Cap. 1", page_label="1"), "Tese, Cap. 1 (p. 1)"),
    ],
)
def test_a_citation_label_names_the_document_the_passage_and_the_page(
    citation: Citation, label: str
) -> None:
    assert citation.label() == label


def test_a_citation_of_a_stored_passage_and_its_record() -> None:
    chunk = StoredChunk(
        "tese#4",
        "tese",
        4,
        "texto",
        page_start=17,
        page_end=18,
        path="Cap. 1",
        metadata={"page_label": 1, "page_label_end": 2},
        title="Acesso à justiça",
        source_path="teses/acesso.pdf",
    )
    citation = Citation.of_chunk(chunk)
    assert citation == Citation("Acesso à justiça", 17, "Cap. 1", "teses/acesso.pdf", 18, "1", "2")
    assert citation.as_dict() == {
        "document": "Acesso à justiça",
        "page": 17,
        "page_end": 18,
        "page_label": "1",
        "page_label_end": "2",
        "path": "Cap. 1",
        "source": "teses/acesso.pdf",
        "label": "Acesso à justiça, Cap. 1 (p. 1-2)",
    }
    untitled = Citation.of_chunk(StoredChunk("d#0", "d", 0, "t", page_start=3, page_end=0))
    assert untitled.document == "d"
    assert untitled.as_dict()["page_end"] == 3  # one page: ends where it starts
    assert untitled.as_dict()["page_label_end"] == ""
    assert Citation("T", 1, "", page_label="v").as_dict()["page_label_end"] == "v"


def test_a_hits_record_has_everything_a_client_shows() -> None:
    hit = Hit(
        "lei#2",
        "lei",
        1.23456789,
        "O prazo é de dez dias.",
        Citation("Lei", 1, "Art. 2º"),
        collection="normas",
        rank=1,
        lexical_rank=1,
        dense_rank=None,
        heading="Dos prazos",
        doc_type="lei",
        year=2019,
    )
    assert hit.as_dict() == {
        "rank": 1,
        "doc_id": "lei",
        "chunk_id": "lei#2",
        "collection": "normas",
        "score": 1.234568,
        "text": "O prazo é de dez dias.",
        "heading": "Dos prazos",
        "doc_type": "lei",
        "year": 2019,
        "lexical_rank": 1,
        "dense_rank": None,
        "citation": Citation("Lei", 1, "Art. 2º").as_dict(),
    }


def test_hits_are_grouped_per_document_in_the_order_of_their_best_hit() -> None:
    def hit(chunk: str, doc: str, score: float) -> Hit:
        return Hit(chunk, doc, score, "", Citation(doc.upper(), 1, ""))

    hits = [hit("b#1", "b", 3.0), hit("a#0", "a", 2.0), hit("b#0", "b", 1.5), hit("a#1", "a", 1)]
    groups = group_by_document(hits)
    assert [(g.doc_id, g.score, g.title) for g in groups] == [("b", 3.0, "B"), ("a", 2.0, "A")]
    assert [[h.chunk_id for h in g.hits] for g in groups] == [["b#1", "b#0"], ["a#0", "a#1"]]


# -- queries and filters ------------------------------------------------------------------------


def test_a_query_is_stripped_and_refused_with_a_message_saying_why() -> None:
    assert validate_query("  prazo de recurso \n") == "prazo de recurso"
    assert validate_query("x" * 10_000) == "x" * 10_000
    assert validate_query("7") == "7"
    with pytest.raises(QueryError) as err:
        validate_query("  ")
    assert str(err.value) == "the query is empty: type some words to search for"
    with pytest.raises(QueryError) as err:
        validate_query(" " + "x" * 10_001)
    assert str(err.value) == (
        "the query has 10,001 characters; the limit is 10,000. "
        "Search with the key sentence or a few keywords instead"
    )
    with pytest.raises(QueryError) as err:
        validate_query("?! " * 30)
    assert str(err.value) == (
        f"the query {('?! ' * 30).strip()[:40]!r} has no letters or digits: nothing to search for"
    )
    with pytest.raises(QueryError) as err:
        validate_query(None)  # type: ignore[arg-type]
    assert str(err.value) == "the query must be text"


@pytest.mark.parametrize(
    "filters",
    [
        Filters(doc_type="lei"),
        Filters(year=2020),
        Filters(year_from=2020),
        Filters(year_to=2020),
        Filters(program="direito"),
        Filters(year=0),
    ],
)
def test_any_one_filter_makes_the_filters_active(filters: Filters) -> None:
    assert filters.active()
    assert not Filters().active()


def test_the_program_is_read_from_any_of_its_usual_metadata_names() -> None:
    assert document_program({"Programa": "  Pós-Graduação  em\nDireito "}) == (
        "Pós-Graduação em Direito"
    )
    for key in ("program", "PROGRAMME", " pos_graduacao "):
        assert document_program({key: "Educação"}) == "Educação"
    assert document_program({"program": "", "programa": "Direito"}) == "Direito"
    assert document_program({"program": "Direito", "programa": "Educação"}) == "Direito"
    assert document_program({"curso": "Direito"}) == ""
    assert document_program({}) == ""


def test_the_lexical_index_sees_title_path_heading_and_text_once_each() -> None:
    chunk = StoredChunk(
        "d#0",
        "lei-8078",
        0,
        "O consumidor terá acesso.",
        path="Art. 43",
        heading="Art. 43",
        title="Código de Defesa do Consumidor",
        source_path="leis/8078.txt",
    )
    assert index_text(chunk) == "Código de Defesa do Consumidor\nArt. 43\nO consumidor terá acesso."
    # a title that is only the file name or the id adds nothing
    bare = StoredChunk("d#0", "lei-8078", 0, "texto", title="lei-8078", path="leis/8078.txt")
    bare.source_path = "leis/8078.txt"
    assert index_text(bare) == "texto"


# -- fusion -------------------------------------------------------------------------------


def test_reciprocal_rank_fusion_sums_one_over_k_plus_rank() -> None:
    fused = rrf_fuse([[7, 3], [3, 9]], rrf_k=10)
    assert [p for p, _, _ in fused] == [3, 7, 9]
    assert fused[0] == (3, pytest.approx(1 / 12 + 1 / 11), [2, 1])
    assert fused[1] == (7, pytest.approx(1 / 11), [1, None])
    assert fused[2] == (9, pytest.approx(1 / 12), [None, 2])
    # a tie keeps the lower position first
    assert [p for p, _, _ in rrf_fuse([[5], [4]])] == [4, 5]
    assert rrf_fuse([[1, 2]])[0][1] == pytest.approx(1 / 61)


def test_minmax_fusion_scales_each_list_to_0_1_and_misses_count_as_its_lowest() -> None:
    fused = score_fuse([([1, 2, 3], [10.0, 5.0, 0.0]), ([3, 4], [0.9, 0.1])], [0.5, 0.5], "minmax")
    scores = {p: s for p, s, _ in fused}
    assert scores == pytest.approx({1: 0.5, 2: 0.25, 3: 0.5, 4: 0.0})
    assert [p for p, _, _ in fused] == [1, 3, 2, 4]
    assert dict((p, r) for p, _, r in fused) == {
        1: [1, None],
        2: [2, None],
        3: [3, 1],
        4: [None, 2],
    }
    # all equal: every candidate of that list counts fully
    same = score_fuse([([1, 2], [4.0, 4.0])], [1.0], "minmax")
    assert [s for _, s, _ in same] == [1.0, 1.0]


def test_zscore_fusion_counts_standard_deviations_from_the_mean_weighted() -> None:
    fused = score_fuse([([1, 2, 3], [3.0, 2.0, 1.0]), ([2, 1], [1.0, 0.0])], [0.25, 0.75])
    z = 1 / np.std([3.0, 2.0, 1.0])
    expected = {1: 0.25 * z + 0.75 * -1.0, 2: 0.0 + 0.75 * 1.0, 3: 0.25 * -z + 0.75 * -1.0}
    assert {p: s for p, s, _ in fused} == pytest.approx(expected)
    assert [p for p, _, _ in fused] == [2, 1, 3]
    flat = score_fuse([([1, 2], [4.0, 4.0]), ([], [])], [0.5, 0.5])
    assert [(p, s) for p, s, _ in flat] == [(1, 0.0), (2, 0.0)]


# -- the retriever --------------------------------------------------------------------------


def _store(tmp_path: Path, docs: dict[str, list[tuple[str, int, int]]]) -> Store:
    store = open_store(str(tmp_path / "colmeia.db"))
    for doc_id, passages in docs.items():
        store.replace_document(
            "c",
            StoredDocument(doc_id, "h", title=doc_id.upper()),
            [
                StoredChunk(f"{doc_id}#{i}", doc_id, i, text, char_start=a, char_end=b)
                for i, (text, a, b) in enumerate(passages)
            ],
        )
    return store


def test_a_retriever_needs_a_collection_and_a_known_fusion(tmp_path: Path) -> None:
    store = _store(tmp_path, {"a": [("prazo", 0, 5)]})
    with pytest.raises(ConfigurationError) as err:
        Retriever(store, [])
    assert str(err.value) == "name at least one collection to search"
    with pytest.raises(ConfigurationError) as err:
        Retriever(store, "c", fusion="sum")
    assert str(err.value) == "fusion is one of zscore, minmax, rrf, not 'sum'"
    for fusion in ("zscore", "minmax", "rrf"):
        assert Retriever(store, "c", fusion=fusion).fusion == fusion
    with pytest.raises(ConfigurationError) as err:
        Retriever(store, "c").embed_query("prazo")
    assert str(err.value) == "no embedder configured: set COLMEIA_EMBEDDINGS_*"
    assert Retriever(store, "c").chunk_vectors(["a#0"]) == {}


def test_an_unknown_collection_says_how_to_make_one(tmp_path: Path) -> None:
    store = _store(tmp_path, {"a": [("prazo", 0, 5)]})
    with pytest.raises(ConfigurationError) as err:
        Retriever(store, ["c", "nada"]).search("prazo")
    assert str(err.value) == (
        f"no collection named 'nada' in {store.url}; ingest documents first "
        "(`colmeia ingest PATH --collection NAME`) or see `colmeia collections`"
    )


def test_a_passage_overlapping_a_better_one_of_its_document_is_left_out(tmp_path: Path) -> None:
    store = _store(
        tmp_path,
        {
            "a": [
                ("prazo de recurso prazo", 0, 100),
                ("prazo de recurso", 50, 150),  # shares 50-100 with the first
                ("prazo", 150, 200),  # touches the second at 150: no overlap
            ],
            "b": [("prazo de recurso", 50, 150)],  # same span, another document
        },
    )
    merged = Retriever(store, "c").search("prazo de recurso", 10)
    # the second passage scores best; the first overlaps it and is left out
    assert [h.chunk_id for h in merged] == ["a#1", "b#0", "a#2"]
    assert [h.rank for h in merged] == [1, 2, 3]
    every = Retriever(store, "c", merge_overlaps=False).search("prazo de recurso", 10)
    assert sorted(h.chunk_id for h in every) == ["a#0", "a#1", "a#2", "b#0"]


def test_k_passages_and_no_more_with_ranks_from_one(tmp_path: Path) -> None:
    docs = {f"d{i}": [(f"prazo de recurso número {i}", 0, 10)] for i in range(6)}
    store = _store(tmp_path, docs)
    r = Retriever(store, "c")
    assert [h.rank for h in r.search("prazo", 4)] == [1, 2, 3, 4]
    assert len(r.search("prazo", 1)) == 1
    assert r.search("prazo", 0) == []
    assert asyncio.run(r.asearch("prazo", 2))[1].rank == 2
    hits = r.search("prazo de recurso número 3", 3)
    assert hits[0].doc_id == "d3" and hits[0].collection == "c"
    assert hits[0].citation.document == "D3" and hits[0].lexical_rank == 1
    assert hits[0].dense_rank is None
    assert hits[0].score > hits[1].score


def test_a_cap_of_zero_passages_per_document_means_no_cap(tmp_path: Path) -> None:
    store = _store(tmp_path, {"a": [(f"prazo {i}", 100 * i, 100 * i + 50) for i in range(8)]})
    r = Retriever(store, "c")
    assert len(r.search("prazo", 20)) == 5
    assert len(r.search("prazo", 20, per_document=0)) == 8
    assert len(r.search("prazo", 20, per_document=1)) == 1
    assert len(Retriever(store, "c", per_document=2).search("prazo", 20)) == 2


def test_documents_are_ranked_by_their_best_passage(tmp_path: Path) -> None:
    store = _store(
        tmp_path,
        {
            "a": [("prazo", 0, 10), ("prazo de recurso", 100, 110)],
            "b": [("prazo de recurso administrativo de recurso", 0, 10)],
            "c": [("prazo", 0, 10)],
        },
    )
    docs = Retriever(store, "c").search_documents("prazo de recurso", 2, per_document=1)
    assert [d.doc_id for d in docs] == ["a", "b"]
    assert [len(d.hits) for d in docs] == [1, 1]
    assert docs[0].hits[0].chunk_id == "a#1" and docs[0].title == "A"
    assert len(Retriever(store, "c").search_documents("prazo", 5)) == 3


def test_several_collections_are_searched_together(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "colmeia.db"))
    for name, text in (("leis", "prazo de recurso"), ("normas", "prazo de recurso administrativo")):
        store.replace_document(
            name, StoredDocument("d", "h"), [StoredChunk("d#0", "d", 0, text, char_end=10)]
        )
    hits = Retriever(store, ["leis", "normas"]).search("prazo recurso administrativo", 5)
    assert [(h.collection, h.doc_id) for h in hits] == [("normas", "d"), ("leis", "d")]


def test_the_search_method_refuses_to_block_a_running_event_loop(tmp_path: Path) -> None:
    store = _store(tmp_path, {"a": [("prazo", 0, 5)]})

    class Reranker:
        async def rerank(self, query: str, hits: list[Hit]) -> list[Hit]:
            return list(reversed(hits))

    r = Retriever(store, "c", reranker=Reranker())

    async def inside() -> None:
        with pytest.raises(RuntimeError) as err:
            r.search("prazo")
        assert str(err.value) == "use the async method (asearch) inside a running event loop"

    asyncio.run(inside())


def test_a_reranker_reorders_the_passages_and_ranks_follow(tmp_path: Path) -> None:
    store = _store(tmp_path, {"a": [("prazo de recurso", 0, 5)], "b": [("prazo", 0, 5)]})
    seen: list[str] = []

    class Reranker:
        async def rerank(self, query: str, hits: list[Hit]) -> list[Hit]:
            seen.append(query)
            return list(reversed(hits))

    r = Retriever(store, "c", reranker=Reranker())
    hits = r.search("  prazo de recurso ", 2)
    assert [(h.doc_id, h.rank) for h in hits] == [("b", 1), ("a", 2)]
    hits = asyncio.run(r.asearch(" prazo de recurso", 2))
    assert [(h.doc_id, h.rank) for h in hits] == [("b", 1), ("a", 2)]
    assert seen == ["prazo de recurso", "prazo de recurso"]


def test_the_index_is_saved_beside_the_store_and_rebuilt_after_a_change(tmp_path: Path) -> None:
    store = _store(tmp_path, {"a": [("prazo de recurso", 0, 10)]})
    r = Retriever(store, "c")
    r.warm()
    folder = store.index_dir / "c"
    saved = [p.name for p in folder.iterdir()]
    assert len(saved) == 1 and saved[0].startswith("g1-")
    assert {p.name for p in (folder / saved[0]).iterdir()} == {"lexical", "positions.json"}
    store.replace_document(
        "c", StoredDocument("b", "h2"), [StoredChunk("b#0", "b", 0, "prazo de recurso nova")]
    )
    assert [h.doc_id for h in r.search("nova", 5)] == ["b"]
    after = [p.name for p in folder.iterdir()]
    assert len(after) == 1 and after[0].startswith("g2-")  # the old generation is removed
    # another process (a new retriever over the same files) loads what was saved
    again = Retriever(open_store(str(tmp_path / "colmeia.db")), "c")
    assert [h.doc_id for h in again.search("nova", 5)] == ["b"]


def _any(x: Any) -> Any:
    return x


# -- vectors -------------------------------------------------------------------------------------

# Each word stands for a direction: passages about the same thing point the same way even when
# they share no word ("apelação" and "recurso" are both appeals).
TOPICS = {
    "recurso": 0,
    "apelação": 0,
    "prazo": 1,
    "dias": 1,
    "multa": 2,
    "penalidade": 2,
}


class WordTopics:
    """A tiny deterministic embedder: a text's vector counts its topic words."""

    name = "word-topics-v1"

    def embed(self, texts: Any) -> Any:
        rows = np.zeros((len(texts), 4), np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().replace(",", " ").split():
                rows[i, TOPICS.get(word, 3)] += 1.0
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


class QueryTopics(WordTopics):
    """The same, with a query form that reads every query as a question about fines."""

    def embed_query(self, texts: Any) -> Any:
        return self.embed(["multa" for _ in texts])


def _vector_store(tmp_path: Path, embedder: WordTopics) -> Store:
    store = open_store(str(tmp_path / "colmeia.db"))
    docs = {
        "lei": ("Lei", 2019, "o recurso tem prazo de dez dias"),
        "sumula": ("Súmula", 2020, "apelação apelação"),
        "decreto": ("Decreto", 2021, "multa penalidade"),
    }
    for doc_id, (title, year, text) in docs.items():
        chunk = StoredChunk(f"{doc_id}#0", doc_id, 0, text, char_end=len(text))
        store.replace_document(
            "c",
            StoredDocument(doc_id, "h", title=title, year=year),
            [chunk],
            vectors=embedder.embed([text]),
        )
    store.set_embedder("c", embedder.name, 4)
    return store


def test_vectors_bring_a_passage_that_shares_no_word_with_the_query(tmp_path: Path) -> None:
    embedder = WordTopics()
    store = _vector_store(tmp_path, embedder)
    assert [h.doc_id for h in Retriever(store, "c").search("recurso", 5)] == ["lei"]
    for fusion in ("zscore", "minmax", "rrf"):
        hits = Retriever(store, "c", embedder=embedder, fusion=fusion).search("recurso", 5)
        ranks = {h.doc_id: (h.lexical_rank, h.dense_rank) for h in hits}
        assert ranks["lei"] == (1, 2) and ranks["sumula"] == (None, 1), fusion
        assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    rrf = Retriever(store, "c", embedder=embedder, fusion="rrf", rrf_k=10).search("recurso", 5)
    assert [h.doc_id for h in rrf][:2] == ["lei", "sumula"]
    assert rrf[0].score == pytest.approx(1 / 11 + 1 / 12)
    assert rrf[1].score == pytest.approx(1 / 11)


def test_a_year_filter_applies_to_the_passages_vectors_bring(tmp_path: Path) -> None:
    embedder = WordTopics()
    store = _vector_store(tmp_path, embedder)
    r = Retriever(store, "c", embedder=embedder)
    assert {h.doc_id for h in r.search("recurso", 5, filters=Filters(year_to=2019))} == {"lei"}
    assert {h.doc_id for h in r.search("recurso", 5, filters=Filters(year=2020))} == {"sumula"}


def test_the_query_form_of_an_embedder_is_used_for_queries(tmp_path: Path) -> None:
    embedder = QueryTopics()
    store = _vector_store(tmp_path, embedder)
    # one query form and no feedback: what the query form alone ranks first
    r = Retriever(
        store, "c", embedder=embedder, fusion="rrf", both_query_forms=False, feedback_passages=0
    )
    assert np.allclose(r.embed_query(" recurso "), embedder.embed(["multa"])[0])
    hits = r.search("recurso", 5)
    dense_first = next(h for h in hits if h.dense_rank == 1)
    assert dense_first.doc_id == "decreto"


def test_stored_vectors_are_handed_back_without_embedding_again(tmp_path: Path) -> None:
    embedder = WordTopics()
    store = _vector_store(tmp_path, embedder)
    r = Retriever(store, "c", embedder=embedder)
    got = r.chunk_vectors(["sumula#0", "nada#9", "lei#0"])
    assert set(got) == {"sumula#0", "lei#0"}
    assert np.allclose(got["sumula#0"], embedder.embed(["apelação"])[0])
    assert np.allclose(got["lei#0"], embedder.embed(["o recurso tem prazo de dez dias"])[0])


def test_the_vector_index_is_saved_per_generation(tmp_path: Path) -> None:
    embedder = WordTopics()
    store = _vector_store(tmp_path, embedder)
    Retriever(store, "c", embedder=embedder).warm()
    folder = store.index_dir / "c"
    info = store.collection("c")
    assert info is not None
    assert sorted(p.name for p in folder.glob("dense-*")) == [f"dense-g{info.generation}.faiss"]
    text = "multa de dez dias"
    store.replace_document(
        "c",
        StoredDocument("nova", "h"),
        [StoredChunk("nova#0", "nova", 0, text, char_end=len(text))],
        vectors=embedder.embed([text]),
    )
    fresh = Retriever(store, "c", embedder=embedder)
    assert "nova" in {h.doc_id for h in fresh.search("penalidade", 5)}
    info = store.collection("c")
    assert info is not None
    assert sorted(p.name for p in folder.glob("dense-*")) == [f"dense-g{info.generation}.faiss"]


def test_vectors_of_another_embedder_are_refused_by_name(tmp_path: Path) -> None:
    store = _vector_store(tmp_path, WordTopics())

    class Other(WordTopics):
        name = "other-v2"

    with pytest.raises(ConfigurationError) as err:
        Retriever(store, "c", embedder=Other()).search("recurso")
    assert str(err.value) == (
        "collection 'c' was embedded with 'word-topics-v1' but the configured embedder is "
        "'other-v2'; configure the same one or re-ingest"
    )


def test_a_collection_without_vectors_is_searched_by_words_alone(tmp_path: Path) -> None:
    store = _store(tmp_path, {"a": [("prazo de recurso", 0, 10)]})
    r = Retriever(store, "c", embedder=WordTopics())
    hits = r.search("recurso", 5)
    assert [(h.doc_id, h.dense_rank) for h in hits] == [("a", None)]
    assert r.chunk_vectors(["a#0"]) == {}


def test_an_index_that_cannot_be_saved_is_used_anyway_and_the_log_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    embedder = WordTopics()
    store = _vector_store(tmp_path, embedder)
    store.index_dir.mkdir(parents=True, exist_ok=True)
    (store.index_dir / "c").write_text("not a folder", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="colmeia.rag.retrieve"):
        hits = Retriever(store, "c", embedder=embedder).search("recurso", 5)
    assert {h.doc_id for h in hits} >= {"lei", "sumula"}
    messages = [r.getMessage() for r in caplog.records if r.name == "colmeia.rag.retrieve"]
    assert any(
        m.startswith(f"could not save the index of c under {store.index_dir / 'c'}: ")
        for m in messages
    ), messages
    assert any(m.startswith("could not save the vector index of c: ") for m in messages), messages


def test_the_async_and_document_searches_take_the_same_filters_and_caps(tmp_path: Path) -> None:
    docs = {
        f"d{i:02}": [(f"prazo de recurso {i}", 100 * j, 100 * j + 50) for j in range(3)]
        for i in range(12)
    }
    store = _store(tmp_path, docs)
    for doc_id in ("d00", "d01"):
        store.replace_document(
            "c",
            StoredDocument(doc_id, "h2", title=doc_id.upper(), doc_type="lei"),
            [
                StoredChunk(
                    f"{doc_id}#{j}",
                    doc_id,
                    j,
                    "prazo de recurso",
                    char_start=100 * j,
                    char_end=100 * j + 50,
                )
                for j in range(3)
            ],
        )
    r = Retriever(store, "c")
    assert len(asyncio.run(r.asearch("prazo"))) == 10  # ten by default
    capped = asyncio.run(r.asearch("prazo", 50, per_document=1))
    assert len(capped) == 12 and len({h.doc_id for h in capped}) == 12
    typed = asyncio.run(r.asearch("prazo", 50, filters=Filters(doc_type="lei")))
    assert {h.doc_id for h in typed} == {"d00", "d01"}
    assert [h.rank for h in typed] == list(range(1, len(typed) + 1))
    assert len(r.search_documents("prazo")) == 10  # ten by default
    laws = r.search_documents("prazo", 50, filters=Filters(doc_type="lei"))
    assert {d.doc_id for d in laws} == {"d00", "d01"}


def test_vectors_are_looked_up_in_each_collection_that_has_them(tmp_path: Path) -> None:
    embedder = WordTopics()
    store = _vector_store(tmp_path, embedder)
    store.replace_document(
        "plain", StoredDocument("x", "h"), [StoredChunk("x#0", "x", 0, "recurso", char_end=7)]
    )
    r = Retriever(store, ["plain", "c"], embedder=embedder)
    got = r.chunk_vectors(["lei#0"])
    assert set(got) == {"lei#0"}  # the collection without vectors did not end the look
    assert r.chunk_vectors(["nada#0"]) == {}
