"""Batch moderation: the local runner beside Ray with 1 and 2 workers, one JSON line.

The simulated model runs in its own process (``colmeia sim serve --schema --latency-ms 200``)
so its CPU is not counted. Each configuration moderates the same N sample records with the
same items in flight per worker (``--per-worker``); a local run at twice that is shown too, the
honest comparison on one machine. Reported per configuration: items_per_min, cpu_ms_per_item
(driver + workers), mean item latency, resident memory of a Ray worker; and ray_overhead_ms_per_item = mean item latency on Ray
with 1 worker minus the local runner's at the same concurrency. Needs Ray (`colmeia[ray]`);
without it the line says so. Asserts nothing about time.

    .venv/bin/python bench/scale.py [--records 120] [--per-worker 8] [--latency-ms 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _sim import sim_process
from colmeia.apps.moderation.batch import open_batch
from colmeia.apps.moderation.records import ModerationItem
from colmeia.apps.moderation.roles import ModerationConfig
from colmeia.config import LLMSettings
from colmeia.executors import init_local_ray, ray_available

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "moderation" / "sample_items.json"
Moderate = Callable[[ModerationItem], Awaitable[dict[str, Any]]]


def _cpu() -> float:
    t = os.times()
    return t.user + t.system


def _timed(fn: Moderate, latencies: list[float]) -> Moderate:
    async def run(item: ModerationItem) -> dict[str, Any]:
        t0 = time.perf_counter()
        try:
            return await fn(item)
        finally:
            latencies.append(time.perf_counter() - t0)

    return run


async def _one(
    name: str, items: Path, llm: LLMSettings, *, workers: int, per_worker: int, tmp: Path
) -> dict[str, Any]:
    out = tmp / f"{name}.jsonl"
    latencies: list[float] = []
    cfg = ModerationConfig()
    cpu0 = _cpu()
    with open_batch([items], out, config=cfg, llm=llm) as batch:
        if workers == 0:
            t0 = time.perf_counter()
            summary = await batch.run(
                concurrency=per_worker, moderate=_timed(batch.moderator.moderate, latencies)
            )
            wall = time.perf_counter() - t0
            worker_cpu = 0.0
            rss = []
        else:
            from colmeia.apps.moderation.distributed import ray_moderation

            async with ray_moderation(cfg, llm, workers=workers, per_worker=per_worker) as (
                moderate,
                pool,
            ):
                w0 = pool.worker_cpu_s()
                cpu0 = _cpu()
                t0 = time.perf_counter()
                summary = await batch.run(
                    concurrency=pool.concurrency, moderate=_timed(moderate, latencies)
                )
                wall = time.perf_counter() - t0
                worker_cpu = pool.worker_cpu_s() - w0
                rss = pool.worker_rss_mb()
    driver_cpu = _cpu() - cpu0
    n = summary.done
    return {
        "items": n,
        "errors": summary.counts.get("ERROR", 0),
        "items_per_min": round(n / wall * 60, 1),
        "cpu_ms_per_item": round((driver_cpu + worker_cpu) / n * 1000, 1),
        "mean_item_latency_ms": round(sum(latencies) / len(latencies) * 1000, 1),
        **({"worker_rss_mb": round(max(rss), 1)} if rss else {}),
    }


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    records = json.loads(SAMPLE.read_text(encoding="utf-8"))
    records = (records * (args.records // len(records) + 1))[: args.records]
    for i, rec in enumerate(records):
        rec["id"] = f"{rec['id']}-{i}"
    result: dict[str, Any] = {
        "bench": "scale",
        "records": args.records,
        "latency_ms": args.latency_ms,
        "per_worker": args.per_worker,
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }
    with (
        tempfile.TemporaryDirectory() as d,
        sim_process("--schema", "--latency-ms", str(args.latency_ms)) as base_url,
    ):
        tmp = Path(d)
        items = tmp / "items.json"
        items.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
        llm = LLMSettings().model_copy(update={"base_url": base_url, "model": "sim"})
        pw = args.per_worker
        result["local"] = await _one("local", items, llm, workers=0, per_worker=pw, tmp=tmp)
        result[f"local_j{2 * pw}"] = await _one(
            "local2", items, llm, workers=0, per_worker=2 * pw, tmp=tmp
        )
        if not ray_available():
            result["ray"] = "skipped: Ray is not installed (pip install 'colmeia[ray]')"
            return result
        import ray

        init_local_ray(num_cpus=2)
        try:
            for w in (1, 2):
                result[f"ray_{w}w"] = await _one(
                    f"ray{w}", items, llm, workers=w, per_worker=pw, tmp=tmp
                )
        finally:
            ray.shutdown()
        result["ray_overhead_ms_per_item"] = round(
            result["ray_1w"]["mean_item_latency_ms"] - result["local"]["mean_item_latency_ms"], 1
        )
        result["ray_2w_speedup_vs_1w"] = round(
            result["ray_2w"]["items_per_min"] / result["ray_1w"]["items_per_min"], 2
        )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=120)
    parser.add_argument("--per-worker", type=int, default=8)
    parser.add_argument("--latency-ms", type=float, default=200)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main_async(args))))


if __name__ == "__main__":
    main()
