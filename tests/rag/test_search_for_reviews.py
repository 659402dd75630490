"""Search and ingestion faults a literature review ran into, each with the case that showed it."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from colmeia.errors import ModelOutputError
from colmeia.rag.index.embedders import normalize
from colmeia.rag.index.lexical import LexicalConfig, LexicalIndex
from colmeia.rag.pipeline import ingest
from colmeia.rag.retrieve import Filters, Retriever
from colmeia.sim.engine import hashed_embedding
from colmeia.store import Store, open_store
from shared_data import DATA_DIR


def sqlite_store(tmp_path: Path) -> Store:
    return open_store(f"sqlite:///{tmp_path / 'store.db'}", cache_dir=tmp_path / "cache")


def long_thesis(folder: Path, paragraphs: int = 150) -> Path:
    body = "\n\n".join(
        f"Parágrafo {i}: a educação inclusiva nas escolas públicas, a educação inclusiva na "
        f"formação docente e as práticas pedagógicas no caso {i}."
        for i in range(paragraphs)
    )
    path = folder / "tese_longa.txt"
    path.write_text(body, encoding="utf-8")
    return path


def short_works(folder: Path, n: int = 12) -> list[Path]:
    out = []
    for i in range(n):
        path = folder / f"artigo_{i:02d}.txt"
        path.write_text(
            f"Artigo {i}: estudo de caso sobre formação de professores, com uma seção breve "
            "dedicada à educação inclusiva em redes municipais, estaduais e privadas de ensino, "
            "e questionários aplicados a professores e gestores de diferentes escolas.",
            encoding="utf-8",
        )
        out.append(path)
    return out


def test_per_document_cap_still_returns_k_works_when_one_thesis_fills_the_candidates(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    long_thesis(folder)
    short_works(folder)
    store = sqlite_store(tmp_path)
    ingest(store, "rev", [folder], chunker="paragraphs")
    query = "educação inclusiva"
    # The long thesis owns all of the first 100 candidates.
    plain = Retriever(store, "rev", candidates=100, merge_overlaps=False)
    top = plain.search(query, 100, per_document=0)
    assert {h.doc_id for h in top} == {str((folder / "tese_longa.txt").resolve())}

    hits = Retriever(store, "rev", candidates=100).search(query, 10, per_document=1)

    assert len(hits) == 10
    assert len({h.doc_id for h in hits}) == 10
    works = Retriever(store, "rev").search_documents(query, 10, per_document=1)
    assert len(works) == 10
    store.close()


def test_overlapping_windows_come_back_as_one_passage_per_region(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    long_thesis(folder, paragraphs=40)
    store = sqlite_store(tmp_path)
    ingest(store, "rev", [folder], chunker="paragraphs")
    query = "caso 17 avaliação educação inclusiva"

    hits = Retriever(store, "rev").search(query, 5, per_document=5)
    unmerged = Retriever(store, "rev", merge_overlaps=False).search(query, 5, per_document=5)

    chunks = {c.chunk_id: c for c in store.chunks("rev")}

    def spans(found: Sequence[object]) -> list[tuple[int, int]]:
        return [(chunks[h.chunk_id].char_start, chunks[h.chunk_id].char_end) for h in found]  # type: ignore[attr-defined]

    def overlapping(s: list[tuple[int, int]]) -> int:
        return sum(1 for i, a in enumerate(s) for b in s[i + 1 :] if a[0] < b[1] and b[0] < a[1])

    assert overlapping(spans(unmerged)) > 0  # windows of the same paragraphs
    assert overlapping(spans(hits)) == 0
    assert len(hits) == 5
    assert "caso 17." in hits[0].text
    store.close()


def test_program_and_type_filters_compare_without_accents_or_case(tmp_path: Path) -> None:
    store = sqlite_store(tmp_path)
    rows = [
        (
            "t1",
            "Educação inclusiva na rede pública",
            "Programa de Pós-Graduação em Educação",
            "Tese",
        ),
        ("t2", "Educação inclusiva e direitos", "Direitos Humanos", "Dissertação"),
        ("t3", "Educação inclusiva no campo", "Educação", "Dissertação"),
    ]
    path = tmp_path / "catalogo.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "resumo", "Programa", "kind"])
        w.writerows(rows)
    ingest(store, "cat", [path])
    retriever = Retriever(store, "cat")

    def ids(filters: Filters) -> set[str]:
        return {h.doc_id for h in retriever.search("educação inclusiva", 10, filters=filters)}

    assert ids(Filters(program="educacao")) == {"t1", "t3"}
    assert ids(Filters(program="DIREITOS humanos")) == {"t2"}
    assert ids(Filters(program="medicina")) == set()
    store.close()


def test_a_deleted_or_broken_file_stops_being_found_after_reingest(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    works = short_works(folder, 4)
    store = sqlite_store(tmp_path)
    assert ingest(store, "rev", [folder]).added == 4
    works[0].unlink()
    works[1].write_bytes(b"")  # broken: empty now

    report = ingest(store, "rev", [folder])

    assert report.removed == 2
    found = {h.doc_id for h in Retriever(store, "rev").search("educação inclusiva", 10)}
    assert found == {str(works[2].resolve()), str(works[3].resolve())}
    assert [Path(e.source).name for e in report.errors] == [works[1].name]
    store.close()


def test_an_ingest_that_stores_nothing_leaves_no_empty_collection(tmp_path: Path) -> None:
    (tmp_path / "quebrado.pdf").write_bytes(b"%PDF-1.7 not a real pdf")
    store = sqlite_store(tmp_path)

    report = ingest(store, "nova", [tmp_path / "quebrado.pdf"])

    assert report.documents == 0
    assert len(report.errors) == 1
    assert store.collection("nova") is None
    store.close()


class PickyEmbedder:
    """A real embedder (hashed bag of words) that refuses one kind of text, as a server can."""

    name = "picky"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if any("VENENO" in t for t in texts):
            raise ModelOutputError("the embeddings server refused a text (content filter)")
        return normalize(np.asarray([hashed_embedding(t, 64) for t in texts], np.float32))


def test_a_failure_inside_a_flush_is_blamed_on_its_file_and_the_others_are_stored(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in (
        ("a.txt", "Educação inclusiva na escola."),
        ("b.txt", "Texto com VENENO para o servidor."),
        ("c.txt", "Formação docente continuada."),
    ):
        (folder / name).write_text(text, encoding="utf-8")
    store = sqlite_store(tmp_path)

    # One batch for all three: the failure happens in the last flush, after the loop.
    report = ingest(store, "rev", [folder], embedder=PickyEmbedder(), batch_chunks=10_000)

    assert (report.added, report.documents) == (2, 2)
    assert [(Path(e.source).name, "content filter" in e.reason) for e in report.errors] == [
        ("b.txt", True)
    ]
    stored = {Path(d.path).name for d in store.documents("rev")}
    assert stored == {"a.txt", "c.txt"}
    store.close()


def test_a_collection_does_not_pay_for_an_empty_bigram_table(tmp_path: Path) -> None:
    index = LexicalIndex.build(["uma única linha de texto"], LexicalConfig(bigram_weight=0.1))
    index.save(tmp_path / "idx")
    size = sum(f.stat().st_size for f in (tmp_path / "idx").iterdir())
    assert size < 100_000  # was ≥ 33 MB: one pointer per hash bucket
    loaded = LexicalIndex.load(tmp_path / "idx")
    assert loaded is not None
    assert loaded.search("única linha", 1)[0].tolist() == [0]


def test_capes_catalogue_program_filter(tmp_path: Path) -> None:
    store = sqlite_store(tmp_path)
    ingest(store, "capes", [DATA_DIR / "theses" / "capes_resumos.csv"])
    retriever = Retriever(store, "capes")
    docs = {d.doc_id: d for d in store.documents("capes")}
    hits = retriever.search("direitos humanos", 20, filters=Filters(program="direitos humanos"))
    assert hits
    assert all("direitos humanos" in docs[h.doc_id].metadata["Programa"].lower() for h in hits)
    store.close()


def test_capes_catalogue_year_and_type_filters(tmp_path: Path) -> None:
    store = sqlite_store(tmp_path)
    ingest(store, "capes", [DATA_DIR / "theses" / "capes_resumos.csv"])
    retriever = Retriever(store, "capes")
    docs = {d.doc_id: d for d in store.documents("capes")}
    theses = retriever.search("educação", 50, filters=Filters(doc_type="tese"))
    assert theses
    assert {docs[h.doc_id].doc_type for h in theses} == {"Tese"}
    years = {d.year for d in docs.values()}
    year = sorted(y for y in years if y)[len(years) // 2]
    in_year = retriever.search("direitos", 50, filters=Filters(year=year))
    assert in_year
    assert {docs[h.doc_id].year for h in in_year} == {year}
    store.close()
