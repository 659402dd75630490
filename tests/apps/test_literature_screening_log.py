"""A screening log as a reviewer keeps it: decisions saved and read back as made, where its file
lives, what the queue offers before any model can be fitted, and the PRISMA count of included
works. The queue's learning is in test_literature_screening.py, re-imports in
test_literature_screening_reimport.py."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from colmeia.apps.literature import import_library
from colmeia.apps.literature.screening import (
    ScreeningLog,
    prisma_flow,
    screening_file,
    screening_queue,
)
from colmeia.errors import ConfigurationError, InputError
from colmeia.store import open_store

# (title, abstract, keywords, year): the fourth names its subject only in its keywords
WORKS = [
    ("Avaliação na educação infantil", "Estudo sobre avaliação de crianças pequenas.", "", 2011),
    ("Merenda escolar e nutrição", "Estudo sobre alimentação nas escolas públicas.", "", 2012),
    ("Formação de professores de física", "Estudo sobre licenciatura em física.", "", 2013),
    ("Memórias de uma comunidade", "Estudo de história oral.", "quilombola; território", 2014),
    ("Evasão no ensino superior", "Estudo sobre abandono de cursos.", "", 2015),
]


def _ris(path: Path) -> Path:
    rows: list[str] = []
    for title, abstract, keywords, year in WORKS:
        rows += ["TY  - THES", f"TI  - {title}", f"AB  - {abstract}", f"PY  - {year}"]
        rows += [f"KW  - {k.strip()}" for k in keywords.split(";") if k.strip()]
        rows.append("ER  - ")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def library(tmp_path: Path) -> Iterator[tuple[Any, dict[str, str]]]:
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", cache_dir=tmp_path / "cache")
    import_library(store, "col", [_ris(tmp_path / "works.ris")])
    ids = {d.title: d.doc_id for d in store.documents("col")}
    yield store, ids
    store.close()


# ------------------------------------------------------------------ the log and its file


def test_a_saved_log_reads_back_with_its_question_and_decisions(tmp_path: Path) -> None:
    path = tmp_path / "home" / "screening" / "col.json"
    log = ScreeningLog("col", question="avaliação na educação infantil")
    log.decide("w1", "exclude", "não é pesquisa empírica", "lido  duas vezes\n  sem dados ")
    log.decide("w2", "include", who="ana  maria", at="2026-11-01T09:00:00+00:00")
    log.save(path)
    # a person can read the file: accents as written
    assert "não é pesquisa empírica" in path.read_text(encoding="utf-8")
    again = ScreeningLog.load(path, "other-name")
    assert (again.collection, again.question) == ("col", "avaliação na educação infantil")
    w1, w2 = again.stages["title_abstract"]["w1"], again.stages["title_abstract"]["w2"]
    assert (w1.decision, w1.reason, w1.notes, w1.who) == (
        "exclude",
        "não é pesquisa empírica",
        "lido duas vezes\nsem dados",
        "",
    )
    assert (w2.decision, w2.reason, w2.notes, w2.who, w2.at) == (
        "include",
        "",
        "",
        "ana maria",
        "2026-11-01T09:00:00+00:00",
    )


def test_a_decision_without_a_time_is_dated_now() -> None:
    before = dt.datetime.now(dt.UTC)
    made = ScreeningLog("col").decide("w1", "include")
    at = dt.datetime.fromisoformat(made.at)
    assert at.tzinfo is not None and before <= at <= dt.datetime.now(dt.UTC)


def test_a_missing_log_is_an_empty_one_for_the_collection(tmp_path: Path) -> None:
    log = ScreeningLog.load(tmp_path / "none.json", "col")
    assert (log.collection, log.question) == ("col", "")
    assert log.stages == {"title_abstract": {}, "full_text": {}}


def test_a_log_without_decisions_yet_loads_empty(tmp_path: Path) -> None:
    path = tmp_path / "col.json"
    path.write_text(json.dumps({"collection": "col"}), encoding="utf-8")
    log = ScreeningLog.load(path, "col")
    assert (log.collection, log.question) == ("col", "")
    assert log.stages == {"title_abstract": {}, "full_text": {}}


def test_a_file_that_is_not_a_log_is_named_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "col.json"
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ConfigurationError) as info:
        ScreeningLog.load(path, "col")
    assert str(info.value).startswith(f"{path} is not a screening log (")


def test_an_unknown_stage_is_refused_naming_the_stages() -> None:
    with pytest.raises(InputError) as info:
        ScreeningLog("col").decide("w1", "include", stage="abstract")  # type: ignore[arg-type]
    assert str(info.value) == ("a screening stage is title_abstract or full_text, not 'abstract'")


def test_each_store_and_collection_has_its_own_screening_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    one = screening_file(home, "sqlite:///a.db", "minha revisão")
    assert one.parent == home / "screening"
    assert one.name.startswith("minha_revis_o-") and one.suffix == ".json"
    assert screening_file(home, "sqlite:///a.db", "minha revisão") == one
    assert screening_file(home, "sqlite:///b.db", "minha revisão") != one
    assert screening_file(home, "sqlite:///a.db", "outra") != one


# ------------------------------------------------------------------ the queue before a model


def test_without_decisions_or_question_the_queue_is_the_catalogue_in_order(library: Any) -> None:
    store, _ = library
    queue = screening_queue(store, "col", ScreeningLog("col"), 3)
    catalogue = [d.title for d in store.documents("col")]
    assert [q.title for q in queue] == catalogue[:3]
    assert {q.basis for q in queue} == {"catalogue order"}
    first = next(d for d in store.documents("col") if d.title == queue[0].title)
    # each item shows the work as the reviewer reads it
    assert queue[0].year == first.year
    assert queue[0].abstract == first.metadata["abstract"]


def test_a_work_that_names_the_question_only_in_its_keywords_comes_first(library: Any) -> None:
    store, _ = library
    queue = screening_queue(store, "col", ScreeningLog("col"), 5, question="quilombola")
    assert queue[0].title == "Memórias de uma comunidade" and queue[0].basis == "question"


def test_with_only_exclusions_the_queue_puts_the_least_like_them_first(library: Any) -> None:
    store, ids = library
    log = ScreeningLog("col")
    log.decide(ids["Avaliação na educação infantil"], "exclude", "fora do tema")
    queue = screening_queue(store, "col", log, 4)
    assert {q.basis for q in queue} == {"unlike excluded"}
    assert all(queue[i].score >= queue[i + 1].score for i in range(3))
    # every other work shares only "estudo" with it; the one that does not comes first
    assert queue[0].title == "Memórias de uma comunidade"


def test_the_models_scores_are_probabilities(library: Any) -> None:
    store, ids = library
    log = ScreeningLog("col")
    log.decide(ids["Avaliação na educação infantil"], "include")
    log.decide(ids["Evasão no ensino superior"], "exclude", "fora do tema")
    queue = screening_queue(store, "col", log, 3)
    assert {q.basis for q in queue} == {"model"}
    assert all(0.0 < q.score < 1.0 for q in queue)
    assert len({q.score for q in queue}) > 1


@pytest.mark.parametrize("n", [0, -1])
def test_asking_for_no_works_gives_none(library: Any, n: int) -> None:
    store, _ = library
    assert screening_queue(store, "col", ScreeningLog("col"), n) == []


def test_an_unknown_collection_is_refused_saying_how_to_import_it(library: Any) -> None:
    store, _ = library
    with pytest.raises(ConfigurationError) as info:
        screening_queue(store, "teses", ScreeningLog("teses"))
    assert str(info.value) == (
        f"no collection named 'teses' in {store.url}; import the works first "
        "(`colmeia review import FILE --collection NAME`)"
    )


def test_prisma_counts_each_work_included_on_its_full_text(library: Any) -> None:
    store, ids = library
    log = ScreeningLog("col")
    titles = [t for t, *_ in WORKS]
    for title in titles[:3]:
        log.decide(ids[title], "include")
    log.decide(ids[titles[0]], "include", stage="full_text")
    log.decide(ids[titles[1]], "include", stage="full_text")
    log.decide(ids[titles[2]], "exclude", "sem dados", stage="full_text")
    counts = prisma_flow(store, "col", log)
    assert (counts["full_text_assessed"], counts["included"]) == (3, 2)
    assert counts["excluded_full_text"] == 1


def test_the_queue_offers_ten_works_unless_asked_otherwise_and_shows_a_missing_abstract_as_none(
    tmp_path: Path,
) -> None:
    rows = []
    for i in range(12):
        rows += ["TY  - THES", f"TI  - Trabalho número {i + 1}", f"PY  - {2000 + i}"]
        rows += [] if i == 0 else [f"AB  - Resumo do trabalho {i + 1}."]
        rows.append("ER  - ")
    (tmp_path / "w.ris").write_text("\n".join(rows) + "\n", encoding="utf-8")
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", cache_dir=tmp_path / "cache")
    try:
        import_library(store, "col", [tmp_path / "w.ris"])
        queue = screening_queue(store, "col", ScreeningLog("col"))
        assert len(queue) == 10
        every = screening_queue(store, "col", ScreeningLog("col"), 12)
        assert next(q for q in every if q.title == "Trabalho número 1").abstract == ""
        # an existing collection with nothing in it is an empty queue, not "no collection"
        store.ensure_collection("vazia")
        assert screening_queue(store, "vazia", ScreeningLog("vazia")) == []
    finally:
        store.close()
