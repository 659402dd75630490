"""Screening a whole collection: the queue learns from the decisions, PRISMA counts add up, and
the CLI records decisions non-interactively."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from colmeia.apps.literature import import_library
from colmeia.apps.literature.screening import (
    ScreeningLog,
    prisma_flow,
    screening_file,
    screening_queue,
)
from colmeia.errors import InputError
from colmeia.store import open_store

# Five works on teacher education for inclusion, five on sanitation economics.
TEACHERS = [
    ("Formação docente para a educação inclusiva", "professores inclusão deficiência escola"),
    ("Professores e alunos com deficiência na escola regular", "inclusão escolar docentes"),
    ("Formação continuada e atendimento educacional especializado", "docentes inclusão sala"),
    ("Práticas inclusivas de professoras do ensino fundamental", "inclusão professoras escola"),
    ("Educação especial e formação de professores", "deficiência professores formação inclusão"),
]
SANITATION = [
    ("Custos do saneamento básico em municípios pequenos", "tarifas esgoto água custos"),
    ("Consórcios regionais de abastecimento de água", "água esgoto consórcios tarifas"),
    ("Privatização de companhias de saneamento", "tarifas investimento esgoto empresas"),
    ("Perdas de água nas redes de distribuição", "água perdas redes investimento"),
    ("Regulação tarifária do esgotamento sanitário", "esgoto tarifas regulação custos"),
]


def _csv() -> str:
    rows = ["Titulo,Resumo,Defesa"]
    for i, (title, words) in enumerate(TEACHERS + SANITATION):
        abstract = f"Este trabalho estuda {words}. Discute {words} em detalhe."
        rows.append(f'"{title}","{abstract}",{2010 + i}')
    return "\n".join(rows) + "\n"


@pytest.fixture
def library(tmp_path: Path):  # type: ignore[no-untyped-def]
    (tmp_path / "c.csv").write_text(_csv(), encoding="utf-8")
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", cache_dir=tmp_path / "cache")
    import_library(store, "col", [tmp_path / "c.csv"])
    ids = {d.title: d.doc_id for d in store.documents("col")}
    yield store, ids
    store.close()


def test_the_queue_puts_works_like_the_included_ones_first(library) -> None:  # type: ignore[no-untyped-def]
    store, ids = library
    log = ScreeningLog("col")
    first = screening_queue(store, "col", log, 10, question="formação de professores e inclusão")
    assert first[0].basis == "question"
    assert {q.title for q in first[:3]} <= {t for t, _ in TEACHERS}

    # One inclusion (teachers) and one exclusion (sanitation): the model is fitted and the
    # four other teacher works come before any sanitation work.
    log.decide(ids[TEACHERS[0][0]], "include")
    log.decide(ids[SANITATION[0][0]], "exclude", "fora do tema")
    queue = screening_queue(store, "col", log, 8)
    assert [q.basis for q in queue] == ["model"] * 8
    assert {q.title for q in queue[:4]} == {t for t, _ in TEACHERS[1:]}
    assert all(queue[i].score >= queue[i + 1].score for i in range(7))
    assert queue[0].score > 0.5 > queue[-1].score


def test_with_only_inclusions_the_queue_follows_their_likeness(library) -> None:  # type: ignore[no-untyped-def]
    store, ids = library
    log = ScreeningLog("col")
    log.decide(ids[SANITATION[1][0]], "include")
    queue = screening_queue(store, "col", log, 4)
    assert queue[0].basis == "similar to included"
    assert {q.title for q in queue} == {t for t, _ in SANITATION} - {SANITATION[1][0]}


def test_prisma_counts_follow_both_stages(library, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    store, ids = library
    path = screening_file(tmp_path / "home", store.url, "col")
    log = ScreeningLog.load(path, "col")
    for title, _ in TEACHERS:
        log.decide(ids[title], "include")
    for title, _ in SANITATION[:3]:
        log.decide(ids[title], "exclude", "fora do tema")
    log.decide(ids[SANITATION[3][0]], "exclude", "não é pesquisa empírica")
    log.decide(ids[TEACHERS[0][0]], "include", stage="full_text")
    log.decide(ids[TEACHERS[1][0]], "exclude", "sem dados de professores", stage="full_text")
    log.save(path)

    counts = prisma_flow(store, "col", ScreeningLog.load(path, "col"))
    assert counts == {
        "identified": 10,
        "screened": 9,
        "excluded": 4,
        "exclusion_reasons": {"fora do tema": 3, "não é pesquisa empírica": 1},
        "full_text_sought": 5,
        "full_text_available": 0,
        "full_text_assessed": 2,
        "excluded_full_text": 1,
        "full_text_exclusion_reasons": {"sem dados de professores": 1},
        "included": 1,
        "awaiting_title_abstract": 1,
        "awaiting_full_text": 3,
    }
    assert [q.title for q in screening_queue(store, "col", log, 5)] == [SANITATION[4][0]]


def test_bad_decisions_are_refused_naming_the_work(library) -> None:  # type: ignore[no-untyped-def]
    _store, ids = library
    log = ScreeningLog("col")
    work = ids[TEACHERS[2][0]]
    with pytest.raises(InputError, match=f"say why {work} is excluded"):
        log.decide(work, "exclude")
    with pytest.raises(InputError, match="not included on its title and abstract"):
        log.decide(work, "include", stage="full_text")
    with pytest.raises(InputError, match="include or exclude, not 'maybe'"):
        log.decide(work, "maybe")
    assert log.stages == {"title_abstract": {}, "full_text": {}}


def test_the_cli_screens_a_collection_without_prompting(colmeia_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "c.csv").write_text(_csv(), encoding="utf-8")
    code, out, err = colmeia_cli("review", "import", "c.csv", "-c", "col")
    assert code == 0, (out, err)
    code, out, err = colmeia_cli(
        "review",
        "screen",
        "-c",
        "col",
        "--question",
        "saneamento e tarifas",
        "--next",
        "3",
        "--json",
    )
    assert code == 0, err
    data = json.loads(out)
    assert len(data["next"]) == 3
    assert {q["title"] for q in data["next"]} <= {t for t, _ in SANITATION}
    first = data["next"][0]["doc_id"]
    code, out, err = colmeia_cli(
        "review", "screen", "-c", "col", "--decide", first, "exclude", "--reason", "fora", "--json"
    )
    assert code == 0, err
    assert json.loads(out)["prisma"]["exclusion_reasons"] == {"fora": 1}
    # Decisions persist between commands; an id can be given by an unambiguous start.
    second = data["next"][1]["doc_id"]
    code, out, err = colmeia_cli(
        "review", "screen", "-c", "col", "--decide", second[:10], "include", "--json"
    )
    assert code == 0, err
    prisma = json.loads(out)["prisma"]
    assert (prisma["screened"], prisma["excluded"], prisma["full_text_sought"]) == (2, 1, 1)
    code, _, err = colmeia_cli("review", "screen", "-c", "col", "--decide", "rec:zz", "include")
    assert code == 2
    assert "no work 'rec:zz' in col" in err
    code, _, err = colmeia_cli("review", "screen", "-c", "col", "--decide", second, "exclude")
    assert code == 2
    assert "is excluded (a reason)" in err


def test_decisions_carried_by_an_exported_ris_are_kept_on_import(
    colmeia_cli, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    env = {"COLMEIA_EMBEDDINGS_MODEL": "none"}
    (tmp_path / "c.csv").write_text(_csv(), encoding="utf-8")
    assert colmeia_cli("review", "import", "c.csv", "-c", "col", env=env)[0] == 0
    code, out, err = colmeia_cli(
        "review", "formação de professores", "-c", "col", "--top", "3", "--out", "r.json", env=env
    )
    assert code == 0, err
    assert (
        colmeia_cli("review", "screen", "r.json", "1", "--exclude", "--reason", "duplicado")[0] == 0
    )
    assert colmeia_cli("review", "screen", "r.json", "2", "--include")[0] == 0
    assert colmeia_cli("review", "export", "r.json", "r.ris")[0] == 0
    # The exported file, imported as a new collection (as after a trip through Zotero).
    code, out, err = colmeia_cli("review", "import", "r.ris", "-c", "zotero", env=env)
    assert code == 0, err
    assert "2 screening decisions carried by the files kept" in out
    code, out, err = colmeia_cli("review", "screen", "-c", "zotero", "--next", "0", "--json")
    assert code == 0, err
    prisma = json.loads(out)["prisma"]
    assert (prisma["identified"], prisma["screened"], prisma["excluded"]) == (3, 2, 1)
    assert prisma["exclusion_reasons"] == {"duplicado": 1}


def test_interactive_screening_saves_each_decision(colmeia_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    env = {"COLMEIA_EMBEDDINGS_MODEL": "none"}
    (tmp_path / "c.csv").write_text(_csv(), encoding="utf-8")
    assert colmeia_cli("review", "import", "c.csv", "-c", "col", env=env)[0] == 0
    # include (no notes), a typo, exclude with a reason, skip, then quit.
    answers = "i\n\nx\ne\nfora do tema\ns\nq\n"
    code, out, err = colmeia_cli(
        "review", "screen", "-c", "col", "--interactive", "--question", "saneamento",
        input=answers,
    )  # fmt: skip
    assert code == 0, err
    assert "answer i, e, s or q" in out
    code, out, _ = colmeia_cli("review", "screen", "-c", "col", "--json")
    prisma = json.loads(out)["prisma"]
    assert (prisma["screened"], prisma["excluded"], prisma["full_text_sought"]) == (2, 1, 1)
    assert prisma["exclusion_reasons"] == {"fora do tema": 1}
    # Without a terminal and without --interactive, the command says what to give.
    code, _, err = colmeia_cli("review", "screen", "-c", "col")
    assert code == 2
    assert "give --decide ID include|exclude or --next N" in err
