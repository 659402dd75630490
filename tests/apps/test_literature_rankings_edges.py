"""The rankings an evaluation compares, on catalogues whose answers are known: every work
found up to the depth asked (not a search's default ten), a work listed once however many of
its passages match, dense by cosine best first, the reranked ranking from the question
without its opening, a model reranker given the question (and its failure noted, the offline
order kept), and the expanded search named after the search it expands."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from literature_helpers import library_store

from colmeia.apps.literature import import_library
from colmeia.apps.literature.ranking import rerank_works
from colmeia.apps.literature.rankings import WorkRankings, rank_of
from colmeia.errors import ModelError
from colmeia.rag.index.embedders import normalize
from colmeia.rag.pipeline import ingest
from colmeia.rag.retrieve import Hit, Retriever
from colmeia.sim.engine import hashed_embedding
from colmeia.store import Store, open_store

# Twelve works that say "escola" once each in ever longer abstracts (BM25 ranks them by
# length, W01 first), and one on another subject whose title asks like a question does.
ESCOLA = {f"W{i:02d}": (f"Obra {i}", "A escola " + " ".join(["palavra"] * i) + ".") for i in range(1, 13)}  # fmt: skip
OTHER = ("Quais trabalhos tratam de saneamento", "Consórcios de esgoto nas cidades.")
CSV = "Titulo,Resumo\n" + "".join(f'"{t}","{a}"\n' for t, a in [*ESCOLA.values(), OTHER])


class BagEmbedder:
    """A hashed bag of words: texts sharing words are near."""

    name = "bag"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return normalize(np.asarray([hashed_embedding(t, 64) for t in texts], np.float32))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    yield from library_store(tmp_path, CSV)


@pytest.fixture
def vectors(tmp_path: Path) -> Iterator[Store]:
    (tmp_path / "c.csv").write_text(CSV, encoding="utf-8")
    st = open_store(f"sqlite:///{tmp_path / 'v.db'}", cache_dir=tmp_path / "cache")
    import_library(st, "col", [tmp_path / "c.csv"], embedder=BagEmbedder())
    yield st
    st.close()


def _titles(store: Store, ranked: Sequence[str]) -> list[str]:
    by_id = {d.doc_id: d.title for d in store.documents("col")}
    return [by_id[d] for d in ranked]


def test_every_work_found_is_ranked_up_to_the_depth_asked(store: Store) -> None:
    rankings = WorkRankings(store, "col")
    assert rankings.depth == 100  # the first 100 works by default
    ranked = asyncio.run(rankings.rank("escola"))
    assert _titles(store, ranked["lexical"]) == [t for t, _ in ESCOLA.values()]
    assert sorted(ranked["reranked"]) == sorted(ranked["lexical"])
    shallow = asyncio.run(WorkRankings(store, "col", depth=3).rank("escola"))
    assert _titles(store, shallow["lexical"]) == ["Obra 1", "Obra 2", "Obra 3"]
    assert rank_of(ranked["lexical"], ranked["lexical"][11]) == 12
    assert rank_of(ranked["lexical"], "rec:none") is None


def test_the_reranked_ranking_searches_the_question_without_its_opening(store: Store) -> None:
    """The opening "Quais trabalhos tratam de" matches the title of the work on sanitation:
    lexical, searching the whole question, finds it; the rerank, searching what is asked,
    does not (as the review searches it)."""
    question = "Quais trabalhos tratam de escola e palavra?"
    ranked = asyncio.run(WorkRankings(store, "col").rank(question))
    assert OTHER[0] in _titles(store, ranked["lexical"])
    assert OTHER[0] not in _titles(store, ranked["reranked"])
    assert len(ranked["reranked"]) == 12


def test_dense_ranks_works_by_cosine_best_first_up_to_the_depth(vectors: Store) -> None:
    rankings = WorkRankings(vectors, "col", embedder=BagEmbedder())
    assert rankings.dense is not None
    abstract = OTHER[1]
    top = rankings.dense(abstract, 2)
    assert len(top) == 2
    assert _titles(vectors, top)[0] == OTHER[0]  # its own abstract: the nearest
    every = rankings.dense(abstract, 100)
    assert len(every) == len(set(every)) == 13 and every[:2] == top
    ranked = asyncio.run(rankings.rank("escola"))
    assert list(ranked) == ["lexical", "dense", "hybrid", "reranked"]
    assert len(ranked["hybrid"]) == 13  # dense finds every work, so hybrid does
    # The rerank fuses hybrid's head with the works' titles and vectors, as the review does.
    hybrid = Retriever(vectors, "col", embedder=BagEmbedder())
    groups = hybrid.search_documents("escola", 100, per_document=1)
    docs = {d.doc_id: d for d in vectors.documents("col")}
    head = [docs[g.doc_id] for g in groups]
    order = rerank_works("escola", head, hybrid, [g.score for g in groups])
    assert ranked["reranked"] == [head[j].doc_id for j in order]


def test_a_work_with_many_matching_passages_is_listed_once_at_its_best(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    long = "\n\n".join(
        f"Parágrafo {i} sobre a escola rural e a merenda escolar." for i in range(80)
    )
    (folder / "longo.txt").write_text(long, encoding="utf-8")
    (folder / "curto.txt").write_text("A merenda escolar.", encoding="utf-8")
    st = open_store(f"sqlite:///{tmp_path / 't.db'}", cache_dir=tmp_path / "cache")
    try:
        ingest(st, "col", [folder], embedder=BagEmbedder())
        assert len(st.chunks("col")) > 2  # the long text is several passages
        rankings = WorkRankings(st, "col", embedder=BagEmbedder())
        assert rankings.dense is not None
        found = rankings.dense("escola rural", 10)
        by_id = {d.doc_id: Path(d.path).name for d in st.documents("col")}
        assert [by_id[d] for d in found] == ["longo.txt", "curto.txt"]
    finally:
        st.close()


class AskedReranker:
    """A model reranker that puts first the works whose text holds the question's last word."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def rerank(self, query: str, hits: Sequence[Hit]) -> list[Hit]:
        self.asked.append(query)
        word = query.split()[-1]
        return sorted(hits, key=lambda h: word not in h.text)


class FailingReranker:
    async def rerank(self, query: str, hits: Sequence[Hit]) -> list[Hit]:
        raise ModelError("the reranker is down")


def test_a_model_reranker_is_given_the_question_and_its_failure_keeps_the_offline_order(
    store: Store,
) -> None:
    reranker = AskedReranker()
    ranked = asyncio.run(
        WorkRankings(store, "col", reranker=reranker).rank("escola palavra Obra 9")
    )
    assert reranker.asked == ["escola palavra Obra 9"]
    assert _titles(store, ranked["reranked (model)"])[0] == "Obra 9"
    failing = WorkRankings(store, "col", reranker=FailingReranker())
    ranked = asyncio.run(failing.rank("escola"))
    assert ranked["reranked (model)"] == ranked["reranked"]
    assert failing.notes == [
        "model rerank failed on one query, offline order kept: the reranker is down"
    ]
    assert [len(failing.timings[n]) for n in failing.names] == [1, 1, 1]


class Rewriter:
    """A model that rewrites every question as "esgoto cidades" and "escola"."""

    name = "rewriter"

    async def structured(self, messages: Any, output_type: Any, **_: Any) -> Any:
        return output_type.model_validate({"queries": ["esgoto cidades", "escola"]})


def test_the_expanded_ranking_is_named_after_the_search_it_expands(
    store: Store, vectors: Store
) -> None:
    words = WorkRankings(store, "col", expand_model=Rewriter())
    assert words.names == ["lexical", "reranked", "lexical + model expansion"]
    ranked = asyncio.run(words.rank("saneamento"))
    # The question finds nothing by its words; the rewritings find the works they name.
    assert OTHER[0] in _titles(store, ranked["lexical + model expansion"])
    with_vectors = WorkRankings(vectors, "col", embedder=BagEmbedder(), expand_model=Rewriter())
    assert with_vectors.names[-1] == "hybrid + model expansion"
    assert "hybrid + model expansion" in asyncio.run(with_vectors.rank("saneamento"))
