"""Moderation throughput against the simulated model server, run in a separate process.

Starts ``colmeia sim serve --schema --latency-ms 200`` as a subprocess (so its CPU is not
counted), moderates N records from the sample data at concurrency 32 through the real HTTP
client, and prints ONE JSON line: items_per_min, llm_calls_per_item, prompt_tokens_per_item,
completion_tokens_per_item, framework_cpu_ms_per_llm_call (CPU time of this process divided by
the number of model calls), errors. Asserts nothing about time.

With ``--peer`` the LangGraph peer (``bench/moderation_peer.py``, the same flow hand-built) runs
in the same process against the same server, alternating with colmeia (``--rounds`` each, so
both see the same machine load), and the one line holds both, their medians and the ratio
``colmeia_over_peer`` of items per minute.

    .venv/bin/python bench/moderation.py [--records 300] [--concurrency 32] [--latency-ms 200]
                                         [--peer] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any, cast

from _sim import sim_process  # bench/ is on sys.path when a bench runs
from colmeia.apps.moderation.batch import run_batch
from colmeia.apps.moderation.graph import Moderator
from colmeia.apps.moderation.io import LoadedRecord
from colmeia.apps.moderation.records import ModerationItem
from colmeia.apps.moderation.schemas import (
    ContextualReview,
    Decision,
    Rewrite,
    SemanticReview,
    Suggestions,
)
from colmeia.llm.base import ChatModel, StructuredResult, Usage
from colmeia.llm.openai_compat import OpenAIChatModel

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "moderation" / "sample_items.json"


def _records(n: int) -> list[LoadedRecord]:
    raw = json.loads(SAMPLE.read_text(encoding="utf-8"))
    out = []
    for i in range(n):
        item = ModerationItem.model_validate({**raw[i % len(raw)], "id": f"bench-{i}"})
        out.append(LoadedRecord(key=item.key, source=f"bench[{i}]", item=item, raw_id=item.id))
    return out


async def _run(base_url: str, records: list[LoadedRecord], concurrency: int) -> dict[str, float]:
    model = OpenAIChatModel(base_url=base_url, model="sim", max_concurrency=256)
    moderator = Moderator(model)
    with tempfile.TemporaryDirectory() as tmp:
        # Warm up (imports, HTTP connections, template compilation) outside the measurement:
        # the figures are for a long-running batch, where start-up is paid once.
        warm = [LoadedRecord(f"warm-{r.key}", r.source, r.item) for r in records[:concurrency]]
        await run_batch(warm, moderator, Path(tmp) / "warmup.jsonl", concurrency=concurrency)
        out = Path(tmp) / "results.jsonl"
        cpu0, t0 = time.process_time(), time.perf_counter()
        summary = await run_batch(records, moderator, out, concurrency=concurrency)
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    await model.aclose()
    calls = summary.usage.get("calls", 0) or 1
    n = len(records)
    return {
        "records": n,
        "concurrency": concurrency,
        "items_per_min": round(n / wall * 60, 1),
        "llm_calls_per_item": round(calls / n, 3),
        "prompt_tokens_per_item": round(summary.usage.get("prompt_tokens", 0) / n, 1),
        "completion_tokens_per_item": round(summary.usage.get("completion_tokens", 0) / n, 1),
        "framework_cpu_ms_per_llm_call": round(cpu * 1000 / calls, 3),
        "errors": summary.counts.get("ERROR", 0),
        "missing": len(summary.missing),
        "wall_s": round(wall, 2),
    }


class _InstantModel:
    """Answers every role at once, in process: what the graph and batch runner cost alone."""

    model = "instant"

    def __init__(self) -> None:
        self.rng = random.Random(0)

    async def structured_result(
        self, messages: Any, output_type: type[Any], **_: Any
    ) -> StructuredResult[Any]:
        rng = self.rng
        value: Any
        if output_type in (SemanticReview, ContextualReview):
            value = output_type(justification="Resposta avaliada.", score=rng.randint(0, 5))
        elif output_type is Suggestions:
            value = Suggestions(suggestions=["Cite a potência de 55 W."])
        elif output_type is Rewrite:
            value = Rewrite(can_rewrite=rng.random() < 0.5, answer="Olá! Sim. Att.", reason="")
        else:
            choice = rng.choice(["answer", "rewrite_again", "do_not_answer"])
            value = Decision(reasoning="Ok.", decision=choice)
        usage = Usage(prompt_tokens=100, completion_tokens=20, calls=1, requests=1)
        return StructuredResult(value=value, model=self.model, usage=usage)


async def _graph_only(records: list[LoadedRecord], concurrency: int) -> float:
    moderator = Moderator(cast(ChatModel, _InstantModel()))
    with tempfile.TemporaryDirectory() as tmp:
        await run_batch(records[:concurrency], moderator, Path(tmp) / "w.jsonl")
        cpu0 = time.process_time()
        summary = await run_batch(
            records, moderator, Path(tmp) / "r.jsonl", concurrency=concurrency
        )
        cpu = time.process_time() - cpu0
    return round(cpu * 1000 / max(summary.usage.get("calls", 0), 1), 3)


def _side_by_side(args: argparse.Namespace) -> dict[str, Any]:
    """colmeia and the LangGraph peer, alternating on one server, in one line."""
    import os
    import statistics

    from moderation_peer import _run as peer_run

    ours: list[dict[str, Any]] = []
    peer: list[dict[str, Any]] = []
    load = [round(os.getloadavg()[0], 2)]
    with sim_process("--schema", "--latency-ms", str(args.latency_ms)) as base_url:
        for _ in range(args.rounds):
            ours.append(dict(asyncio.run(_run(base_url, _records(args.records), args.concurrency))))
            peer.append(asyncio.run(peer_run(base_url, args.records, args.concurrency)))
            load.append(round(os.getloadavg()[0], 2))

    def median(runs: list[dict[str, Any]], key: str) -> float:
        return round(statistics.median(float(r[key]) for r in runs), 3)

    keys = ("items_per_min", "framework_cpu_ms_per_llm_call", "llm_calls_per_item", "errors")
    return {
        "bench": "moderation_vs_langgraph",
        "records": args.records,
        "concurrency": args.concurrency,
        "latency_ms": args.latency_ms,
        "colmeia": {k: median(ours, k) for k in keys},
        "langgraph_peer": {k: median(peer, k) for k in keys},
        "colmeia_over_peer": round(
            median(ours, "items_per_min") / max(median(peer, "items_per_min"), 1e-9), 2
        ),
        "colmeia_items_per_min_runs": [r["items_per_min"] for r in ours],
        "peer_items_per_min_runs": [r["items_per_min"] for r in peer],
        "load_avg_1m": load,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency-ms", type=int, default=200)
    parser.add_argument("--peer", action="store_true", help="Run the LangGraph peer alongside.")
    parser.add_argument("--rounds", type=int, default=2, help="Runs of each with --peer.")
    args = parser.parse_args()
    if args.peer:
        print(json.dumps(_side_by_side(args)))
        return
    with sim_process("--schema", "--latency-ms", str(args.latency_ms)) as base_url:
        figures = asyncio.run(_run(base_url, _records(args.records), args.concurrency))
    figures["latency_ms"] = args.latency_ms
    # The same graph and batch runner with an in-process model that answers at once: the
    # share of the CPU per call that is ours, as opposed to the HTTP client stack's.
    figures["graph_and_batch_cpu_ms_per_llm_call"] = asyncio.run(
        _graph_only(_records(args.records), args.concurrency)
    )
    print(json.dumps({"bench": "moderation", **figures}))


if __name__ == "__main__":
    main()
