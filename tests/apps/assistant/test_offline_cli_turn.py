"""``colmeia assistant ask --offline`` answers a law question without importing LangGraph, and
the thread it began goes on in the graph.

The first process is the CLI itself (its ``main``), run in a fresh interpreter that lists its
modules afterwards: LangGraph, langchain_core and langsmith cost the CLI about three quarters
of its start-up (bench/assistant.py measures it; nothing is timed here). The next processes
continue the same thread with a turn only the graph takes (a request to follow a case waits
for the person's approval) and read the thread's history: both turns are there.
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
CLI = """
import sys
from colmeia.cli import main
sys.argv = ["colmeia", *sys.argv[1:]]
try:
    main()
except SystemExit as exc:
    code = exc.code
print("MODULES", " ".join(sorted(sys.modules)))
"""
GRAPH = ("langgraph", "langchain_core", "langsmith")
# Nor does a JSON line need Rich, nor a laws-only turn the ingestion package or the evaluation.
NOT_FOR_A_JSON_TURN = ("rich", "colmeia.rag.ingest", "colmeia.eval")


def _cli(env: dict[str, str], *args: str) -> tuple[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", CLI, *args], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    out, _, modules = done.stdout.rpartition("MODULES")
    return out, modules.split()


def _graph_modules(modules: list[str], names: tuple[str, ...] = GRAPH) -> list[str]:
    return sorted({g for g in names for m in modules if m == g or m.startswith(g + ".")})


def test_an_offline_law_question_from_the_cli_needs_no_graph_and_its_thread_goes_on(
    tmp_path: Path,
) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'laws.db'}")
    ingest(store, "leis", [LAWS / "lei_13709_20180814.csv"])
    Retriever(store, "leis").warm()
    store.close()
    registry = SQLiteCaseRegistry(tmp_path / "registry.db")
    generate_registry(registry, processes=50, expedientes=0, as_of=dt.date(2026, 11, 1))
    registry.close_sync()
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
    env.update(
        COLMEIA_HOME=str(tmp_path / "home"),
        COLMEIA_STORE=f"sqlite:///{tmp_path / 'laws.db'}",
        COLMEIA_ASSISTANT_COLLECTION="leis",
        COLMEIA_ASSISTANT_REGISTRY=f"sqlite:///{tmp_path / 'registry.db'}",
        COLMEIA_EMBEDDINGS_MODEL="none",
    )
    question = "o que é dado pessoal sensível?"
    out, modules = _cli(env, "assistant", "ask", question, "-t", "t1", "--json", "--offline")
    first = json.loads(out)

    # answered as a person checks it: the defining article of the LGPD, cited
    assert first["status"] == "answered" and first["agent"] == "rag"
    assert any(c["article"] == "5" for c in first["citations"])
    assert _graph_modules(modules) == []
    assert _graph_modules(modules, NOT_FOR_A_JSON_TURN) == []
    # the norms it holds were saved for the next process (colmeia.apps.assistant.saved_catalogue)
    store = open_store(env["COLMEIA_STORE"])
    assert len(list((store.index_dir / "leis").glob("norms-g*.json"))) == 1
    store.close()

    # the same thread, a turn the graph takes: it waits for the approval of a subscription
    follow = "quero acompanhar o processo 32/2023, meu e-mail é ana@example.org"
    out, modules = _cli(env, "assistant", "ask", follow, "-t", "t1", "--json", "--offline")
    second = json.loads(out)
    assert second["status"] == "waiting_approval" and second["turn"] == 2
    assert _graph_modules(modules) != []  # that turn did need the graph

    out, _ = _cli(env, "assistant", "history", "-t", "t1", "--json")
    said = [(m["turn"], m["role"], m["text"]) for m in json.loads(out)]
    assert said[0] == (1, "user", question)
    assert said[1][:2] == (1, "assistant") and "sensível" in said[1][2]
    assert said[2] == (2, "user", follow)
