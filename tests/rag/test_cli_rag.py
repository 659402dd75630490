"""The RAG commands: ingest, search, ask, collections, delete and eval retrieval."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rag_fixtures import DATA, laws_folder


@pytest.fixture
def run(colmeia_cli):  # type: ignore[no-untyped-def]
    return colmeia_cli


def test_ingest_twice_then_search_with_citations(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = laws_folder(tmp_path / "docs")
    code, out, _ = run("ingest", str(folder), "--collection", "leis")
    assert code == 0
    assert "3 added" in out
    code, out, _ = run("ingest", str(folder), "--collection", "leis", "--json")
    assert code == 0
    assert json.loads(out)["unchanged"] == 3

    code, out, _ = run("search", "publicidade enganosa", "--collection", "leis", "--json")
    assert code == 0
    hit = json.loads(out)["hits"][0]
    assert hit["doc_id"].endswith("consumidor.txt")
    assert {"doc_id", "chunk_id", "score", "text", "citation"} <= set(hit)
    assert {"document", "page", "path"} <= set(hit["citation"])
    assert hit["citation"]["page"] == 1

    code, out, _ = run("search", "publicidade enganosa", "-c", "leis", "-k", "1")
    assert code == 0
    assert "publicidade enganosa" in out


def test_search_many_queries_from_a_csv(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run("ingest", str(laws_folder(tmp_path / "docs")), "--collection", "leis")
    queries = tmp_path / "q.csv"
    queries.write_text(
        "ID,TEXT\n1,consentimento do titular\n2,???\n3,concessao\n", encoding="utf-8"
    )
    code, out, _ = run("search", "--queries", str(queries), "--collection", "leis")
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["id"] for line in lines] == ["1", "2", "3"]
    assert lines[0]["hits"][0]["doc_id"].endswith("dados.txt")
    assert "no letters or digits" in lines[1]["error"]
    assert lines[2]["hits"][0]["doc_id"].endswith("concessao.md")


def test_bad_queries_and_unknown_collections_fail_clearly(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run("ingest", str(laws_folder(tmp_path / "docs")), "--collection", "leis")
    code, _, err = run("search", "   ", "--collection", "leis")
    assert code == 2
    assert "empty" in err
    code, _, err = run("search", "lei", "--collection", "nada")
    assert code == 2
    assert "no collection named 'nada'" in err


def test_ask_without_a_model_gives_the_best_passages(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run("ingest", str(laws_folder(tmp_path / "docs")), "--collection", "leis")
    code, out, _ = run("ask", "Quem responde pelos defeitos do produto?", "-c", "leis", "--json")
    assert code == 0
    answer = json.loads(out)
    assert answer["extractive"] is True
    assert answer["citations"][0]["doc_id"].endswith("consumidor.txt")
    assert answer["answer"].startswith("[P1]")


def test_collections_and_delete(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = laws_folder(tmp_path / "docs")
    run("ingest", str(folder), "--collection", "leis")
    code, out, _ = run("collections", "--json")
    assert json.loads(out) == [{"name": "leis", "documents": 3, "chunks": 3, "embedder": ""}]

    code, out, _ = run("delete", str(folder / "dados.txt"), "--collection", "leis")
    assert code == 0
    assert "1 document(s) deleted" in out
    _, out, _ = run("search", "consentimento do titular", "-c", "leis", "--json")
    assert all(not h["doc_id"].endswith("dados.txt") for h in json.loads(out)["hits"])

    code, out, _ = run("delete", "--collection", "leis", "--yes")
    assert code == 0
    _, out, _ = run("collections", "--json")
    assert json.loads(out) == []


def test_ingest_reports_files_it_could_not_read(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = laws_folder(tmp_path / "docs")
    (folder / "ruim.pdf").write_bytes(b"not a pdf at all")
    code, out, _ = run("ingest", str(folder), "--collection", "leis")
    assert code == 0
    assert "1 not ingested" in out
    assert "ruim.pdf" in out


def test_lexml_laws_are_cited_down_to_the_article(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    laws = tmp_path / "lexml"
    laws.mkdir()
    shutil.copy(DATA / "laws" / "lexml" / "lei_13709_20180814.csv", laws)
    code, _, _ = run(
        "ingest", str(laws), "--collection", "leis", "--id-column", "urn", "--text-column", "Texto"
    )
    assert code == 0
    _, out, _ = run(
        "search", "consentimento do titular dos dados", "-c", "leis", "--json", "-k", "3"
    )
    hits = json.loads(out)["hits"]
    assert hits[0]["doc_id"].startswith("urn:lex:br:federal:lei:2018-08-14;13709!art")
    assert hits[0]["citation"]["path"].startswith("Lei 13.709/2018, Art. ")


def test_eval_retrieval_on_juristcu(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, _, _ = run("ingest", str(DATA / "juristcu" / "docs.csv"), "--collection", "juris")
    assert code == 0
    code, out, _ = run(
        "eval",
        "retrieval",
        "--collection",
        "juris",
        "--queries",
        str(DATA / "juristcu" / "queries.csv"),
        "--qrels",
        str(DATA / "juristcu" / "qrels.csv"),
        "--json",
    )
    assert code == 0
    metrics = json.loads(out)
    assert metrics["queries"] == 100
    assert metrics["ndcg@10"] >= 0.745
    assert {"mrr", "p@1", "recall@100", "mean_rank", "not_found@10"} <= set(metrics)
    code, out, _ = run(
        "eval",
        "retrieval",
        "--collection",
        "juris",
        "--queries",
        str(DATA / "juristcu" / "queries.csv"),
        "--qrels",
        str(DATA / "juristcu" / "qrels.csv"),
    )
    assert "ndcg@10" in out
    assert "recall@100" in out
