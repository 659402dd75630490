"""The library's screening record as a reviewer relies on it, without the CLI: every stage's
decision with who and when on each work of a review, the latest stage shown as the work's
screening, a decision made on a saved review kept in the library, the whole library as a
review (each work's catalogue fields), and a re-import that never overwrites a newer decision.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from colmeia.apps.literature.library_screening import (
    attach_screening,
    library_review,
    screen_in_library,
    work_decisions,
)
from colmeia.apps.literature.records import Record
from colmeia.apps.literature.review import Decision, Review, ReviewedWork
from colmeia.apps.literature.screening import ScreeningLog, import_decisions
from colmeia.errors import ConfigurationError
from colmeia.store import Store, open_store
from colmeia.store.base import StoredDocument

T1 = "2026-06-01T10:00:00+00:00"
T2 = "2026-06-02T10:00:00+00:00"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    st = open_store(f"sqlite:///{tmp_path / 's.db'}", cache_dir=tmp_path / "cache")
    st.ensure_collection("lib")
    docs = [
        StoredDocument(
            "a",
            "ha",
            title="Formação docente",
            doc_type="pdf",
            year=2020,
            metadata={
                "authors": ["Ana Souza", "Bia Lima"],
                "type": "Dissertação",
                "program": "Educação",
                "institution": "UFPI",
                "doi": "10.1/abc",
                "links": ["https://x.org/a", "https://y.org/a"],
                "abstract": "Sobre a formação de professores.",
                "keywords": ["formação", "docência"],
                "pdf": "a.pdf",
            },
        ),
        StoredDocument(
            "b",
            "hb",
            title="Gênero na escola",
            doc_type="tese-do-arquivo",
            year=None,
            metadata={"authors": "Carla Dias", "links": "https://z.org/b", "keywords": "gênero"},
        ),
        StoredDocument("c", "hc", title="Sem nada", metadata={}),
    ]
    for d in docs:
        st.replace_document("lib", d, [])
    yield st
    st.close()


def _review(store: Store) -> Review:
    works = [
        ReviewedWork(d.doc_id, d.title, i, 1.0) for i, d in enumerate(store.documents("lib"), 1)
    ]
    return Review("q", "lib", works)


def _log() -> ScreeningLog:
    log = ScreeningLog("lib")
    log.decide("a", "include", notes="linha 1\nlinha 2", who="ana", at=T1)
    log.decide("a", "exclude", "sem PDF legível", "", "full_text", who="bruno", at=T2)
    log.decide("b", "exclude", "fora do recorte", who="ana", at=T1)
    return log


def test_each_stage_decision_keeps_its_stage_reason_notes_who_and_time() -> None:
    got = work_decisions(_log(), "a")
    assert got == {
        "title_abstract": Decision("include", "", "linha 1\nlinha 2", T1, "title_abstract", "ana"),
        "full_text": Decision("exclude", "sem PDF legível", "", T2, "full_text", "bruno"),
    }
    assert list(got) == ["title_abstract", "full_text"]
    assert work_decisions(_log(), "b") == {
        "title_abstract": Decision("exclude", "fora do recorte", "", T1, "title_abstract", "ana")
    }
    assert work_decisions(_log(), "c") == {}


def test_a_review_shows_the_latest_stage_and_an_unscreened_work_pending(store: Store) -> None:
    review = attach_screening(_review(store), store, _log())
    a, b, c = (review.work(x) for x in "abc")
    assert a.screening == Decision("exclude", "sem PDF legível", "", T2, "full_text", "bruno")
    assert set(a.decisions) == {"title_abstract", "full_text"}
    assert b.screening == Decision("exclude", "fora do recorte", "", T1, "title_abstract", "ana")
    assert (c.screening, c.decisions) == (Decision(), {})
    lib = review.library_prisma
    assert (lib["identified"], lib["screened"], lib["excluded"]) == (3, 2, 1)
    assert (lib["full_text_sought"], lib["full_text_available"]) == (1, 1)
    assert (lib["full_text_assessed"], lib["excluded_full_text"], lib["included"]) == (1, 1, 0)


def test_a_review_shown_again_forgets_a_decision_the_library_no_longer_has(store: Store) -> None:
    review = attach_screening(_review(store), store, _log())
    attach_screening(review, store, ScreeningLog("lib"))
    assert all(w.screening == Decision() and w.decisions == {} for w in review.works)
    assert review.library_prisma["screened"] == 0


def test_a_decision_on_a_saved_review_is_kept_in_the_library_with_everything_said(
    store: Store,
) -> None:
    log = ScreeningLog("lib")
    review = attach_screening(_review(store), store, log)
    rank_of_c = str(review.work("c").rank)
    w = screen_in_library(
        review,
        store,
        log,
        rank_of_c,
        "exclude",
        reason="outro tema",
        notes="ver\ndepois",
        who="ana",
    )
    assert w is review.work("c")
    kept = log.stages["title_abstract"]["c"]
    assert (kept.decision, kept.reason, kept.notes, kept.who) == (
        "exclude",
        "outro tema",
        "ver\ndepois",
        "ana",
    )
    assert kept.at  # when it was made
    assert (w.screening.decision, w.screening.reason, w.screening.who) == (
        "exclude",
        "outro tema",
        "ana",
    )
    assert review.library_prisma["excluded"] == 1
    # By id, at full text, with the defaults: no reason, notes nor who.
    screen_in_library(review, store, log, "a", "include")
    screen_in_library(review, store, log, "a", "include", stage="full_text")
    full = log.stages["full_text"]["a"]
    assert (full.decision, full.reason, full.notes, full.who) == ("include", "", "", "")
    assert review.work("a").screening.stage == "full_text"
    assert review.library_prisma["included"] == 1
    assert "a" in log.stages["title_abstract"]


def test_the_whole_library_as_a_review_carries_each_works_catalogue_fields(store: Store) -> None:
    log = _log()
    review = library_review(store, "lib", log)
    order = [d.doc_id for d in store.documents("lib")]
    assert [w.doc_id for w in review.works] == order
    assert [w.rank for w in review.works] == [1, 2, 3]
    assert (review.question, review.collection, review.records, review.ranking) == (
        "",
        "lib",
        3,
        "library",
    )
    a, b, c = (review.work(x) for x in "abc")
    assert (a.title, a.year, a.score, a.mode) == ("Formação docente", 2020, 0.0, "library")
    assert a.authors == ["Ana Souza", "Bia Lima"]
    assert (a.doc_type, a.program, a.institution, a.doi) == (
        "Dissertação",
        "Educação",
        "UFPI",
        "10.1/abc",
    )
    assert a.links == ["https://x.org/a", "https://y.org/a"]
    assert a.abstract == "Sobre a formação de professores."
    assert a.keywords == ["formação", "docência"]
    # One author, link or keyword given as text is a list of one; the stored type without one.
    assert (b.authors, b.links, b.keywords) == (["Carla Dias"], ["https://z.org/b"], ["gênero"])
    assert (b.doc_type, b.year, b.mode, b.score) == ("tese-do-arquivo", None, "library", 0.0)
    # Nothing known: empty fields, not "None".
    assert (c.authors, c.links, c.keywords) == ([], [], [])
    assert (c.doc_type, c.program, c.institution, c.doi, c.abstract) == ("", "", "", "", "")
    # With the library's decisions and counts.
    assert a.screening.stage == "full_text"
    assert b.screening.reason == "fora do recorte"
    assert c.screening == Decision()
    assert review.library_prisma["identified"] == 3


def test_an_empty_collection_is_a_review_of_nothing_and_a_missing_one_an_error(
    store: Store,
) -> None:
    store.ensure_collection("vazia")
    review = library_review(store, "vazia", ScreeningLog("vazia"))
    assert (review.works, review.records, review.library_prisma["identified"]) == ([], 0, 0)
    with pytest.raises(ConfigurationError) as err:
        library_review(store, "nenhuma", ScreeningLog("nenhuma"))
    assert str(err.value) == (
        f"no collection named 'nenhuma' in {store.url}; import the works first "
        "(`colmeia review import FILE --collection NAME`)"
    )


def test_a_re_import_never_overwrites_a_newer_decision_in_the_library(
    store: Store, tmp_path: Path
) -> None:
    """A library decided on, exported, changed since, and the old export imported again: each
    stage keeps the library's newer decision, and the review still shows it."""
    work = Record("Formação docente", year=2020).id
    log = ScreeningLog("lib")
    log.decide(work, "include", notes="da biblioteca", who="ana", at=T2)
    log.decide(work, "include", "", "", "full_text", who="bruno", at=T2)
    ris = (
        "TY  - THES\nTI  - Formação docente\nPY  - 2020\n"
        f"N1  - Triagem: exclude | Motivo: velho | Por: bia | Em: {T1}\n"
        f"N1  - Triagem (texto completo): exclude | Motivo: velho | Em: {T1}\nER  - \n"
    )
    (tmp_path / "old.ris").write_text(ris, "utf-8")
    assert import_decisions(log, [tmp_path / "old.ris"]) == 0
    first, full = log.stages["title_abstract"][work], log.stages["full_text"][work]
    assert (first.decision, first.notes, first.who, first.at) == (
        "include",
        "da biblioteca",
        "ana",
        T2,
    )
    assert (full.decision, full.who, full.at) == ("include", "bruno", T2)
    # The same time is not newer either: the library's decision stays.
    (tmp_path / "same.ris").write_text(ris.replace(T1, T2), "utf-8")
    assert import_decisions(log, [tmp_path / "same.ris"]) == 0
    assert log.stages["title_abstract"][work].notes == "da biblioteca"
    works = [ReviewedWork(work, "Formação docente", 1, 1.0)]
    shown = attach_screening(Review("q", "lib", works), store, log).works[0]
    assert (shown.screening.decision, shown.screening.who) == ("include", "bruno")
