"""CLI start-up: how long ``colmeia search … -c leis`` takes as a fresh process, on the nine
federal laws shipped in ``data/laws/lexml``, and which heavy modules it loads.

Ingests the laws once into a temporary home (not timed), then runs the search ``--runs`` times
(default 7), and ``colmeia --help`` and ``colmeia --version`` as many, each a new process.
Prints ONE JSON line: median and best wall seconds and median and best CPU seconds (user +
system of the child) per command; for the search, how many modules it loaded, the sum of
``-X importtime``'s self times (best of three runs, in ms) and the heavy modules among them (it
should import none of aiohttp, faiss, LangGraph, Jinja2, bm25s or the model client: a lexical
search uses none); and the load average before and after. On a busy machine wall time follows
the load; CPU time and the module list much less.

    .venv/bin/python bench/cli_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LAWS = ROOT / "data" / "laws" / "lexml"
QUERY = "prazo para reclamar de vício aparente"
HEAVY = (
    "aiohttp",
    "faiss",
    "langgraph",
    "colmeia.llm.openai_compat",
    "matplotlib",
    "jinja2",
    "bm25s",
    "tqdm",
    "colmeia.apps",
    "colmeia.agents",
)
COLMEIA = [sys.executable, "-m", "colmeia"]


def timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(args[2:])} failed: {out.stderr.strip()[:300]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def search_imports(env: dict[str, str]) -> dict[str, Any]:
    """Modules a search loads, the heavy ones among them, and -X importtime's total (best of 3)."""
    totals = []
    loaded: set[str] = set()
    for _ in range(3):
        out = subprocess.run(
            [*COLMEIA[:1], "-X", "importtime", "-m", "colmeia", "search", QUERY, "-c", "leis"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        rows = [line.split("|") for line in out.stderr.splitlines() if line.startswith("import")]
        rows = [r for r in rows if r[0].split(":")[-1].strip().isdigit()]
        totals.append(sum(int(r[0].split(":")[-1]) for r in rows) / 1000)
        loaded = {r[-1].strip() for r in rows}
    return {
        "modules": len(loaded),
        "importtime_self_ms_best": round(min(totals)),
        "heavy": sorted({h for h in HEAVY for m in loaded if m == h or m.startswith(h + ".")}),
    }


def summary(samples: list[tuple[float, float]]) -> dict[str, float]:
    walls = [w for w, _ in samples]
    return {
        "wall_s_median": round(statistics.median(walls), 3),
        "wall_s_best": round(min(walls), 3),
        "cpu_s_median": round(statistics.median(c for _, c in samples), 3),
        "cpu_s_best": round(min(c for _, c in samples), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **{
                k: v
                for k, v in os.environ.items()
                if not k.startswith("COLMEIA_") and k != "PYTHONDONTWRITEBYTECODE"
            },
            "COLMEIA_HOME": str(Path(tmp) / "home"),
            # as an installed colmeia runs: bytecode compiled once and reused (kept in the temp
            # dir, not beside the sources); the first, untimed runs compile it
            "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache"),
        }
        subprocess.run(
            [*COLMEIA, "ingest", str(LAWS), "-c", "leis"],
            env=env,
            capture_output=True,
            check=True,
            timeout=900,
        )
        timed([*COLMEIA, "search", QUERY, "-c", "leis"], env)  # warm: compiles the bytecode
        search = [timed([*COLMEIA, "search", QUERY, "-c", "leis"], env) for _ in range(args.runs)]
        timed([*COLMEIA, "--help"], env)
        help_ = [timed([*COLMEIA, "--help"], env) for _ in range(args.runs)]
        version = [timed([*COLMEIA, "--version"], env) for _ in range(args.runs)]
        imports = search_imports(env)
    print(
        json.dumps(
            {
                "bench": "cli_startup",
                "laws": len(list(LAWS.glob("*.csv"))),
                "runs": args.runs,
                "search": summary(search),
                "help": summary(help_),
                "version": summary(version),
                "search_modules": imports["modules"],
                "search_importtime_self_ms": imports["importtime_self_ms_best"],
                "search_heavy_imports": imports["heavy"],
                "target_search_wall_s": 0.4,
                "load_before": [round(x, 2) for x in load_before],
                "load_after": [round(x, 2) for x in os.getloadavg()],
            }
        )
    )


if __name__ == "__main__":
    main()
