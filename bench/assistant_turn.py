"""One offline assistant turn: in process (after start-up) and from the CLI (a whole process).

The frame (learnt classifier + reference parsers) and the dispatch run on every turn, so this
is what a person waits for without a model. In process: the median wall time of a case
question, a law question and a mixed question on a warm assistant (shipped laws, a synthetic
registry of 2,000 processes). From the CLI: the CPU time (user + system) of one
``colmeia assistant ask`` process answering a law question offline, start-up included — the
peer a user would compare it with is the same command before this change (today ~3 s CPU).
Prints ONE JSON line. Asserts nothing about time.

    .venv/bin/python bench/assistant_turn.py [--turns 30]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from colmeia.apps.assistant.registry import SQLiteCaseRegistry
from colmeia.apps.assistant.session import open_assistant
from colmeia.apps.assistant.settings import AssistantSettings
from colmeia.apps.assistant.synthetic import generate_registry
from colmeia.rag.pipeline import ingest
from colmeia.store import open_store

LAWS = Path(__file__).resolve().parents[1] / "data" / "laws" / "lexml"
AS_OF = dt.date(2026, 11, 1)
QUESTIONS = (
    "qual a situação do processo 32/2023?",
    "o que é dado pessoal sensível?",
    "processo 32/2023 ta parado, a lei 9.784 permite isso?",
)


async def in_process(work: Path, turns: int) -> dict[str, float]:
    store = open_store(f"sqlite:///{work / 'laws.db'}")
    registry = SQLiteCaseRegistry(work / "registry.db")
    seconds: dict[str, list[float]] = {q: [] for q in QUESTIONS}
    async with open_assistant(
        store=store,
        model=None,
        registry=registry,
        checkpoints="memory://",
        settings=AssistantSettings(collection="leis"),
        home=work,
        today=AS_OF,
    ) as bot:
        for i in range(turns + 1):
            for q in QUESTIONS:
                started = time.perf_counter()
                await bot.ask(f"bench-{i}-{QUESTIONS.index(q)}", q)
                if i:  # the first round warms the caches
                    seconds[q].append(time.perf_counter() - started)
    registry.close_sync()
    store.close()
    return {
        "case_ms": round(1000 * statistics.median(seconds[QUESTIONS[0]]), 1),
        "law_ms": round(1000 * statistics.median(seconds[QUESTIONS[1]]), 1),
        "mixed_ms": round(1000 * statistics.median(seconds[QUESTIONS[2]]), 1),
    }


def from_cli(work: Path) -> dict[str, float]:
    env = {
        **os.environ,
        "COLMEIA_HOME": str(work / "home"),
        "COLMEIA_STORE": f"sqlite:///{work / 'laws.db'}",
        "COLMEIA_ASSISTANT_REGISTRY": f"sqlite:///{work / 'registry.db'}",
        "COLMEIA_LLM_BASE_URL": "",
    }
    colmeia = str(Path(sys.executable).with_name("colmeia"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [colmeia, "assistant", "ask", QUESTIONS[1], "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    cited = bool(done.returncode == 0 and json.loads(done.stdout).get("citations"))
    return {"cli_cpu_s": round(cpu, 2), "cli_wall_s": round(wall, 2), "cli_cited": cited}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="colmeia-bench-turn-") as tmp:
        work = Path(tmp)
        store = open_store(f"sqlite:///{work / 'laws.db'}")
        ingest(store, "leis", [LAWS])
        store.close()
        registry = SQLiteCaseRegistry(work / "registry.db")
        generate_registry(registry, processes=2000, expedientes=500, as_of=AS_OF)
        registry.close_sync()
        out: dict[str, object] = {"bench": "assistant_turn", "mode": "offline-rules"}
        out.update(asyncio.run(in_process(work, args.turns)))
        out.update(from_cli(work))
        out["targets"] = {"in_process_ms": 50, "cli_cpu_s": 1.0}
        out["loadavg_1m"] = round(os.getloadavg()[0], 2)
    sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
