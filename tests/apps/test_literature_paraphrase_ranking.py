"""The review's offline work ranking on questions in other words than the work's: the record's
meaning (its best two sentences) weighs as much as its words, measured on the development paraphrases
(a frozen test set is never run by the tests: it is measured once, by hand; test3 and test5 were
reported before the round that reweighed the rerank, and are development sets since)."""

from __future__ import annotations

import pytest

from colmeia.apps.literature import import_library
from colmeia.apps.literature.evaluate import (
    SyntheticQuery,
    evaluate_review,
    paraphrase_queries,
    read_paraphrases,
)
from colmeia.config import EmbeddingsSettings
from colmeia.rag.index.embedders import default_embedder
from colmeia.rag.retrieve import Retriever
from colmeia.store import open_store
from shared_data import DATA_DIR

THESES = DATA_DIR / "theses"


DEV = THESES / "paraphrases" / "dev.jsonl"
READ = [THESES / "paraphrases" / f"{name}.jsonl" for name in ("test3_frozen", "test5_frozen")]


@pytest.fixture(scope="module")
def teses(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    embedder = default_embedder(EmbeddingsSettings())
    assert embedder is not None
    folder = tmp_path_factory.mktemp("teses")
    store = open_store(f"sqlite:///{folder / 's.db'}", cache_dir=folder / "cache")
    # the shipped vectors (the seed) make this import take seconds, not minutes
    import_library(
        store, "teses", [THESES / "capes_resumos.csv"], pdf_dir=THESES / "pdfs", embedder=embedder
    )
    yield store, embedder
    store.close()


@pytest.mark.default_embedder
def test_paraphrased_questions_find_their_thesis_first_after_the_offline_rerank(teses) -> None:  # type: ignore[no-untyped-def]
    store, embedder = teses
    report = evaluate_review(store, "teses", embedder=embedder, paraphrases=DEV, ks=(25,))
    assert report.queries == 26
    reranked, hybrid = report.variants["reranked"], report.variants["hybrid"]
    # 23 of 26 first (equal weights on search, words and the record's vector gave 22; hybrid
    # alone 21); the best two sentences instead of the record's vector keep 23, MRR 0.927 → 0.931
    # with each work's shipped questions (colmeia.rag.expansion) 24 of 26, hybrid and reranked
    assert float(reranked["p@1"]) >= 0.92  # type: ignore[arg-type]
    assert float(reranked["p@1"]) >= float(hybrid["p@1"])  # type: ignore[arg-type]


@pytest.mark.default_embedder
def test_asking_for_works_about_a_subject_ranks_as_asking_the_subject(teses) -> None:  # type: ignore[no-untyped-def]
    store, embedder = teses
    bare, _ = paraphrase_queries(store.documents("teses"), read_paraphrases(DEV))
    openings = ("Quais trabalhos tratam de {}", "existe alguma pesquisa sobre {}")
    asked = [
        SyntheticQuery(q.doc_id, openings[i % 2].format(q.text[0].lower() + q.text[1:]), "file")
        for i, q in enumerate(bare)
    ]

    def reranked(queries: list[SyntheticQuery]) -> dict[str, object]:
        report = evaluate_review(store, "teses", embedder=embedder, queries=queries, ks=(25,))
        figures = dict(report.variants["reranked"])
        figures.pop("copied_trigrams")  # the openings are no abstract's words
        return figures

    # Without the opening taken off, 2 of the 26 questions lost their first place.
    assert reranked(asked) == reranked(bare)


@pytest.mark.default_embedder
def test_a_work_is_found_by_the_questions_shipped_for_it_in_other_words(teses) -> None:  # type: ignore[no-untyped-def]
    store, embedder = teses
    # A discourse analysis of the "Escola Sem Partido" bill, asked without any of the words
    # that name it; the catalogue holds a dozen works on the movement.
    target = "rec:691196ed91fd64d4"
    question = "movimento que quer proibir professor de falar de política na sala de aula"

    def works(**weights: float) -> list[str]:
        hits = Retriever(store, "teses", embedder=embedder, **weights).search(question, k=20)
        return list(dict.fromkeys(h.doc_id for h in hits))

    assert target not in works(expansion_weight=0, expansion_dense_weight=0)[:3]
    assert works()[0] == target


@pytest.mark.default_embedder
@pytest.mark.parametrize("questions", READ, ids=lambda p: p.stem)
def test_the_rerank_keeps_the_first_places_the_search_found(teses, questions) -> None:  # type: ignore[no-untyped-def]
    store, embedder = teses
    report = evaluate_review(store, "teses", embedder=embedder, paraphrases=questions, ks=(25,))
    reranked, hybrid = report.variants["reranked"], report.variants["hybrid"]
    # The works' shipped questions are in the search already: weighed as before they existed
    # (the sentences at half the weight), the rerank put 29 of test3's 34 first where the search
    # had 31, and 35 of test5's 40 where it had 37; the search leading, 32 and 38.
    assert float(reranked["p@1"]) > float(hybrid["p@1"])  # type: ignore[arg-type]
    assert float(reranked["p@1"]) >= 0.94  # type: ignore[arg-type]
