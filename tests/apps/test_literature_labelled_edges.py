"""The labelled set at its edges: what a reader is told about a bad line or a missing file,
where the shipped set is looked for, a relevant work found past rank 10, the figures per
question and the report as JSON, and the rankings a labelled run compares when an embedder or
a model reranker is configured."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from literature_helpers import library_store

from colmeia.apps.literature import import_library, labelled
from colmeia.apps.literature.labelled import (
    LabelledQuestion,
    aevaluate_labelled,
    labelled_set_path,
    read_labelled,
)
from colmeia.errors import ConfigurationError, InputError
from colmeia.rag.index.embedders import normalize
from colmeia.rag.retrieve import Hit
from colmeia.sim.engine import hashed_embedding
from colmeia.store import Store, open_store

# Twelve works that say "escola" once each in ever longer abstracts: BM25 ranks them by
# length, W01 first and W12 last; one work on another subject is never found for "escola".
FILLER = "palavra"
ESCOLA = {f"W{i:02d}": (f"Trabalho {i}", "A escola " + " ".join([FILLER] * i) + ".") for i in range(1, 13)}  # fmt: skip
OTHER = ("Saneamento", "Consórcios de esgoto.")
CSV = "Titulo,Resumo\n" + "".join(f'"{t}","{a}"\n' for t, a in [*ESCOLA.values(), OTHER])


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    yield from library_store(tmp_path, CSV)


def _ids(store: Store) -> dict[str, str]:
    by_title = {d.title: d.doc_id for d in store.documents("col")}
    out = {key: by_title[title] for key, (title, _) in ESCOLA.items()}
    out["other"] = by_title[OTHER[0]]
    return out


def _write(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "set.jsonl"
    path.write_text(
        "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n", "utf-8"
    )
    return path


# -- reading the file -------------------------------------------------------------------------


def test_a_relevant_item_that_is_no_record_id_is_named_and_the_line_skipped(
    tmp_path: Path,
) -> None:
    path = _write(
        tmp_path,
        {"id": "a", "question": "q", "relevant": ["  "]},
        {"id": "b", "question": "q", "relevant": [5]},
        {"id": "c", "question": "q", "relevant": [{"title": "sem id"}]},
        [1, 2],
        {"question": "  onde   está\n a escola? ", "relevant": [" rec:1 ", {"id": "rec:2 "}]},
    )
    questions, problems = read_labelled(path)
    assert problems == [
        f"{path}, line 1: \"relevant\" holds '  ', not a record id "
        '(or {"id": ..., "title": ...}); skipped',
        f'{path}, line 2: "relevant" holds 5, not a record id (or {{"id": ..., "title": ...}}); '
        "skipped",
        f"{path}, line 3: \"relevant\" holds {{'title': 'sem id'}}, not a record id "
        '(or {"id": ..., "title": ...}); skipped',
        f'{path}, line 4: needs "question", a text; skipped',
    ]
    # A line without an id is named by its line; the question's spacing is made single and
    # the ids are read without the spaces around them.
    assert questions == [LabelledQuestion("line 5", "onde está a escola?", ("rec:1", "rec:2"))]


def test_a_file_that_cannot_be_read_says_why_in_words(tmp_path: Path) -> None:
    missing = tmp_path / "nada.jsonl"
    with pytest.raises(InputError) as caught:
        read_labelled(missing)
    assert str(caught.value) == f"cannot read the labelled set {missing}: No such file or directory"
    binary = tmp_path / "latin1.jsonl"
    binary.write_bytes('{"question": "educação"}'.encode("latin-1"))
    with pytest.raises(InputError) as caught:
        read_labelled(binary)
    assert str(caught.value).startswith(f"cannot read the labelled set {binary}: 'utf-8' codec")


def test_a_file_with_no_question_says_what_a_line_looks_like(tmp_path: Path) -> None:
    path = _write(tmp_path, "")
    with pytest.raises(InputError) as caught:
        read_labelled(path)
    assert str(caught.value) == (
        f"the labelled set {path} holds no question "
        '(one JSON per line: {"id": ..., "question": ..., "relevant": [record ids]})'
    )


# -- where the shipped set is looked for ------------------------------------------------------


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Three folders that may hold theses/labelled.jsonl: COLMEIA_DATA_DIR's, the working
    folder's data/ and the data/ of the clone the module sits in (none of them yet)."""
    clone = tmp_path / "clone"
    module = clone / "src" / "colmeia" / "apps" / "literature" / "labelled.py"
    monkeypatch.setattr(labelled, "__file__", str(module))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.delenv("COLMEIA_DATA_DIR", raising=False)
    return {"explicit": tmp_path / "mine", "cwd": work / "data", "clone": clone / "data"}


def _ship(folder: Path) -> Path:
    path = folder / "theses" / "labelled.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("{}\n", encoding="utf-8")
    return path


def test_the_shipped_set_is_looked_for_in_the_data_folder_named_then_here_then_the_clone(
    places: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        labelled_set_path()
    assert str(caught.value) == (
        "the labelled set data/theses/labelled.jsonl ships with colmeia's repository and was "
        "not found here; run from a clone or pass the file: --labelled FILE"
    )
    in_clone = _ship(places["clone"])
    assert labelled_set_path() == in_clone
    here = _ship(places["cwd"])
    assert labelled_set_path() == here
    monkeypatch.setenv("COLMEIA_DATA_DIR", str(places["explicit"]))
    assert labelled_set_path() == here  # the folder named does not hold it: the next one
    named = _ship(places["explicit"])
    assert labelled_set_path() == named


# -- the figures ------------------------------------------------------------------------------


def test_a_relevant_work_found_at_rank_11_counts_for_mrr_but_not_at_10(
    store: Store, tmp_path: Path
) -> None:
    ids = _ids(store)
    questions = [
        LabelledQuestion("past10", "escola", (ids["W11"],)),
        # Two relevant works at ranks 10 and 11: half found by rank 10, nDCG@10 of one of two.
        LabelledQuestion("both", "escola", (ids["W10"], ids["W11"])),
        # Found by no ranking: no first relevant rank, every figure 0.
        LabelledQuestion("never", "escola", (ids["other"],)),
    ]
    calls: list[tuple[int, int, str]] = []
    report = asyncio.run(
        aevaluate_labelled(store, "col", questions, progress=lambda *a: calls.append(a))
    )
    assert calls == [(1, 3, "labelled"), (2, 3, "labelled"), (3, 3, "labelled")]
    ndcg_both = (1 / math.log2(11)) / (1 + 1 / math.log2(3))
    assert report.variants["lexical"] == {
        "p@5": 0.0,
        "recall@5": 0.0,
        "recall@10": round((0 + 0.5 + 0) / 3, 4),
        "mrr": round((1 / 11 + 1 / 10 + 0) / 3, 4),
        "ndcg@10": round(ndcg_both / 3, 4),
    }
    rows = {r["id"]: r for r in report.per_question}
    assert rows["past10"]["lexical"] == {"first_relevant": 11, "p@5": 0.0}
    assert rows["never"]["lexical"] == {"first_relevant": None, "p@5": 0.0}
    assert rows["both"]["question"] == "escola"


def test_the_report_as_json_names_everything_it_measured(store: Store) -> None:
    ids = _ids(store)
    questions = [LabelledQuestion("q1", "escola", (ids["W01"], "rec:a", "rec:b", "rec:c", "rec:d"))]
    report = asyncio.run(aevaluate_labelled(store, "col", questions))
    data = report.as_dict()
    # Of more than three works missing, the note names the first three.
    note = "q1: 4 of 5 relevant works are not in col (rec:a, rec:b, rec:c); measured on the rest"
    assert data == {
        "collection": "col",
        "labelled_set": "",
        "questions": 1,
        "depth": 100,
        "variants": report.variants,
        "seconds_per_query": {k: v["mean"] for k, v in report.seconds.items()},
        "seconds_per_query_sd": {"lexical": None, "reranked": None},
        "seconds_per_query_n": {"lexical": 1, "reranked": 1},
        "per_question": [
            {
                "id": "q1",
                "question": "escola",
                "relevant": [ids["W01"]],
                "lexical": {"first_relevant": 1, "p@5": 0.2},
                "reranked": report.per_question[0]["reranked"],
            }
        ],
        "skipped_lines": [],
        "notes": [note],
    }


def test_the_depth_asked_bounds_every_ranking(store: Store) -> None:
    ids = _ids(store)
    questions = [LabelledQuestion("q", "escola", (ids["W11"],))]
    report = asyncio.run(aevaluate_labelled(store, "col", questions, depth=5, source="mine"))
    assert (report.depth, report.source, report.collection) == (5, "mine", "col")
    assert report.variants["lexical"]["mrr"] == 0.0  # rank 11 is past the depth of 5
    assert report.per_question[0]["lexical"]["first_relevant"] is None


def test_a_missing_collection_or_one_without_the_relevant_works_says_what_to_do(
    store: Store,
) -> None:
    q = [LabelledQuestion("q", "escola", ("rec:0000000000000000",))]
    with pytest.raises(ConfigurationError) as caught:
        asyncio.run(aevaluate_labelled(store, "nenhuma", q))
    assert str(caught.value) == (
        f"no collection named 'nenhuma' in {store.url}; import the works first "
        "(`colmeia review import FILE --collection NAME`) or see `colmeia collections`"
    )
    with pytest.raises(ConfigurationError) as caught:
        asyncio.run(aevaluate_labelled(store, "col", q))
    assert str(caught.value) == (
        "none of the labelled set's relevant works is in col: the shipped set "
        "is written over data/theses/capes_resumos.csv (`colmeia review import` it), a set "
        "of your own names the record ids of your catalogue (`rec:…`, `doi:…`, `hdl:…`)"
    )


# -- the rankings compared --------------------------------------------------------------------


class BagEmbedder:
    """A hashed bag of words: texts sharing words are near."""

    name = "bag"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return normalize(np.asarray([hashed_embedding(t, 64) for t in texts], np.float32))


class ReverseReranker:
    """A model reranker that puts the works it is given in the reverse order."""

    async def rerank(self, query: str, hits: Sequence[Hit]) -> list[Hit]:
        return list(reversed(hits))


def test_an_embedder_adds_dense_and_hybrid_and_a_model_reranker_its_own_order(
    tmp_path: Path,
) -> None:
    (tmp_path / "c.csv").write_text(CSV, encoding="utf-8")
    st = open_store(f"sqlite:///{tmp_path / 'v.db'}", cache_dir=tmp_path / "cache")
    try:
        emb = BagEmbedder()
        import_library(st, "col", [tmp_path / "c.csv"], embedder=emb)
        ids = _ids(st)
        q = [LabelledQuestion("q", "escola", (ids["W01"],))]
        report = asyncio.run(
            aevaluate_labelled(st, "col", q, embedder=emb, reranker=ReverseReranker())
        )
    finally:
        st.close()
    assert list(report.variants) == ["lexical", "dense", "hybrid", "reranked", "reranked (model)"]
    row = report.per_question[0]
    # Lexical finds the twelve works that say "escola"; dense finds all thirteen, and so does
    # hybrid. The model reranker reverses the thirteen of the offline rerank.
    assert row["lexical"]["first_relevant"] == 1
    assert row["hybrid"]["first_relevant"] is not None
    first = row["reranked"]["first_relevant"]
    assert row["reranked (model)"]["first_relevant"] == 13 + 1 - first
