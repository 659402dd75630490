"""Ingestion into a store is incremental and idempotent, on SQLite and on PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from rag_fixtures import (  # noqa: F401  (fixtures)
    LAWS,
    juristcu_subset,
    laws_folder,
    store_fixture,
    store_url_fixture,
)

from colmeia.errors import ConfigurationError
from colmeia.rag.pipeline import CsvColumns, IngestProgress, delete_documents, ingest
from colmeia.rag.retrieve import Retriever
from colmeia.store import Store, open_store


def _chunk_ids(store: Store, collection: str) -> list[str]:
    return [c.chunk_id for c in store.chunks(collection)]


def test_ingesting_the_same_folder_twice_changes_nothing(store: Store, tmp_path: Path) -> None:
    folder = laws_folder(tmp_path / "docs")
    first = ingest(store, "leis", [folder])
    before = store.collection("leis")
    chunks_before = _chunk_ids(store, "leis")

    second = ingest(store, "leis", [folder])
    after = store.collection("leis")

    assert (first.added, first.errors) == (len(LAWS), [])
    assert (second.added, second.updated, second.unchanged, second.chunks) == (0, 0, len(LAWS), 0)
    assert before is not None
    assert after is not None
    assert (after.documents, after.chunks, after.generation) == (
        before.documents,
        before.chunks,
        before.generation,
    )
    assert _chunk_ids(store, "leis") == chunks_before
    assert len(set(chunks_before)) == len(chunks_before)


def test_a_changed_file_replaces_its_chunks(store: Store, tmp_path: Path) -> None:
    folder = laws_folder(tmp_path / "docs")
    ingest(store, "leis", [folder])
    retriever = Retriever(store, "leis")
    assert retriever.search("publicidade enganosa", 3)[0].doc_id.endswith("consumidor.txt")

    (folder / "consumidor.txt").write_text(
        "O comerciante deve afixar os preços das mercadorias em local visível.", encoding="utf-8"
    )
    report = ingest(store, "leis", [folder])

    assert (report.updated, report.unchanged, report.added) == (1, len(LAWS) - 1, 0)
    texts = " ".join(c.text for c in store.chunks("leis"))
    assert "publicidade enganosa" not in texts
    hits = retriever.search("preços das mercadorias", 3)
    assert hits[0].doc_id.endswith("consumidor.txt")
    assert all("enganosa" not in h.text for h in retriever.search("publicidade", 10))


def test_deleting_a_file_removes_it_from_search(store: Store, tmp_path: Path) -> None:
    folder = laws_folder(tmp_path / "docs")
    ingest(store, "leis", [folder])
    retriever = Retriever(store, "leis")
    assert retriever.search("consentimento do titular", 5)

    assert delete_documents(store, "leis", paths=[folder / "dados.txt"]) == 1
    assert retriever.search("consentimento do titular", 5) == []
    assert store.collection("leis").documents == len(LAWS) - 1  # type: ignore[union-attr]

    assert delete_documents(store, "leis", paths=[folder]) == len(LAWS) - 1
    assert store.collection("leis").documents == 0  # type: ignore[union-attr]

    with pytest.raises(ConfigurationError, match="no collection"):
        delete_documents(store, "nenhuma", doc_ids=["x"])


def test_bad_files_are_reported_and_the_rest_is_ingested(store: Store, tmp_path: Path) -> None:
    folder = laws_folder(tmp_path / "docs")
    (folder / "quebrado.pdf").write_bytes(b"%PDF-1.7 this is not really a pdf")
    (folder / "vazio.txt").write_text("", encoding="utf-8")
    seen: list[IngestProgress] = []

    report = ingest(store, "leis", [folder, tmp_path / "nao-existe"], progress=seen.append)

    assert report.added == len(LAWS)
    failed = {Path(e.source).name: e.reason for e in report.errors}
    assert set(failed) == {"quebrado.pdf", "vazio.txt", "nao-existe"}
    assert all(reason for reason in failed.values())
    assert seen[-1].files_done == seen[-1].files_total == len(LAWS) + 2
    assert seen[-1].documents == len(LAWS)


def test_csv_rows_are_documents_and_edited_rows_are_replaced(store: Store, tmp_path: Path) -> None:
    csv_path = juristcu_subset(tmp_path / "csv", n=50)
    cols = CsvColumns("DOC_ID", "TEXT")
    first = ingest(store, "juris", [csv_path], csv_columns=cols)
    assert (first.added, first.errors) == (50, [])
    again = ingest(store, "juris", [csv_path], csv_columns=cols)
    assert (again.unchanged, again.added, again.updated) == (50, 0, 0)

    lines = csv_path.read_text(encoding="utf-8").splitlines()
    doc_id = lines[1].split(",", 1)[0]
    lines[1] = f'{doc_id},"Texto inteiramente novo sobre pregão eletrônico."'
    csv_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    edited = ingest(store, "juris", [csv_path])  # columns detected from the header

    assert (edited.updated, edited.unchanged) == (1, 49)
    hits = Retriever(store, "juris").search("pregao eletronico", 1)
    assert hits[0].doc_id == doc_id


def test_search_results_are_identical_on_sqlite_and_postgres(tmp_path: Path) -> None:
    from pg import PG_URL, drop_schema, new_schema, postgres_unreachable

    reason = postgres_unreachable()
    if reason:
        pytest.skip(reason)
    csv_path = juristcu_subset(tmp_path / "csv", n=300)
    schema = new_schema()  # unique per run: concurrent suites never share a schema
    urls = [f"sqlite:///{tmp_path / 'a.db'}", f"{PG_URL}?schema={schema}"]
    results = []
    try:
        for url in urls:
            s = open_store(url, cache_dir=tmp_path / "cache")
            ingest(s, "juris", [csv_path])
            r = Retriever(s, "juris")
            results.append(
                [
                    [(h.chunk_id, round(h.score, 5)) for h in r.search(q, 10)]
                    for q in ("licitação", "tecnica e preco", "restos a pagar", "sobrepreço")
                ]
            )
            s.close()
    finally:
        drop_schema(schema)
    assert results[0] == results[1]
    assert all(results[0])
