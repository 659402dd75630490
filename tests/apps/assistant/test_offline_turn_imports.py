"""An offline turn's parts import no LangGraph: reading the turn's frame, looking a case up in
the registry and answering a law question with citations (the RAG pipeline runs on
colmeia.graphs.flow). LangGraph and langchain_core cost about a second of CPU at start-up
(bench/assistant.py measures it; nothing is timed here); bm25s and scipy come only with a
registry search, yaml only with the court's file, jinja2 only with a prompt.

Checked in a fresh process on the shipped laws and a synthetic registry, words only.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.apps.assistant.synthetic import generate_registry
from colmeia.rag.pipeline import ingest
from colmeia.rag.retrieve import Retriever
from colmeia.store import open_store

LAWS = Path(__file__).resolve().parents[3] / "data" / "laws" / "lexml"

OFFLINE_TURN = """
import asyncio, datetime as dt, json, sys
from pathlib import Path
from colmeia.apps.assistant.cases import lookup_case
from colmeia.apps.assistant.frame import read_frame
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.registry import SQLiteCaseRegistry
from colmeia.store import open_store

work = Path(sys.argv[1])
today = dt.date(2026, 11, 1)
store = open_store(f"sqlite:///{work / 'laws.db'}")
registry = SQLiteCaseRegistry(work / "registry.db")

async def turn():
    case = read_frame("qual a situacao do processo 32/2023?", today=today)
    law = read_frame("o que é dado pessoal sensível?", today=today)
    found = await lookup_case(registry, case.cases[0].typed, today=today)
    answer = await RagPipeline(store, "leis").run(law.text)
    return case.intent, found, law.intent, answer

case_intent, found, law_intent, answer = asyncio.run(turn())
print(json.dumps({
    "case_intent": case_intent,
    "case": found.get("number"),
    "case_status": found.get("status"),
    "law_intent": law_intent,
    "articles": [c["article"] for c in answer["citations"]],
    "modules": sorted(sys.modules),
}))
"""

HEAVY = ("langgraph", "langchain_core", "langsmith", "bm25s", "scipy", "yaml", "jinja2")


def test_an_offline_case_and_law_turn_import_no_langgraph(tmp_path: Path) -> None:
    # the collection ingested and its index built, as after `colmeia ingest`; the registry
    store = open_store(f"sqlite:///{tmp_path / 'laws.db'}")
    ingest(store, "leis", [LAWS / "lei_13709_20180814.csv"])
    Retriever(store, "leis").warm()
    store.close()
    registry = SQLiteCaseRegistry(tmp_path / "registry.db")
    generate_registry(registry, processes=50, expedientes=0, as_of=dt.date(2026, 11, 1))
    registry.close_sync()
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
    env.update(COLMEIA_HOME=str(tmp_path / "home"), COLMEIA_EMBEDDINGS_MODEL="none")
    done = subprocess.run(
        [sys.executable, "-c", OFFLINE_TURN, str(tmp_path)],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])

    # the turn was answered, as a person would check: the case's record, the defining article
    assert out["case_intent"] == "case" and out["case"] == "TC/000032/2023"
    assert out["case_status"] == "found"
    assert out["law_intent"] == "law" and "5" in out["articles"]
    loaded = sorted({h for h in HEAVY for m in out["modules"] if m == h or m.startswith(h + ".")})
    assert loaded == []
