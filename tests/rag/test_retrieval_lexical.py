"""Lexical search: quality floors on real Portuguese data, accents, bad queries, filters."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from rag_fixtures import DATA, juristcu_subset

from colmeia.errors import QueryError
from colmeia.eval.retrieval import evaluate_run
from colmeia.rag.index.lexical import Analyzer, LexicalConfig, LexicalIndex, top_k
from colmeia.rag.pipeline import ingest
from colmeia.rag.retrieve import DEFAULT_LEXICAL, Filters, Retriever, group_by_document
from colmeia.store import Store, StoredChunk, StoredDocument, open_store

# Figures reached by the default configuration, minus a small margin. The targets to beat
# were 0.728 nDCG@10 (JurisTCU) and 0.813 P@1 (FaQuAD).
JURISTCU_NDCG10_FLOOR = 0.745
FAQUAD_P1_FLOOR = 0.835
FAQUAD_MRR10_FLOOR = 0.89


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Store:
    return open_store(str(tmp_path / "colmeia.db"))


def test_juristcu_ndcg_at_10_beats_off_the_shelf_bm25(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "colmeia.db"))
    report = ingest(store, "juris", [DATA / "juristcu" / "docs.csv"])
    assert report.added == 1651
    retriever = Retriever(store, "juris")
    qrels: dict[str, dict[str, int]] = {}
    with (DATA / "juristcu" / "qrels.csv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            qrels.setdefault(row["QUERY_ID"], {})[row["DOC_ID"]] = int(row["SCORE"])
    run = {}
    with (DATA / "juristcu" / "queries.csv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            docs = retriever.search_documents(row["TEXT"], 100, per_document=1)
            run[row["ID"]] = [d.doc_id for d in docs]

    metrics = evaluate_run(run, qrels)

    assert metrics.queries == 100
    assert metrics.ndcg[10] >= JURISTCU_NDCG10_FLOOR
    assert metrics.recall[100] >= 0.85
    store.close()


def test_faquad_question_finds_its_paragraph_first() -> None:
    data = json.loads((DATA / "faquad" / "dataset.json").read_text(encoding="utf-8"))
    paragraphs: list[str] = []
    questions: list[tuple[str, int]] = []
    for article in data["data"]:
        for para in article["paragraphs"]:
            questions.extend((qa["question"], len(paragraphs)) for qa in para["qas"])
            paragraphs.append(para["context"])
    index = LexicalIndex.build(paragraphs, DEFAULT_LEXICAL)

    run = {str(i): [str(p) for p in index.search(q, 10)[0]] for i, (q, _) in enumerate(questions)}
    qrels = {str(i): {str(pid): 1} for i, (_, pid) in enumerate(questions)}
    metrics = evaluate_run(run, qrels)

    assert metrics.queries == 900
    assert metrics.p_at_1 > FAQUAD_P1_FLOOR
    assert metrics.mrr > FAQUAD_MRR10_FLOOR


def test_words_typed_without_accents_find_the_same_passages(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "colmeia.db"))
    ingest(store, "juris", [juristcu_subset(tmp_path / "csv", 300)])
    r = Retriever(store, "juris")
    for accented, plain in [
        ("licitação", "licitacao"),
        ("concessão", "concessao"),
        ("contratações públicas", "contratacoes publicas"),
        ("TÉCNICA E PREÇO", "tecnica e preco"),
    ]:
        with_accents = [(h.chunk_id, h.score) for h in r.search(accented, 10)]
        assert with_accents, accented
        assert with_accents == [(h.chunk_id, h.score) for h in r.search(plain, 10)]


def test_plural_and_singular_meet() -> None:
    a = Analyzer()
    assert a.tokens("licitações concessões órgãos") == a.tokens("licitacao concessao orgao")


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("", "empty"),
        ("   \n\t ", "empty"),
        ("x" * 10_001, "limit"),
        ("?!... ;-) — «»", "no letters or digits"),
    ],
)
def test_unusable_queries_raise_query_error(sqlite_store: Store, query: str, message: str) -> None:
    sqlite_store.replace_document(
        "c", StoredDocument("d", "h"), [StoredChunk("d#0", "d", 0, "texto qualquer")]
    )
    with pytest.raises(QueryError, match=message):
        Retriever(sqlite_store, "c").search(query)


def test_a_query_of_stopwords_still_searches_them(sqlite_store: Store) -> None:
    sqlite_store.replace_document(
        "c",
        StoredDocument("d", "h"),
        [StoredChunk("d#0", "d", 0, "sem relação"), StoredChunk("d#1", "d", 1, "o que é isto")],
    )
    hits = Retriever(sqlite_store, "c").search("o que é", 5)
    assert [h.chunk_id for h in hits][:1] == ["d#1"]


def test_unknown_collection_is_a_clear_error(sqlite_store: Store) -> None:
    from colmeia.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="no collection named 'nada'"):
        Retriever(sqlite_store, "nada").search("licitação")


def _filtered_store(store: Store) -> None:
    for doc_id, doc_type, year in [("a", "lei", 2019), ("b", "acordao", 2021), ("c", "lei", 2021)]:
        store.replace_document(
            "c",
            StoredDocument(doc_id, "h", doc_type=doc_type, year=year),
            [
                StoredChunk(f"{doc_id}#{i}", doc_id, i, f"licitação pública número {i}")
                for i in range(8)
            ],
        )


def test_filters_on_document_type_and_year(sqlite_store: Store) -> None:
    _filtered_store(sqlite_store)
    r = Retriever(sqlite_store, "c")
    assert {h.doc_id for h in r.search("licitação", 50, filters=Filters(doc_type="lei"))} == {
        "a",
        "c",
    }
    assert {h.doc_id for h in r.search("licitação", 50, filters=Filters(year=2021))} == {"b", "c"}
    both = Filters(doc_type="lei", year_from=2020)
    assert {h.doc_id for h in r.search("licitação", 50, filters=both)} == {"c"}
    assert r.search("licitação", 50, filters=Filters(doc_type="portaria")) == []


def test_at_most_n_passages_per_document(sqlite_store: Store) -> None:
    _filtered_store(sqlite_store)
    r = Retriever(sqlite_store, "c")
    hits = r.search("licitação", 50)
    per_doc = {d: sum(h.doc_id == d for h in hits) for d in "abc"}
    assert per_doc == {"a": 5, "b": 5, "c": 5}
    assert [h.rank for h in hits] == list(range(1, 16))
    assert len(r.search("licitação", 50, per_document=2)) == 6
    groups = group_by_document(hits)
    assert [len(g.hits) for g in groups] == [5, 5, 5]
    assert r.search_documents("licitação", 2, per_document=3)[0].hits[0].rank == 1


def test_top_k_breaks_ties_by_position_and_drops_zeros() -> None:
    import numpy as np

    pos, scores = top_k(np.array([0.0, 2.0, 1.0, 2.0, 0.0], np.float32), 3)
    assert pos.tolist() == [1, 3, 2]
    assert scores.tolist() == [2.0, 2.0, 1.0]
    assert top_k(np.zeros(4, np.float32), 2)[0].tolist() == []


def test_index_saved_and_loaded_gives_the_same_ranking(tmp_path: Path) -> None:
    texts = ["licitação na modalidade pregão", "concessão de serviço público", "pregão eletrônico"]
    index = LexicalIndex.build(texts, LexicalConfig(bigram_weight=0.2))
    index.save(tmp_path / "idx")
    loaded = LexicalIndex.load(tmp_path / "idx")
    assert loaded is not None
    for q in ("pregão", "servico publico", "licitacao pregao"):
        assert index.search(q, 3)[0].tolist() == loaded.search(q, 3)[0].tolist()
    assert LexicalIndex.load(tmp_path / "missing") is None
