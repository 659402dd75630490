"""Ranking the works a review found (:mod:`colmeia.apps.literature.ranking`), as a reader
expects it: the search's order weighed equally with how well each work's title and abstract
hold the question; the record's meaning when an embedder is there (embedding only what has no
stored vector); the search leading when the works have shipped questions; and a model reranker
shown each work as title, type and year, abstract and best passages, its judgement only of the
works it was asked to judge."""

from __future__ import annotations

import asyncio
import csv
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from colmeia.apps.literature import import_library
from colmeia.apps.literature.ranking import model_rerank_works, rerank_works, work_text
from colmeia.llm import OpenAIChatModel
from colmeia.rag.index.embedders import HTTPEmbedder
from colmeia.rag.rerank import LLMReranker, NoReranker
from colmeia.rag.retrieve import Hit, Retriever
from colmeia.sim import SimRequest, SimulatedModel
from colmeia.store import Store, open_store
from colmeia.store.base import StoredDocument
from shared_data import DATA_DIR


def _doc(
    name: str,
    title: str,
    abstract: str | None = None,
    *,
    kind: str | None = None,
    doc_type: str = "",
    year: int | None = None,
) -> StoredDocument:
    meta: dict[str, Any] = {}
    if abstract is not None:
        meta["abstract"] = abstract
    if kind is not None:
        meta["type"] = kind
    return StoredDocument(name, "h", title, doc_type=doc_type, year=year, metadata=meta)


# -- what a reranker reads of a work -----------------------------------------------------------


def test_a_reranker_reads_title_type_year_abstract_and_new_passages() -> None:
    doc = _doc(
        "d1",
        "Merenda escolar",
        "A merenda   escolar\nmelhora a frequência.",
        kind="Tese",
        doc_type="pdf",
        year=2020,
    )
    text = work_text(
        doc, ["A merenda escolar melhora", "  Os dados\nde 2019 mostram   atraso.  ", " "]
    )
    assert text == (
        "Merenda escolar (Tese 2020)\n\n"
        "Resumo: A merenda escolar melhora a frequência.\n\n"
        "Trecho: Os dados de 2019 mostram atraso."
    )


def test_without_a_catalogue_type_the_documents_kind_is_named_and_a_missing_year_left_out() -> None:
    assert work_text(_doc("d1", "Merenda", doc_type="pdf")) == "Merenda (pdf)"
    assert work_text(_doc("d1", "Merenda", year=2019)) == "Merenda (2019)"
    assert work_text(_doc("d1", "Merenda")) == "Merenda"
    assert work_text(_doc("d1", "Merenda", "")) == "Merenda"


def test_the_abstract_and_each_passage_are_cut_to_their_budgets() -> None:
    abstract = " ".join(f"palavra{i}" for i in range(600))
    passage = " ".join(f"trecho{i}" for i in range(200))
    text = work_text(_doc("d1", "Merenda", abstract), [passage])
    _, summary, excerpt = text.split("\n\n")
    assert summary == "Resumo: " + abstract[:2500]
    assert excerpt == "Trecho: " + passage[:700]


def test_a_passage_whose_first_200_characters_are_in_the_abstract_is_not_repeated() -> None:
    abstract = "x" * 150 + " " + "y" * 49 + " fim do resumo."
    # Their first 200 characters are the abstract's (the 201st differs for the second).
    same_start = "x" * 150 + " " + "y" * 49 + " e depois outra coisa."
    one_more = "x" * 150 + " " + "y" * 49 + "z e depois outra coisa."
    # The 200th character differs: a passage of its own.
    other = "x" * 150 + " " + "y" * 48 + "w e depois outra coisa."
    text = work_text(_doc("d1", "T", abstract), [same_start, one_more, other])
    assert text.split("\n\n")[2:] == ["Trecho: " + other]


# -- a model reranker --------------------------------------------------------------------------


DOCS = [
    _doc("d1", "Merenda escolar", "A merenda melhora a frequência."),
    _doc("d2", "Transporte urbano", "O ônibus piorou nas periferias."),
    _doc("d3", "Saneamento rural", "As tarifas sobem."),
]


def test_a_reranker_that_keeps_the_order_scores_every_work_it_judged_zero() -> None:
    order, scores = asyncio.run(model_rerank_works("merenda", DOCS, NoReranker()))
    assert order == [0, 1, 2]
    assert scores == {"d1": 0.0, "d2": 0.0, "d3": 0.0}
    assert asyncio.run(model_rerank_works("merenda", [], NoReranker())) == ([], {})


class _Dropping:
    """A reranker that loses the last work it is given."""

    async def rerank(self, query: str, hits: Sequence[Hit]) -> list[Hit]:
        return list(hits[:-1])


def test_a_reranker_that_drops_a_work_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^the reranker dropped or repeated works$"):
        asyncio.run(model_rerank_works("merenda", DOCS, _Dropping()))


def test_a_model_judges_the_works_it_is_shown_and_only_they_get_its_score(
    sim_server: Any,
) -> None:
    prompts: list[str] = []

    def respond(req: SimRequest) -> str:
        prompt = req.text()
        prompts.append(prompt)
        return json.dumps({"score": 9 if "Transporte" in prompt else 3, "reason": "."})

    srv = sim_server(SimulatedModel(responder=respond))
    passages = {"d2": ["As linhas noturnas acabaram em 2019."]}

    async def go() -> tuple[list[int], dict[str, float]]:
        model = OpenAIChatModel(base_url=srv.base_url, model="sim", max_repairs=1)
        try:
            reranker = LLMReranker(
                model, top_n=2, prompt=("colmeia.apps.literature", "rerank_work.j2")
            )
            return await model_rerank_works("ônibus", DOCS, reranker, passages)
        finally:
            await model.aclose()

    order, scores = asyncio.run(go())
    assert order == [1, 0, 2]  # the third work was not judged: it stays last
    assert scores == {"d2": 9.0, "d1": 3.0}
    assert len(prompts) == 2
    shown = next(p for p in prompts if "Transporte" in p)
    assert "Trabalho: Transporte urbano\n" in shown
    assert "Trecho: As linhas noturnas acabaram em 2019." in shown
    assert "Resumo: O ônibus piorou nas periferias." in shown


# -- the offline rerank: search and words ------------------------------------------------------


def test_one_work_or_none_is_left_as_it_is() -> None:
    assert rerank_works("merenda", DOCS[:1]) == [0]
    assert rerank_works("merenda", []) == []


def test_works_alike_in_words_keep_the_search_order_or_follow_its_scores() -> None:
    same = [_doc(f"d{i}", "Merenda escolar", "A merenda escolar chega.") for i in range(3)]
    assert rerank_works("merenda escolar", same) == [0, 1, 2]
    assert rerank_works("merenda escolar", same, None, [0.1, 0.5, 0.9]) == [2, 1, 0]


def test_the_words_of_the_abstract_count_not_only_the_title() -> None:
    docs = [
        _doc("d1", "Estudo de caso", "A escola rural do campo."),
        _doc("d2", "Estudo de caso", "A merenda chega tarde."),
        _doc("d3", "Estudo de caso", "A merenda chega tarde, e a merenda falta."),
    ]
    assert rerank_works("merenda", docs, None, [1.0, 1.0, 1.0]) == [2, 0, 1]


def test_the_question_said_as_a_phrase_prefers_the_work_that_says_it_so() -> None:
    docs = [
        _doc("d1", "Estudo", "A continuada formação dos docentes e a escola."),
        _doc("d2", "Estudo", "A formação continuada dos docentes e a escola."),
    ]
    assert rerank_works("formação continuada", docs, None, [1.0, 1.0]) == [1, 0]


def test_a_record_without_an_abstract_is_weighed_by_its_title_alone() -> None:
    docs = [_doc("d1", "Merenda escolar"), _doc("d2", "Merenda escolar", "")]
    # The same words: a tie, kept in the search's order.
    assert rerank_works("merenda escolar", docs, None, [1.0, 1.0]) == [0, 1]


_FILLER = [f"palavra{i}" for i in range(80)]


def _abstract(said: str, times: int, filler: int) -> StoredDocument:
    return _doc(
        said + str(times) + str(filler), "Estudo", " ".join([said] * times + _FILLER[:filler]) + "."
    )


def test_the_phrase_counts_a_little_beside_the_words() -> None:
    docs = [
        # A short abstract with both words twice, apart.
        _abstract("formação de docentes e continuada", 2, 3),
        # A long one with the phrase once.
        _abstract("formação continuada", 1, 80),
        # A long one with both words twice, apart.
        _abstract("formação de docentes e continuada", 2, 80),
    ]
    assert rerank_works("formação continuada", docs) == [0, 1, 2]


def test_a_longer_abstract_saying_the_same_ranks_below_a_shorter_one() -> None:
    docs = [
        _abstract("formação de docentes e continuada", 1, 10),
        _abstract("formação continuada", 3, 80),
        _abstract("formação continuada", 3, 30),
    ]
    assert rerank_works("formação continuada", docs) == [0, 2, 1]


def test_the_search_and_the_words_weigh_the_same() -> None:
    docs = [
        _doc("d1", "Estudo de caso", "A escola rural do campo."),
        _doc("d2", "Merenda escolar", "A merenda escolar chega à escola."),
        _doc("d3", "Outro estudo", "A merenda falta."),
    ]
    # The search put the first work ahead, but the second holds the question far better.
    assert rerank_works("merenda escolar", docs, None, [1.0, 0.5, 0.0]) == [1, 0, 2]
    # Two works, the search for one and the words for the other: a tie, kept in search order.
    assert rerank_works("merenda escolar", docs[:2], None, [1.0, 0.0]) == [0, 1]


def test_the_words_of_every_work_found_are_weighed_not_only_the_first_ten() -> None:
    # Twelve works that say "merenda" one to four times in abstracts of 5 to 150 words: each
    # work's words are weighed against all twelve (against the best ten only, the fifth found
    # would pass the second).
    filler = [f"palavra{i}" for i in range(150)]
    shape = [(2, 5), (2, 20), (4, 60), (3, 150), (3, 5), (4, 20)]
    shape += [(2, 150), (1, 150), (3, 20), (4, 150), (3, 150), (3, 5)]
    docs = [
        _doc(f"d{i}", "Estudo", " ".join(["merenda"] * times + filler[:length]) + ".")
        for i, (times, length) in enumerate(shape)
    ]
    assert rerank_works("merenda", docs)[:3] == [0, 1, 4]


# -- the offline rerank with an embedder -------------------------------------------------------

OWN = (
    "Titulo,Autor,Defesa,Resumo\n"
    '"Transporte urbano",Ana Alves,2019,"O transporte por ônibus nas periferias piorou."\n'
    '"Saneamento rural",Bia Brito,2020,"O saneamento básico rural depende de tarifas."\n'
    '"Vacinação infantil",Caio Costa,2021,"A vacinação infantil caiu com a desinformação."\n'
)


@pytest.fixture
def embedded(tmp_path: Path, sim_server: Any) -> Iterator[tuple[Store, HTTPEmbedder, Any]]:
    srv = sim_server(SimulatedModel())
    (tmp_path / "c.csv").write_text(OWN, encoding="utf-8")
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", cache_dir=tmp_path / "cache")
    with HTTPEmbedder(srv.base_url, "sim") as emb:
        import_library(store, "t", [tmp_path / "c.csv"], embedder=emb)
        yield store, emb, srv.sim
    store.close()


def test_a_work_without_a_stored_vector_is_embedded_once_and_weighed_by_its_meaning(
    embedded: tuple[Store, HTTPEmbedder, Any],
) -> None:
    store, emb, sim = embedded
    # A work not imported from the catalogue (no stored record vector), whose abstract says
    # the question in words the word lists drop.
    extra = _doc("extra", "Relatos", "Quando eles estavam na escola, nada mudou.")
    docs = [*store.documents("t"), extra]
    sim.reset_stats()
    order = rerank_works(
        "quando eles estavam", docs, Retriever(store, "t", embedder=emb), [1.0] * 4
    )
    assert sim.stats()["embedding_inputs"] == 2  # the question and the one work
    assert order[0] == 3


# -- the offline rerank with the works' shipped questions --------------------------------------


@pytest.fixture
def shipped(tmp_path: Path, sim_server: Any) -> Iterator[tuple[Store, HTTPEmbedder]]:
    """Five works of the shipped catalogue (they come with questions) and one of our own."""
    srv = sim_server(SimulatedModel())
    with open(DATA_DIR / "theses" / "capes_resumos.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    with open(tmp_path / "c.csv", "w", encoding="utf-8", newline="") as f:
        out = csv.writer(f)
        out.writerows(rows[:6])
        own = ["999", "X", "Y", "1", "Merenda escolar no campo", "Ana Alves", "Tese"]
        out.writerow([*own, "01/01/2020", "A merenda escolar melhora a frequência.", "merenda", ""])
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", cache_dir=tmp_path / "cache")
    with HTTPEmbedder(srv.base_url, "sim") as emb:
        import_library(store, "t", [tmp_path / "c.csv"], embedder=emb)
        yield store, emb
    store.close()


def test_the_works_shipped_questions_weigh_in_beside_the_search_words_and_meaning(
    shipped: tuple[Store, HTTPEmbedder],
) -> None:
    store, emb = shipped
    docs = store.documents("t")
    titles = [d.title.split(":")[0] for d in docs]
    retriever = Retriever(store, "t", embedder=emb)
    question = "gênero e sexualidade na escola"

    def first(scores: list[float] | None, n: int) -> list[str]:
        return [titles[i] for i in rerank_works(question, docs, retriever, scores)[:n]]

    # In the search's order, the search leading (1.0) with the words (0.75), the meaning
    # (0.25) and the questions (0.125): the work on gender identities comes first (weighed as
    # a catalogue without questions, 0.25/0.25/0.5, the "Escola Sem Partido" attack would).
    assert first(None, 1) == [
        "As Identidades De Gênero E Sexualidade Na Visão Dos Parlamentares Da Câmara Federal"
    ]
    # The questions tell apart two works the other lists nearly tie (the work without any
    # questions, our own, counts as the least near).
    assert first([0.2, 1.0, 0.3, 0.9, 0.5, 0.4], 3) == [
        "Escola Sem Partido",
        "As Identidades De Gênero E Sexualidade Na Visão Dos Parlamentares Da Câmara Federal",
        "Merenda escolar no campo",
    ]
