"""`colmeia eval review --labelled FILE`: questions with several relevant works each, P@5,
recall@5/@10, MRR and nDCG@10 per ranking, offline; a bad line is one line on stderr and is
skipped. The catalogue is small enough that every figure is known by hand."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from literature_helpers import library_store

from colmeia.apps.literature import labelled, rankings
from colmeia.apps.literature.labelled import aevaluate_labelled, read_labelled
from colmeia.apps.literature.records import load_records
from colmeia.errors import InputError
from colmeia.store import Store
from shared_data import DATA_DIR

# Four works on distinct subjects, then six that say "escola" once each in ever longer
# abstracts: BM25 ranks those six by length, E1 first and E6 last.
WORKS = {
    "A": ("Consórcios de saneamento", "Consórcios municipais de saneamento e esgoto."),
    "B": ("Tarifas de água", "Tarifas sociais de água e esgoto em cidades pequenas."),
    "C": ("Vacinação infantil", "Campanhas de vacinação em unidades de saúde."),
    "D": ("Mobilidade urbana", "Ônibus e linhas noturnas nas periferias."),
    "E1": ("Leitura", "A escola lê."),
    "E2": ("Merenda", "A escola serve merenda farta diariamente."),
    "E3": ("Música", "A escola ensina música para crianças pequenas nas séries iniciais."),
    "E4": ("Bibliotecas", "A escola mantém bibliotecas comunitárias abertas aos moradores do bairro aos sábados."),
    "E5": ("Recreio", "A escola organiza o recreio com brincadeiras tradicionais, jogos cooperativos e rodas de conversa entre turmas."),
    "E6": ("Uniformes", "A escola discute uniformes, regras de convivência, horários de entrada, punições, advertências e combinados feitos com famílias e estudantes."),
}  # fmt: skip
CSV = "Titulo,Resumo\n" + "".join(f'"{t}","{a}"\n' for t, a in WORKS.values())


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    yield from library_store(tmp_path, CSV)


def _ids(store: Store) -> dict[str, str]:
    """Work key (A, B, …) → the record id the import gave it."""
    by_title = {d.title: d.doc_id for d in store.documents("col")}
    return {key: by_title[title] for key, (title, _) in WORKS.items()}


def _lines(ids: dict[str, str]) -> list[str]:
    return [
        # "esgoto": A and B found first (either order), C never: P@5 2/5, recall 2/3, RR 1.
        json.dumps({"id": "q1", "question": "esgoto", "relevant": [ids["A"], ids["B"], ids["C"]]}),
        # "escola": E5 and E6 at ranks 5 and 6.
        json.dumps(
            {
                "id": "q2",
                "question": "escola",
                "relevant": [{"id": ids["E5"], "title": "Recreio"}, ids["E6"]],
            }
        ),
        "",
        "{not json",
        json.dumps({"id": "q3", "question": "  ", "relevant": [ids["A"]]}),
        json.dumps({"id": "q4", "question": "saneamento", "relevant": []}),
        # Only a work of another catalogue: skipped with a note; one of two: measured on one.
        json.dumps({"id": "q5", "question": "saneamento", "relevant": ["rec:0000000000000000"]}),
        json.dumps({"id": "q6", "question": "vacinação", "relevant": [ids["C"], "doi:10.1/x"]}),
    ]


def _ndcg(ranks: list[int], relevant: int) -> float:
    dcg = sum(1 / math.log2(r + 1) for r in ranks)
    return dcg / sum(1 / math.log2(i + 2) for i in range(relevant))


# Expected per question (lexical): P@5, recall@5, recall@10, RR, nDCG@10.
Q1 = (2 / 5, 2 / 3, 2 / 3, 1.0, _ndcg([1, 2], 3))
Q2 = (1 / 5, 1 / 2, 1.0, 1 / 5, _ndcg([5, 6], 2))
Q6 = (1 / 5, 1.0, 1.0, 1.0, 1.0)


def test_a_bad_line_is_named_and_skipped_and_the_rest_is_read(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    path.write_text("\n".join(_lines(dict.fromkeys(WORKS, "rec:x"))) + "\n", encoding="utf-8")
    questions, problems = read_labelled(path)
    assert [q.id for q in questions] == ["q1", "q2", "q5", "q6"]
    assert questions[1].relevant == ("rec:x",)  # an id given twice counts once
    assert problems == [
        f"{path}, line 4: not JSON (Expecting property name enclosed in double quotes); skipped",
        f'{path}, line 5: needs "question", a text; skipped',
        f'{path}, line 6: needs "relevant": a non-empty list of record ids; skipped',
    ]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(InputError, match="holds no question"):
        read_labelled(empty)


def test_figures_per_ranking_on_a_catalogue_whose_answers_are_known(
    store: Store, tmp_path: Path
) -> None:
    ids = _ids(store)
    path = tmp_path / "l.jsonl"
    path.write_text("\n".join(_lines(ids)) + "\n", encoding="utf-8")
    questions, _ = read_labelled(path)
    report = asyncio.run(aevaluate_labelled(store, "col", questions, source=path.name))
    assert report.questions == 3  # q5 names no work of the collection
    assert list(report.variants) == ["lexical", "reranked"]  # no embedder: no dense, hybrid
    keys = ("p@5", "recall@5", "recall@10", "mrr", "ndcg@10")
    expected = {k: round(sum(q[i] for q in (Q1, Q2, Q6)) / 3, 4) for i, k in enumerate(keys)}
    assert report.variants["lexical"] == expected
    # The rerank reorders works within each question's found set, not in or out of it.
    assert report.variants["reranked"]["recall@5"] == expected["recall@5"]
    rows = {r["id"]: r for r in report.per_question}
    assert rows["q2"]["lexical"] == {"first_relevant": 5, "p@5": 0.2}
    assert rows["q6"]["relevant"] == [ids["C"]]
    assert report.notes == [
        "q5: 1 of 1 relevant works are not in col (rec:0000000000000000); skipped",
        "q6: 1 of 2 relevant works are not in col (doi:10.1/x); measured on the rest",
    ]


def test_seconds_per_question_are_mean_and_sample_sd_of_the_times_measured(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A clock that makes lexical search take 0.1, 0.3 and 0.2 s and the rerank 1, 1, 4 s."""
    ticks = iter([0, 0.1, 10, 11, 20, 20.3, 30, 31, 40, 40.2, 50, 54])

    class Clock:
        @staticmethod
        def perf_counter() -> float:
            return float(next(ticks))

    monkeypatch.setattr(rankings, "time", Clock)
    ids = _ids(store)
    questions = [labelled.LabelledQuestion(f"q{i}", "esgoto", (ids["A"],)) for i in range(1, 4)]
    report = asyncio.run(aevaluate_labelled(store, "col", questions))
    assert report.seconds["lexical"] == {"mean": 0.2, "sd": 0.1, "n": 3}
    assert report.seconds["reranked"] == {"mean": 2.0, "sd": round(math.sqrt(3), 4), "n": 3}
    data = report.as_dict()
    assert data["seconds_per_query"] == {"lexical": 0.2, "reranked": 2.0}
    assert data["seconds_per_query_sd"] == {"lexical": 0.1, "reranked": 1.7321}
    assert data["seconds_per_query_n"] == {"lexical": 3, "reranked": 3}


def test_eval_review_labelled_from_the_command_line(tmp_path: Path, colmeia_cli) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "c.csv").write_text(CSV, encoding="utf-8")
    code, _, err = colmeia_cli("review", "import", str(tmp_path / "c.csv"), "-c", "col")
    assert code == 0, err
    st = library_store_ids(tmp_path)
    path = tmp_path / "l.jsonl"
    path.write_text("\n".join(_lines(st)) + "\n", encoding="utf-8")
    out = tmp_path / "rel"
    code, stdout, err = colmeia_cli(
        "eval", "review", "-c", "col", "--labelled", str(path), "--json", "--out", str(out)
    )
    assert code == 0, err
    # Each bad line: one line on stderr naming it (beside the progress lines); no traceback.
    assert [line for line in err.splitlines() if not line.startswith("eval: ")] == [
        f"error: {path}, line 4: not JSON (Expecting property name enclosed in double quotes); "
        "skipped",
        f'error: {path}, line 5: needs "question", a text; skipped',
        f'error: {path}, line 6: needs "relevant": a non-empty list of record ids; skipped',
    ]
    data = json.loads(stdout)
    assert data["questions"] == 3 and len(data["skipped_lines"]) == 3
    assert data["variants"]["lexical"]["p@5"] == round((2 / 5 + 1 / 5 + 1 / 5) / 3, 4)
    assert set(data["seconds_per_query_sd"]) == {"lexical", "reranked"}
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "ndcg@10" in html and " ± " in html
    # The table, as a person reads it.
    code, stdout, _ = colmeia_cli("eval", "review", "-c", "col", "--labelled", str(path))
    assert code == 0
    assert "3 labelled questions (l.jsonl; 3 lines skipped)" in stdout
    lexical = next(line for line in stdout.splitlines() if "lexical" in line)
    assert f"{data['variants']['lexical']['recall@10']}" in lexical and " ± " in lexical
    # The shipped set names works of the CAPES catalogue, none of which is here.
    code, _, err = colmeia_cli("eval", "review", "-c", "col", "--set", "labelled")
    assert code == 2
    assert err.startswith("configuration error: none of the labelled set's relevant works")
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    code, _, err = colmeia_cli("eval", "review", "-c", "col", "--labelled", str(tmp_path / "no"))
    assert (code, err.count("\n")) == (2, 1) and "cannot read the labelled set" in err


def library_store_ids(tmp_path: Path) -> dict[str, str]:
    """The record ids of the CLI's store (``COLMEIA_STORE`` of ``colmeia_cli``)."""
    from colmeia.store import open_store

    st = open_store(f"sqlite:///{tmp_path / 'home' / 'colmeia.db'}", mode="read")
    try:
        return _ids(st)
    finally:
        st.close()


def test_the_shipped_labelled_set_names_works_of_the_shipped_catalogue() -> None:
    """12 questions in Portuguese, 2-6 relevant works each, every one a record of
    data/theses/capes_resumos.csv by the id the import gives it, with its own title."""
    path = DATA_DIR / "theses" / "labelled.jsonl"
    questions, problems = read_labelled(path)
    assert problems == [] and len(questions) == 12
    assert len({q.id for q in questions}) == 12
    records = {
        r.id: r.title for r in load_records([DATA_DIR / "theses" / "capes_resumos.csv"]).records
    }
    for line in path.read_text("utf-8").splitlines():
        item = json.loads(line)
        assert 2 <= len(item["relevant"]) <= 6, item["id"]
        for work in item["relevant"]:
            assert records[work["id"]] == work["title"], (item["id"], work["id"])
    assert labelled.labelled_set_path().resolve() == path.resolve()
