"""Retrieval quality on JurisTCU beside the off-the-shelf BM25L a user would pick, in one run.

Prints ONE JSON line. JurisTCU (``data/juristcu``: 1,651 judged statements, 100 of the 150
queries) is split by a fixed rule written before any tuning: queries with an odd id are the
tuning part, even ids the held-out part (each source — search log, LLM question, expression —
falls about evenly on both sides). nDCG@10 is reported on both parts and on all 100.

Runs: colmeia as shipped (``Retriever`` over an ``ingest`` of docs.csv with the default
embedder: lexical + dense fused, the query searched in both vector forms, dense feedback), the
same fusion without the two (``colmeia_hybrid_plain``), colmeia lexical only, bm25s BM25L and
Haystack's in-memory BM25L (when ``haystack-ai`` is installed). ``--lay`` adds the assistant's
lay-word and formal law sets (``colmeia eval assistant``), which embed the nine laws (slower).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"


def is_tuning(query_id: str) -> bool:
    """The committed split: odd query ids tune, even ids are held out."""
    return int(query_id) % 2 == 1


def _load() -> tuple[list[dict[str, str]], list[dict[str, str]], dict[str, dict[str, int]]]:
    folder = DATA / "juristcu"
    with (folder / "docs.csv").open(encoding="utf-8") as fh:
        docs = list(csv.DictReader(fh))
    with (folder / "queries.csv").open(encoding="utf-8") as fh:
        queries = list(csv.DictReader(fh))
    qrels: dict[str, dict[str, int]] = {}
    with (folder / "qrels.csv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            qrels.setdefault(row["QUERY_ID"], {})[row["DOC_ID"]] = int(row["SCORE"])
    return docs, queries, qrels


def _ndcg(run: dict[str, list[str]], qrels: dict[str, dict[str, int]]) -> dict[str, float]:
    from colmeia.eval.retrieval import evaluate_run

    out = {}
    for part, keep in (
        ("tune", is_tuning),
        ("held_out", lambda q: not is_tuning(q)),
        ("all", lambda q: True),
    ):
        sub = {q: r for q, r in run.items() if keep(q)}
        out[part] = round(evaluate_run(sub, {q: qrels[q] for q in sub}).ndcg[10], 4)
    return out


def _run(search: Callable[[str], list[str]], queries: list[dict[str, str]]) -> dict[str, list[str]]:
    return {q["ID"]: search(q["TEXT"]) for q in queries}


def colmeia_runs(
    docs: list[dict[str, str]], queries: list[dict[str, str]], work: Path
) -> dict[str, dict[str, list[str]]]:
    from colmeia.config import EmbeddingsSettings
    from colmeia.rag.index.embedders import default_embedder
    from colmeia.rag.pipeline import ingest
    from colmeia.rag.retrieve import Retriever
    from colmeia.store import open_store

    embedder = default_embedder(EmbeddingsSettings())
    store = open_store(str(work / "juris.db"))
    t = time.perf_counter()
    ingest(store, "juris", [DATA / "juristcu" / "docs.csv"], embedder=embedder)
    _log(f"ingest with vectors: {time.perf_counter() - t:.1f}s")
    runs = {}
    for name, r in (
        ("colmeia", Retriever(store, "juris", embedder=embedder)),
        # the hybrid search before issue 32: query-form vector only, no dense feedback
        (
            "colmeia_hybrid_plain",
            Retriever(
                store, "juris", embedder=embedder, both_query_forms=False, feedback_passages=0
            ),
        ),
        ("colmeia_lexical", Retriever(store, "juris")),
    ):
        runs[name] = _run(
            lambda q, r=r: [d.doc_id for d in r.search_documents(q, 100, per_document=1)], queries
        )  # type: ignore[misc]
    store.close()
    return runs


def bm25s_run(docs: list[dict[str, str]], queries: list[dict[str, str]]) -> dict[str, list[str]]:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("portuguese")
    model = bm25s.BM25(method="bm25l")
    model.index(
        bm25s.tokenize(
            [d["TEXT"] for d in docs], stopwords="pt", stemmer=stemmer, show_progress=False
        ),
        show_progress=False,
    )
    ids = [d["DOC_ID"] for d in docs]

    def search(q: str) -> list[str]:
        res, _ = model.retrieve(
            bm25s.tokenize([q], stopwords="pt", stemmer=stemmer, show_progress=False),
            k=100,
            show_progress=False,
        )
        return [ids[i] for i in res[0]]

    return _run(search, queries)


def haystack_run(
    docs: list[dict[str, str]], queries: list[dict[str, str]]
) -> dict[str, list[str]] | None:
    # Haystack sends usage telemetry to its vendor unless told not to: this bench talks to
    # nothing but this machine.
    os.environ["HAYSTACK_TELEMETRY_ENABLED"] = "False"
    try:
        from haystack import Document
        from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
        from haystack.document_stores.in_memory import InMemoryDocumentStore
    except ImportError:
        return None
    ds = InMemoryDocumentStore(bm25_algorithm="BM25L")
    ds.write_documents([Document(id=d["DOC_ID"], content=d["TEXT"]) for d in docs])
    retriever = InMemoryBM25Retriever(ds, top_k=100)
    return _run(lambda q: [d.id for d in retriever.run(query=q)["documents"]], queries)


def lay_figures() -> dict[str, dict[str, float | None]]:
    from colmeia.apps.assistant.evaluation import evaluate
    from colmeia.config import EmbeddingsSettings
    from colmeia.rag.index.embedders import default_embedder

    embedder = default_embedder(EmbeddingsSettings())
    out: dict[str, dict[str, float | None]] = {}
    for which in ("lay-dev", "lay-test", "laws"):
        report = asyncio.run(evaluate(which, DATA, None, embedder=embedder))
        m = report.metrics
        out[which] = {
            "hit_at_1": m["hit_at_1"],
            "hit_at_5": m["hit_at_5"],
            "questions": m["with_gold_citations"],
        }
    return out


def _log(message: str) -> None:
    sys.stderr.write(f"[bench/rag_quality] {message}\n")
    sys.stderr.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lay", action="store_true", help="also the assistant's law sets")
    args = parser.parse_args()
    docs, queries, qrels = _load()
    result: dict[str, object] = {"bench": "rag_quality", "split": "odd ids tune, even held out"}
    with tempfile.TemporaryDirectory() as tmp:
        runs = colmeia_runs(docs, queries, Path(tmp))
    runs["bm25s_bm25l"] = bm25s_run(docs, queries)
    hay = haystack_run(docs, queries)
    if hay is not None:
        runs["haystack_bm25l"] = hay
    result["juristcu_ndcg10"] = {name: _ndcg(run, qrels) for name, run in runs.items()}
    if args.lay:
        result["assistant"] = lay_figures()
    result["cores"] = os.cpu_count()
    result["load_avg_1m"] = round(os.getloadavg()[0], 2)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
