"""Assistant turns against the simulated model at 200 ms per call, 50 conversations at once.

Starts the assistant's careful simulated stand-in (``colmeia.apps.assistant.simulated``) in its
own process, so the model's CPU is not counted, then runs 50 concurrent threads through the
real assistant (SQLite checkpoints, the shipped laws, a synthetic registry of 5,000 processes),
each a conversation of three turns: a case question (coordinator → search agent → registry),
a legal question (search → coordinator → RAG pipeline → back) and a thank-you. Prints ONE JSON
line: turns/s, model calls and tokens per turn, and the framework overhead per turn — CPU time
of this process (graph, checkpoints, retrieval, HTTP client) divided by the turns, which
excludes the model's time. The same conversations offline (rules, no model) give the
overhead without HTTP. Records the load average. Asserts nothing about time.

    .venv/bin/python bench/assistant.py [--threads 50] [--latency-ms 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from _sim import stand_in_process
from colmeia.apps.assistant.registry import SQLiteCaseRegistry
from colmeia.apps.assistant.session import Assistant, open_assistant
from colmeia.apps.assistant.settings import AssistantSettings
from colmeia.apps.assistant.synthetic import SyntheticRegistry, generate_registry
from colmeia.llm.openai_compat import OpenAIChatModel
from colmeia.rag.pipeline import ingest
from colmeia.rag.retrieve import Retriever
from colmeia.store import Store, open_store

DATA = Path(__file__).resolve().parents[1] / "data"
LEGAL = [
    json.loads(line)["question"]
    for line in (DATA / "assistant" / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    if line.strip() and json.loads(line)["expected_agent"] == "rag"
]


async def _conversation(bot: Assistant, tid: str, number: str, legal: str) -> tuple[int, int]:
    turns = errors = 0
    for text in (f"Onde está o processo {number} e desde quando?", legal, "Obrigado!"):
        result = await bot.ask(tid, text)
        turns += 1
        errors += result.status not in ("answered", "waiting_clarification")
    return turns, errors


async def _run(
    store: Store,
    registry: SQLiteCaseRegistry,
    model: OpenAIChatModel | None,
    threads: int,
    work: Path,
) -> dict[str, Any]:
    numbers = [p.number for p in SyntheticRegistry(as_of=None).batch(400, 0).processes]
    rng = random.Random(5)
    async with open_assistant(
        store=store,
        model=model,
        registry=registry,
        checkpoints=f"sqlite:///{work / f'threads-{model is None}.db'}",
        settings=AssistantSettings(),
        home=work,
    ) as bot:
        await _conversation(bot, "warm-up", numbers[0], LEGAL[0])  # imports, caches
        from colmeia.llm.base import track_usage

        cpu0, wall0 = time.process_time(), time.perf_counter()
        with track_usage() as tracker:
            done = await asyncio.gather(
                *(
                    _conversation(bot, f"b-{i}", rng.choice(numbers), rng.choice(LEGAL))
                    for i in range(threads)
                )
            )
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    turns = sum(t for t, _ in done)
    u = tracker.usage
    return {
        "turns": turns,
        "errors": sum(e for _, e in done),
        "wall_s": round(wall, 2),
        "turns_per_s": round(turns / wall, 2),
        "framework_cpu_ms_per_turn": round(1000 * cpu / turns, 2),
        "model_calls_per_turn": round(u.calls / turns, 2),
        "prompt_tokens_per_turn": round(u.prompt_tokens / turns, 1),
        "completion_tokens_per_turn": round(u.completion_tokens / turns, 1),
        "framework_cpu_ms_per_model_call": round(1000 * cpu / u.calls, 2) if u.calls else None,
    }


def _measure(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="colmeia-bench-") as tmp:
        work = Path(tmp)
        store = open_store(f"sqlite:///{work / 'laws.db'}")
        ingest(store, "leis", [DATA / "laws" / "lexml"])
        Retriever(store, "leis").warm()
        registry = SQLiteCaseRegistry(work / "registry.db")
        generate_registry(registry, processes=5000, expedientes=2000)
        offline = asyncio.run(_run(store, registry, None, args.threads, work))
        try:
            with stand_in_process(args.latency_ms) as url:
                simulated = asyncio.run(_simulated(store, registry, url, args.threads, work))
        finally:
            registry.close_sync()
            store.close()
    return {"simulated": simulated, "offline": offline}


async def _simulated(
    store: Store, registry: SQLiteCaseRegistry, url: str, threads: int, work: Path
) -> dict[str, Any]:
    async with OpenAIChatModel(base_url=url, model="sim", max_concurrency=256) as model:
        return await _run(store, registry, model, threads, work)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=50)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    args = parser.parse_args()
    load_before = os.getloadavg()
    out = _measure(args)
    result = {
        "bench": "assistant",
        "threads": args.threads,
        "latency_ms": args.latency_ms,
        "turns_per_s": out["simulated"]["turns_per_s"],
        "framework_cpu_ms_per_turn": out["simulated"]["framework_cpu_ms_per_turn"],
        **{f"sim_{k}": v for k, v in out["simulated"].items()},
        **{f"offline_{k}": v for k, v in out["offline"].items()},
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
