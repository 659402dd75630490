"""Retrieval behaviour the mutation run found unguarded: the index saved beside the store and
read back by another process, filters on stopword queries and on combined fields, the year and
program bounds, ties, how deep the vector candidates go, what a hit carries and what the
reranker is given (real SQLite stores in temp folders, small deterministic embedders).
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from colmeia.rag.retrieve import DEFAULT_DENSE_WEIGHT, Filters, Hit, Retriever, score_fuse
from colmeia.store import Store, StoredChunk, StoredDocument, open_store

# -- helpers -------------------------------------------------------------------------------------

# The vector side without what a keyword query gets by default (both query forms, dense
# feedback: tests/rag/test_dense_query_forms_feedback.py), for tests of the fusion itself.
PLAIN_VECTOR: dict[str, Any] = {"both_query_forms": False, "feedback_passages": 0}


def _db(folder: Path) -> str:
    return str(folder / "colmeia.db")


def _same_store_by_another_path(tmp_path: Path, folder: Path) -> Store:
    """The store in ``folder`` opened through a symbolic link: another URL for the same files,
    so nothing this process keeps in memory for the first URL is used (as in a new process)."""
    link = tmp_path / "link"
    if not link.exists():
        link.symlink_to(folder, target_is_directory=True)
    return open_store(_db(link))


class Table:
    """An embedder that looks each text's vector up in a table (unknown texts: the last axis)."""

    name = "table-v1"

    def __init__(self, vectors: dict[str, list[float]], dim: int = 4) -> None:
        self.vectors = vectors
        self.dim = dim

    def embed(self, texts: Any) -> Any:
        rows = np.zeros((len(texts), self.dim), np.float32)
        for i, text in enumerate(texts):
            rows[i] = self.vectors.get(text, [0.0] * (self.dim - 1) + [1.0])
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _vector_store(
    folder: Path, embedder: Table, docs: dict[str, tuple[int | None, list[str]]]
) -> Store:
    """Documents ``doc_id: (year, passages)`` with their vectors; passages do not overlap."""
    store = open_store(_db(folder))
    for doc_id, (year, passages) in docs.items():
        chunks = [
            StoredChunk(f"{doc_id}#{i}", doc_id, i, t, char_start=100 * i, char_end=100 * i + 50)
            for i, t in enumerate(passages)
        ]
        store.replace_document(
            "c",
            StoredDocument(doc_id, "h", title=doc_id.upper(), year=year),
            chunks,
            vectors=embedder.embed(passages),
        )
    store.set_embedder("c", embedder.name, embedder.dim)
    return store


# -- the index saved beside the store ------------------------------------------------------------

PROGRAM_DH = "Programa de Pós-Graduação em Direitos Humanos"


def _catalogue(folder: Path) -> Store:
    """Four documents of different types, years and programs; one with overlapping windows."""
    store = open_store(_db(folder))
    docs: list[tuple[StoredDocument, list[tuple[str, int, int]]]] = [
        (
            StoredDocument("lei-a", "h", title="Lei A", doc_type="Lei", year=2019),
            [
                ("prazo de recurso prazo", 0, 100),
                ("prazo de recurso", 50, 150),  # overlaps the first
                ("prazo", 150, 200),
                ("recurso de prazo curto", 300, 350),
            ],
        ),
        (
            StoredDocument(
                "tese-b",
                "h",
                title="Tese B",
                doc_type="Tese",
                year=2021,
                metadata={"Programa": PROGRAM_DH},
            ),
            [("prazo de recurso administrativo", 0, 50), ("recurso", 60, 90)],
        ),
        (
            StoredDocument("nota-c", "h", title="Nota C", doc_type="Nota Técnica"),
            [("prazo do recurso", 0, 40)],
        ),
        (
            StoredDocument(
                "dec-d", "h", doc_type="Decreto", year=2020, metadata={"programa": "Direito"}
            ),
            [("prazo de recurso", 0, 30), ("o prazo", 40, 60)],
        ),
    ]
    for doc, passages in docs:
        store.replace_document(
            "c",
            doc,
            [
                StoredChunk(f"{doc.doc_id}#{i}", doc.doc_id, i, t, char_start=a, char_end=b)
                for i, (t, a, b) in enumerate(passages)
            ],
        )
    return store


SEARCHES: list[tuple[Filters | None, int | None]] = [
    (None, None),
    (Filters(doc_type="tese", year_from=2020, program="direitos humanos"), None),
    (Filters(year_to=2020), 2),
]


def _answers(store: Store) -> list[list[tuple[str, float]]]:
    out = []
    for filters, cap in SEARCHES:
        hits = Retriever(store, "c").search(
            "prazo de recurso", 20, filters=filters, per_document=cap
        )
        out.append([(h.chunk_id, round(h.score, 9)) for h in hits])
    return out


def test_another_process_reads_the_saved_index_and_finds_the_same(tmp_path: Path) -> None:
    """The index one process saved is loaded, not rebuilt, by the next one (the files are not
    rewritten), and every filter, the per-document cap and the overlap rule work on it as on the
    index just built."""
    folder = tmp_path / "store"
    first = _catalogue(folder)
    built = _answers(first)
    assert [c for c, _ in built[0]][:3] == ["dec-d#0", "lei-a#0", "nota-c#0"]
    assert "lei-a#1" not in dict(built[0])  # overlaps lei-a#0, which scores better
    assert [c for c, _ in built[1]] == ["tese-b#0", "tese-b#1"]
    assert sorted(c for c, _ in built[2]) == ["dec-d#0", "dec-d#1", "lei-a#0", "lei-a#3"]
    saved = next((first.index_dir / "c").iterdir()) / "positions.json"
    before = os.stat(saved)

    again = _same_store_by_another_path(tmp_path, folder)
    assert again.url != first.url
    assert _answers(again) == built
    after = os.stat(saved)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_the_saved_vector_index_is_read_back_not_rebuilt(tmp_path: Path) -> None:
    """Another process loads the saved vector file of the current generation: same hits, the
    file untouched and still the only one."""
    embedder = Table({"apelação": [1, 0, 0, 0], "prazo de dez dias": [0, 1, 0, 0]})
    folder = tmp_path / "store"
    first = _vector_store(
        folder, embedder, {"a": (2019, ["apelação"]), "b": (2020, ["prazo de dez dias"])}
    )
    found = [h.chunk_id for h in Retriever(first, "c", embedder=embedder).search("apelação", 5)]
    assert found[0] == "a#0"
    info = first.collection("c")
    assert info is not None
    dense = first.index_dir / "c" / f"dense-g{info.generation}.faiss"
    before = os.stat(dense)
    again = _same_store_by_another_path(tmp_path, folder)
    r = Retriever(again, "c", embedder=embedder)
    assert [h.chunk_id for h in r.search("apelação", 5)] == found
    assert [h.chunk_id for h in r.search("apelação", 5)] == found
    assert sorted(p.name for p in dense.parent.glob("dense-*")) == [dense.name]
    after = os.stat(dense)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_damaged_saved_index_is_rebuilt_and_saved_whole(tmp_path: Path) -> None:
    """A saved index missing its positions file is built again and saved complete; a leftover of
    an interrupted save is cleared first; another writer's unfinished folder is left alone."""
    folder = tmp_path / "store"
    store = _catalogue(folder)
    Retriever(store, "c").warm()
    target = next((store.index_dir / "c").iterdir())
    tag = target.name
    (target / "positions.json").unlink()
    leftover = store.index_dir / "c" / f".{tag}.tmp"
    leftover.mkdir()
    (leftover / "stray.bin").write_text("half", encoding="utf-8")
    other = store.index_dir / "c" / ".g99-other.tmp"
    other.mkdir()
    again = _same_store_by_another_path(tmp_path, folder)
    hits = Retriever(again, "c").search("prazo de recurso", 3)
    assert len(hits) == 3
    assert {p.name for p in target.iterdir()} == {"lexical", "positions.json"}
    assert not leftover.exists()
    assert other.is_dir()


def test_a_rebuild_beside_a_vector_file_is_quiet(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """After a change the words index is rebuilt next to the vector file; clearing the old
    generation raises no warning and leaves one folder for the words index."""
    embedder = Table({"apelação": [1, 0, 0, 0]})
    store = _vector_store(tmp_path / "store", embedder, {"a": (2019, ["apelação"])})
    r = Retriever(store, "c", embedder=embedder)
    r.warm()
    store.replace_document(
        "c",
        StoredDocument("b", "h"),
        [StoredChunk("b#0", "b", 0, "apelação nova", char_end=10)],
        vectors=embedder.embed(["apelação nova"]),
    )
    with caplog.at_level(logging.WARNING, logger="colmeia.rag.retrieve"):
        assert next(h.doc_id for h in r.search("nova", 5)) == "b"
    assert [rec.getMessage() for rec in caplog.records] == []
    folders = [p.name for p in (store.index_dir / "c").iterdir() if p.is_dir()]
    assert len(folders) == 1 and folders[0].startswith("g2-")


def test_the_save_warnings_give_the_reason(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """When an index cannot be saved the log line names the operating system's reason, once:
    the index built is kept in memory, so later searches neither rebuild it nor warn again."""
    embedder = Table({"apelação": [1, 0, 0, 0]})
    store = _vector_store(tmp_path / "store", embedder, {"a": (2019, ["apelação"])})
    store.index_dir.mkdir(parents=True, exist_ok=True)
    (store.index_dir / "c").write_text("not a folder", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="colmeia.rag.retrieve"):
        r = Retriever(store, "c", embedder=embedder)
        for _ in range(3):
            assert r.search("apelação", 5)
        assert Retriever(store, "c", embedder=embedder).search("apelação", 5)
    messages = [r.getMessage() for r in caplog.records if r.name == "colmeia.rag.retrieve"]
    assert len(messages) == 2, messages
    for message in messages:
        assert message.startswith("could not save the ")
        assert "Not a directory" in message or "File exists" in message, message


# -- fusion of the two lists ---------------------------------------------------------------------


def test_score_fusion_refuses_lists_that_do_not_line_up() -> None:
    """Positions without a score each, or weights not one per list, are a caller's error, not
    something to truncate silently."""
    with pytest.raises(ValueError, match=r"shorter|longer"):
        score_fuse([([1, 2], [1.0])], [1.0])
    with pytest.raises(ValueError, match=r"shorter|longer"):
        score_fuse([([1], [1.0]), ([2], [1.0])], [1.0])


def test_score_fusion_breaks_ties_by_position() -> None:
    """Equal fused scores come back lowest position first, whatever order they came in."""
    fused = score_fuse([([8, 1, 17], [1.0, 1.0, 1.0])], [1.0])
    assert [p for p, _, _ in fused] == [1, 8, 17]


def _fusion_store(folder: Path) -> tuple[Store, Table]:
    """Words favour p1 ("prazo" three times); vectors favour p2, then p3, then p1."""
    embedder = Table(
        {
            "prazo": [1, 0, 0, 0],
            "prazo prazo prazo": [0, 1, 0, 0],
            "outro texto": [0.5, 0.5, 0, 0],
        }
    )
    store = _vector_store(
        folder,
        embedder,
        {
            "p1": (None, ["prazo prazo prazo"]),
            "p2": (None, ["prazo"]),
            "p3": (None, ["outro texto"]),
        },
    )
    return store, embedder


def test_dense_weight_sets_how_much_the_vectors_count(tmp_path: Path) -> None:
    """By default vectors count DEFAULT_DENSE_WEIGHT (0.3) and words the rest; with
    dense_weight=1 the order and the score are the vectors' alone (their z-score); with 0 the
    words' alone."""
    store, embedder = _fusion_store(tmp_path)

    def scores(**kw: Any) -> list[tuple[str, float]]:
        # the fusion of the query's own vector: no dense feedback, one query form
        hits = Retriever(store, "c", embedder=embedder, **PLAIN_VECTOR, **kw).search("prazo", 5)
        return [(h.doc_id, h.score) for h in hits]

    assert DEFAULT_DENSE_WEIGHT == 0.3
    assert scores() == scores(dense_weight=DEFAULT_DENSE_WEIGHT) != scores(dense_weight=0.5)
    dense = np.array([1.0, np.sqrt(0.5), 0.0])  # cosines of p2, p3, p1 with the query
    z = (dense - dense.mean()) / dense.std()
    only_vectors = scores(dense_weight=1.0)
    assert [d for d, _ in only_vectors] == ["p2", "p3", "p1"]
    assert [s for _, s in only_vectors] == pytest.approx(list(z), abs=1e-6)
    only_words = scores(dense_weight=0.0)
    assert [d for d, _ in only_words][:2] == ["p1", "p2"]
    assert only_words[0][1] == pytest.approx(1.0)  # two word candidates: ±1 deviation
    assert only_words[1][1] == pytest.approx(-1.0)


def test_minmax_fusion_scores_lie_between_zero_and_one(tmp_path: Path) -> None:
    """With ``fusion="minmax"`` each list is scaled to [0, 1]: p1 tops the words and is last in
    the vectors, p2 the reverse, so both score one half; p3, missed by the words, scores half
    its scaled cosine."""
    store, embedder = _fusion_store(tmp_path)
    hits = Retriever(
        store, "c", embedder=embedder, fusion="minmax", dense_weight=0.5, **PLAIN_VECTOR
    ).search("prazo", 5)
    assert {h.doc_id: h.score for h in hits} == pytest.approx(
        {"p1": 0.5, "p2": 0.5, "p3": 0.5 * np.sqrt(0.5)}, abs=1e-6
    )


# -- what a hit carries and what the reranker gets -----------------------------------------------


def _plain_store(folder: Path, docs: dict[str, list[tuple[str, int, int]]]) -> Store:
    store = open_store(_db(folder))
    for doc_id, passages in docs.items():
        store.replace_document(
            "c",
            StoredDocument(doc_id, "h", title=doc_id.upper(), doc_type="Lei", year=2019),
            [
                StoredChunk(
                    f"{doc_id}#{i}", doc_id, i, t, char_start=a, char_end=b, heading=f"Art. {i}"
                )
                for i, (t, a, b) in enumerate(passages)
            ],
        )
    return store


def test_a_hit_carries_the_passage_text_heading_type_and_year(tmp_path: Path) -> None:
    """What a client shows of a hit comes from the stored passage and its document."""
    store = _plain_store(tmp_path, {"a": [("prazo de recurso", 0, 10)]})
    (hit,) = Retriever(store, "c").search("recurso", 5)
    assert (hit.text, hit.heading, hit.doc_type, hit.year) == (
        "prazo de recurso",
        "Art. 0",
        "Lei",
        2019,
    )


class _Vanishing:
    """The store, with some passages deleted by someone else while a search runs (after the
    index was read, before the passages are fetched)."""

    def __init__(self, store: Store, gone: set[str]) -> None:
        self._store = store
        self._gone = gone

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def get_chunks(self, collection: str, chunk_ids: Any) -> dict[str, StoredChunk]:
        got = self._store.get_chunks(collection, chunk_ids)
        return {k: v for k, v in got.items() if k not in self._gone}


def test_a_passage_deleted_during_the_search_is_skipped_not_the_rest(tmp_path: Path) -> None:
    """A passage gone by the time the hits are read is left out; the ones after it remain."""
    store = _plain_store(
        tmp_path,
        {"a": [("prazo de recurso", 0, 10)], "b": [("prazo", 0, 5)], "c": [("prazo x", 0, 5)]},
    )
    full = [h.chunk_id for h in Retriever(store, "c").search("prazo de recurso", 5)]
    assert full[0] == "a#0" and len(full) == 3
    r = Retriever(_Vanishing(store, {"a#0"}), "c")
    hits = r.search("prazo de recurso", 5)
    assert [h.chunk_id for h in hits] == full[1:]
    assert [h.rank for h in hits] == [1, 2]


def test_a_passage_that_only_touches_a_better_one_is_kept(tmp_path: Path) -> None:
    """Windows that meet at one offset share no text: the one ending where a better one starts
    is not an overlap."""
    store = _plain_store(tmp_path, {"a": [("prazo", 0, 100), ("prazo de recurso", 100, 200)]})
    hits = Retriever(store, "c").search("prazo de recurso", 5)
    assert [h.chunk_id for h in hits] == ["a#1", "a#0"]


def test_the_reranker_reorders_exactly_the_k_best(tmp_path: Path) -> None:
    """The reranker is handed the ``k`` best passages, no more (it cannot promote the next
    one), in the synchronous and the async search; asking for none returns none."""
    docs = {f"d{i}": [("prazo de recurso " + "x " * i, 0, 10)] for i in range(4)}
    store = _plain_store(tmp_path, docs)
    seen: list[int] = []

    class Reranker:
        async def rerank(self, query: str, hits: list[Hit]) -> list[Hit]:
            seen.append(len(hits))
            return list(reversed(hits))

    r = Retriever(store, "c", reranker=Reranker())
    assert [h.doc_id for h in r.search("prazo de recurso", 1)] == ["d0"]
    assert [h.doc_id for h in r.search("prazo de recurso", 2)] == ["d1", "d0"]
    assert [h.doc_id for h in asyncio.run(r.asearch("prazo de recurso", 1))] == ["d0"]
    assert seen == [1, 2, 1]
    assert asyncio.run(r.asearch("prazo de recurso", 0)) == []
    assert asyncio.run(Retriever(store, "c").asearch("prazo de recurso", 0)) == []


def test_ten_passages_by_default(tmp_path: Path) -> None:
    """``search`` without ``k`` gives ten passages."""
    store = _plain_store(tmp_path, {f"d{i:02}": [(f"prazo {i}", 0, 10)] for i in range(12)})
    assert len(Retriever(store, "c").search("prazo")) == 10


# -- filters -------------------------------------------------------------------------------------


def _typed_store(folder: Path, docs: dict[str, tuple[str, int | None, str, str]]) -> Store:
    """Documents ``doc_id: (type, year, program, text)``, one passage each."""
    store = open_store(_db(folder))
    for doc_id, (doc_type, year, program, text) in docs.items():
        store.replace_document(
            "c",
            StoredDocument(
                doc_id,
                "h",
                doc_type=doc_type,
                year=year,
                metadata={"programa": program} if program else {},
            ),
            [StoredChunk(f"{doc_id}#0", doc_id, 0, text, char_end=len(text))],
        )
    return store


def _found(store: Store, query: str, filters: Filters) -> set[str]:
    return {h.doc_id for h in Retriever(store, "c").search(query, 10, filters=filters)}


def test_a_query_of_stopwords_alone_still_respects_the_filters(tmp_path: Path) -> None:
    """ "o que é" is matched as plain words, but only in the documents the filters allow."""
    store = _typed_store(
        tmp_path,
        {"a": ("Lei", 2019, "", "o que é prazo"), "b": ("Tese", 2019, "", "o que é recurso")},
    )
    assert _found(store, "o que é", Filters()) == {"a", "b"}
    assert _found(store, "o que é", Filters(doc_type="lei")) == {"a"}


def test_filters_on_several_fields_must_all_hold(tmp_path: Path) -> None:
    """Type and year together: a law of another year or a thesis of that year is left out."""
    store = _typed_store(
        tmp_path,
        {
            "lei20": ("Lei", 2020, "", "prazo"),
            "lei19": ("Lei", 2019, "", "prazo"),
            "tese20": ("Tese", 2020, "", "prazo"),
        },
    )
    assert _found(store, "prazo", Filters(doc_type="lei", year=2020)) == {"lei20"}


def test_year_bounds_are_inclusive_and_an_unknown_year_is_never_in_a_range(
    tmp_path: Path,
) -> None:
    """A document of year 1 is within ``year_from=1`` and ``year_to=1``; a document without a
    year is outside every range, even one from year 0."""
    store = _typed_store(
        tmp_path,
        {"um": ("Lei", 1, "", "prazo"), "sem": ("Lei", None, "", "prazo")},
    )
    assert _found(store, "prazo", Filters(year_from=1)) == {"um"}
    assert _found(store, "prazo", Filters(year_to=1)) == {"um"}
    assert _found(store, "prazo", Filters(year_from=0)) == {"um"}


def test_a_program_filter_matches_words_at_the_start_of_the_program(tmp_path: Path) -> None:
    """ "direito" finds "Direito Constitucional" (the words begin the program's name)."""
    store = _typed_store(
        tmp_path,
        {
            "a": ("Tese", 2020, "Direito Constitucional", "prazo"),
            "b": ("Tese", 2020, "Educação", "prazo"),
        },
    )
    assert _found(store, "prazo", Filters(program="direito")) == {"a"}


# -- how deep the candidates go ------------------------------------------------------------------

# "gama" matches no passage's words: only the vectors rank, and the query points along the first
# axis.
GAMA = [1.0, 0.0, 0.0, 0.0]


def test_the_search_deepens_past_one_documents_vectors_to_fill_k(tmp_path: Path) -> None:
    """One document's four passages are the vectors' four best; with one passage per document
    and one candidate, the search still goes deeper and returns the second document."""
    embedder = Table(
        {
            "gama": GAMA,
            **{f"alfa {w}": [1.0, 0.1 * i, 0, 0] for i, w in enumerate(["um", "dois", "tres"])},
            "alfa quatro": [1.0, 0.3, 0, 0],
            "beta": [0.3, 1.0, 0, 0],
        }
    )
    store = _vector_store(
        tmp_path,
        embedder,
        {"a": (None, ["alfa um", "alfa dois", "alfa tres", "alfa quatro"]), "b": (None, ["beta"])},
    )
    r = Retriever(store, "c", embedder=embedder, candidates=1, per_document=1, **PLAIN_VECTOR)
    assert [h.chunk_id for h in r.search("gama", 2)] == ["a#0", "b#0"]


def _four_by_vectors(folder: Path) -> tuple[Store, Table]:
    """Four passages in the vectors' order x1, y1, y2, x2 for "gama"; the x ones from 2019."""
    embedder = Table(
        {
            "gama": GAMA,
            "xis um": [1.0, 0.0, 0.0, 0.0],
            "ipsilon um": [0.9, 0.44, 0.0, 0.0],
            "ipsilon dois": [0.5, 0.87, 0.0, 0.0],
            "xis dois": [0.0, 0.0, 1.0, 0.0],
        }
    )
    store = _vector_store(
        folder,
        embedder,
        {
            "x1": (2019, ["xis um"]),
            "y1": (2020, ["ipsilon um"]),
            "y2": (2020, ["ipsilon dois"]),
            "x2": (2019, ["xis dois"]),
        },
    )
    return store, embedder


def test_scores_are_normalised_over_the_candidate_list(tmp_path: Path) -> None:
    """The fused score of the best passage depends on how many candidates it is measured
    against: ``candidates``, or ``k × per_document`` when that is more. Two candidates put
    the best one standard deviation above their mean (0.5 × 1 with the words missing); one
    candidate alone has no spread (0)."""
    store, embedder = _four_by_vectors(tmp_path)

    def best(candidates: int, per_document: int) -> Hit:
        r = Retriever(
            store,
            "c",
            embedder=embedder,
            candidates=candidates,
            per_document=per_document,
            dense_weight=0.5,
        )
        (hit,) = r.search("gama", 1)
        return hit

    assert best(2, 0).doc_id == "x1"
    assert best(2, 0).score == pytest.approx(0.5)
    assert best(1, 2).score == pytest.approx(0.5)  # 1 × 2 passages per document
    assert best(1, 1).score == pytest.approx(0.0)


def test_a_filter_keeps_as_many_vector_candidates(tmp_path: Path) -> None:
    """Filtering out the vectors' best passage does not leave the next one to be scored alone:
    the search looks further, so the filtered list has its two candidates too."""
    store, embedder = _four_by_vectors(tmp_path)
    r = Retriever(store, "c", embedder=embedder, candidates=2, per_document=0, dense_weight=0.5)
    (hit,) = r.search("gama", 1, filters=Filters(year=2020))
    assert (hit.doc_id, hit.dense_rank) == ("y1", 1)
    assert hit.score == pytest.approx(0.5)


# -- ties ----------------------------------------------------------------------------------------


def test_a_tie_between_collections_goes_to_the_first_collection_by_name(tmp_path: Path) -> None:
    """Two collections with the same texts (in a different order) score the matching passage
    the same; it is listed from "leis" before "normas", however the collections were named."""
    store = open_store(_db(tmp_path))
    for name, texts in (("leis", ["outro texto", "prazo"]), ("normas", ["prazo", "outro texto"])):
        for doc_id, text in zip(("a", "b"), texts, strict=True):
            store.replace_document(
                name,
                StoredDocument(doc_id, "h"),
                [StoredChunk(f"{doc_id}#0", doc_id, 0, text, char_end=len(text))],
            )
    hits = Retriever(store, ["normas", "leis"]).search("prazo", 5)
    assert hits[0].score == hits[1].score
    assert [(h.collection, h.doc_id) for h in hits] == [("leis", "b"), ("normas", "a")]


def test_a_rank_fusion_tie_goes_to_the_passage_stored_first(tmp_path: Path) -> None:
    """With one candidate per list, the words' best and the vectors' best both score
    1/(60 + 1); the one stored first wins."""
    embedder = Table({"prazo": GAMA, "outro": GAMA, "prazo curto": [0.0, 1.0, 0.0, 0.0]})
    store = _vector_store(
        tmp_path, embedder, {"a": (None, ["outro"]), "b": (None, ["prazo curto"])}
    )
    r = Retriever(store, "c", embedder=embedder, fusion="rrf", candidates=1, per_document=0)
    (hit,) = r.search("prazo", 1)
    assert (hit.doc_id, hit.lexical_rank, hit.dense_rank) == ("a", None, 1)
    assert hit.score == pytest.approx(1 / 61)


# -- the query vector ----------------------------------------------------------------------------


def test_the_query_vector_is_float32_whatever_the_embedder_returns(tmp_path: Path) -> None:
    """An embedder answering in float64 lists still gives a float32 query vector."""

    class Float64:
        name = "f64"

        def embed(self, texts: Any) -> Any:
            return [[1.0, 0.5] for _ in texts]

    store = _plain_store(tmp_path, {"a": [("prazo", 0, 5)]})
    vec = Retriever(store, "c", embedder=Float64()).embed_query("prazo")
    assert vec.dtype == np.float32
    assert vec.tolist() == [1.0, 0.5]


def test_an_empty_collection_filtered_by_program_finds_nothing(tmp_path: Path) -> None:
    """A collection with no passages yet answers a program-filtered search with no hits."""
    store = _plain_store(tmp_path, {"a": [("prazo", 0, 5)]})
    store.ensure_collection("vazia")
    for filters in (Filters(program="direito"), Filters(program="direito", year_from=2000)):
        assert Retriever(store, "vazia").search("prazo", 5, filters=filters) == []
    assert Retriever(store, ["vazia", "c"]).search("prazo", 5, filters=Filters(program="x")) == []


def test_a_collection_whose_vectors_were_all_replaced_without_is_searched_by_words(
    tmp_path: Path,
) -> None:
    """A collection embedded once and then re-ingested without an embedder keeps its embedder's
    name but has no vector left: a search with that embedder falls back to the words (it used
    to fail inside the vector library), and no vectors are handed back."""
    embedder = Table({"apelação": [1, 0, 0, 0]})
    store = _vector_store(tmp_path, embedder, {"a": (None, ["apelação"])})
    store.replace_document(
        "c", StoredDocument("a", "h2"), [StoredChunk("a#0", "a", 0, "apelação nova", char_end=9)]
    )
    info = store.collection("c")
    assert info is not None and info.embedder == embedder.name
    r = Retriever(store, "c", embedder=embedder)
    hits = r.search("apelação", 5)
    assert [(h.chunk_id, h.lexical_rank, h.dense_rank) for h in hits] == [("a#0", 1, None)]
    assert r.chunk_vectors(["a#0"]) == {}


def test_score_fusion_computes_in_double_precision_whatever_the_input() -> None:
    """Scores handed over as a float32 array fuse to exactly what the same values give as
    Python floats (the lexical index scores in float32)."""
    scores32 = np.array([0.1, 0.2, 0.7], np.float32)
    for normalize in ("zscore", "minmax"):
        from_array = score_fuse([([1, 2, 3], scores32)], [1.0], normalize)  # type: ignore[list-item]
        from_floats = score_fuse([([1, 2, 3], scores32.tolist())], [1.0], normalize)
        assert from_array == from_floats
