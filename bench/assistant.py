"""The assistant's turns: offline in process and from the CLI, against the simulated model under
load, and on the real local 1.5B model. Prints ONE JSON line; asserts nothing about time.

Every part runs on the same shipped laws and synthetic registry (2,000 processes):

* ``offline`` — one warm assistant without a model: the median wall time of a case question,
  a law question and a mixed question (``offline_case_ms``, ``offline_law_ms``,
  ``offline_mixed_ms``; target ≤ 50 ms). This is what a person waits for without a model.
* ``cli`` — ``colmeia assistant ask`` processes answering a law question offline, each in a
  new thread, start-up included: the median CPU time (user + system, ``cli_cpu_s``; target
  ≤ 1 s) and wall time of three, the first one's CPU apart (``cli_first_cpu_s``: after an
  ingest it builds the definitions index the next ones read), whether it cited, and which heavy
  libraries that process imported (``cli_heavy_imports``, from a run that lists its modules).
  Offline, such a turn runs without the graph (colmeia.apps.assistant.frame_turn): no
  LangGraph. ``cli_parts_without_langgraph_cpu_s`` is the same turn's parts alone (no CLI, no
  thread kept), for comparison. ``cli_cpu_bytecode_cached_s`` is the same turn's median CPU
  with its bytecode compiled once and reused, as an installed colmeia runs (and as
  bench/cli_startup.py measures); ``cli_compiles_sources`` says whether the processes above
  compiled every module from source instead (PYTHONDONTWRITEBYTECODE set, no .pyc installed:
  about half of their CPU on the machine where this was written).
* ``sim`` — ``--threads`` concurrent conversations of three turns (a case question, a legal
  question, a thank-you) against the assistant's simulated model at ``--latency-ms`` per call,
  served from its own process so that its CPU is not counted: turns/s, model calls and tokens
  per turn, and the framework CPU per turn (graph, checkpoints, retrieval, HTTP client).
* ``local`` — a fixed sample of turns (:data:`LOCAL_TURNS`) on the packaged
  Qwen2.5-Coder-1.5B served by ``colmeia llm serve`` at temperature 0: model calls and
  seconds per turn, and which turns got the expected kind of answer. Skipped, with the reason,
  when the model cannot be served here (no xllamacpp, no weights, COLMEIA_TEST_REAL_MODEL=0).

The load average before and after is recorded: the machine is shared and the figures move with
it. ``--parts`` picks the parts (default: all).

    .venv/bin/python bench/assistant.py [--parts offline,cli,sim,local] [--turns 30]
        [--threads 50] [--latency-ms 200] [--gguf qwen2.5-coder-1.5b-instruct]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import importlib.util
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from _sim import stand_in_process

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the one way the tests start a local model

from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry  # noqa: E402
from colmeia.apps.assistant.session import Assistant, open_assistant  # noqa: E402
from colmeia.apps.assistant.settings import AssistantSettings  # noqa: E402
from colmeia.apps.assistant.synthetic import generate_registry  # noqa: E402
from colmeia.llm.base import ChatModel, track_usage  # noqa: E402
from colmeia.llm.openai_compat import OpenAIChatModel  # noqa: E402
from colmeia.rag.pipeline import ingest  # noqa: E402
from colmeia.rag.retrieve import Retriever  # noqa: E402
from colmeia.store import open_store  # noqa: E402

DATA = ROOT / "data"
AS_OF = dt.date(2026, 11, 1)
PARTS = ("offline", "cli", "sim", "local")
CLI_RUNS = 3
OFFLINE = {
    "case": "qual a situação do processo 32/2023?",
    "law": "o que é dado pessoal sensível?",
    "mixed": "processo 32/2023 ta parado, a lei 9.784 permite isso?",
}
# The local model's sample: two threads of three turns, each with the kind of answer it should
# get (as colmeia.apps.assistant.conversations scores it). Fixed, so runs compare.
LOCAL_TURNS = (
    ("a", "qual a situação do processo 32/2023?", "case"),
    ("a", "e quem é o relator?", "case"),
    ("a", "o que é dado pessoal sensível segundo a LGPD?", "law"),
    ("b", "processo 32/2023 ta parado, a lei 9.784 permite isso?", "mixed"),
    ("b", "qual o prazo para interpor recurso administrativo?", "law"),
    ("b", "vai chover amanhã em Belém?", "scope"),
)
# The same law question's parts in a fresh process — the CLI's own modules, the settings, the
# turn's frame and the RAG pipeline — without the assistant's graph and its checkpointer (the
# CLI's offline turn runs without them too, and keeps its thread): the floor of cli_cpu_s.
PARTS_ONLY = """
import asyncio, sys
import colmeia.cli, colmeia.cli.assistant_cmd
from colmeia.apps.assistant.frame import read_frame
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.config import get_settings
from colmeia.store import open_store
get_settings()
frame = read_frame(sys.argv[2])
store = open_store(sys.argv[1])
result = asyncio.run(RagPipeline(store, "leis").run(frame.text))
assert result["citations"], result
assert "langgraph" not in sys.modules
"""
HEAVY = ("langgraph", "langchain_core", "langsmith", "scipy", "bm25s", "jinja2", "yaml", "faiss")
LIST_MODULES = """
import sys
from colmeia.cli import main
sys.argv = ["colmeia", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
print("MODULES", " ".join(sorted(sys.modules)))
"""


def _legal_questions() -> list[str]:
    rows = (DATA / "assistant" / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [
        json.loads(r)["question"]
        for r in rows
        if r.strip() and json.loads(r)["expected_agent"] == "rag"
    ]


@asynccontextmanager
async def _assistant(
    work: Path, model: ChatModel | None, checkpoints: str
) -> AsyncIterator[Assistant]:
    store = open_store(f"sqlite:///{work / 'laws.db'}")
    registry = SQLiteCaseRegistry(work / "registry.db")
    try:
        async with open_assistant(
            store=store,
            model=model,
            registry=registry,
            checkpoints=checkpoints,
            settings=AssistantSettings(collection="leis"),
            home=work,
            today=AS_OF,
        ) as bot:
            yield bot
    finally:
        registry.close_sync()
        store.close()


async def offline_turns(work: Path, turns: int) -> dict[str, float]:
    """Median wall and CPU milliseconds per turn kind (CPU moves less with the load)."""
    wall: dict[str, list[float]] = {kind: [] for kind in OFFLINE}
    cpu: dict[str, list[float]] = {kind: [] for kind in OFFLINE}
    async with _assistant(work, None, "memory://") as bot:
        for i in range(turns + 1):
            for kind, question in OFFLINE.items():
                started, cpu0 = time.perf_counter(), time.process_time()
                await bot.ask(f"bench-{i}-{kind}", question)
                if i:  # the first round warms the caches
                    wall[kind].append(time.perf_counter() - started)
                    cpu[kind].append(time.process_time() - cpu0)
    out = {f"offline_{k}_ms": round(1000 * statistics.median(v), 1) for k, v in wall.items()}
    out.update(
        {f"offline_{k}_cpu_ms": round(1000 * statistics.median(v), 1) for k, v in cpu.items()}
    )
    return out


def cli_turn(work: Path) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
    env.update(
        COLMEIA_HOME=str(work / "home"),
        COLMEIA_STORE=f"sqlite:///{work / 'laws.db'}",
        COLMEIA_ASSISTANT_REGISTRY=f"sqlite:///{work / 'registry.db'}",
        COLMEIA_EMBEDDINGS_MODEL="none",
    )
    args = ["assistant", "ask", OFFLINE["law"], "--json", "--offline"]
    colmeia = str(Path(sys.executable).with_name("colmeia"))
    cpus: list[float] = []
    walls: list[float] = []
    cited = True
    for _ in range(CLI_RUNS):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(
            [colmeia, *args], env=env, capture_output=True, text=True, check=False
        )
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
        cited = cited and done.returncode == 0 and bool(json.loads(done.stdout).get("citations"))
    cpu, wall = statistics.median(cpus), statistics.median(walls)
    cached = _cached_bytecode_cpu(colmeia, args, env, work)
    listed = subprocess.run(
        [sys.executable, "-c", LIST_MODULES, *args], env=env, capture_output=True, text=True
    )
    modules = listed.stdout.rpartition("MODULES")[2].split()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    parts = subprocess.run(
        [sys.executable, "-c", PARTS_ONLY, env["COLMEIA_STORE"], OFFLINE["law"]],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    parts_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    heavy = sorted({h for h in HEAVY for m in modules if m == h or m.startswith(h + ".")})
    return {
        "cli_cpu_s": round(cpu, 2),
        "cli_first_cpu_s": round(cpus[0], 2),
        "cli_wall_s": round(wall, 2),
        "cli_cited": cited,
        "cli_heavy_imports": heavy,
        "cli_parts_without_langgraph_cpu_s": round(parts_cpu, 2) if parts.returncode == 0 else None,
        "cli_compiles_sources": _compiles_sources(),
        "cli_cpu_bytecode_cached_s": round(cached, 2),
    }


def _compiles_sources() -> bool:
    """Whether a new process compiles its modules from source: it may not write bytecode and
    none was installed (typer's, one module every CLI process imports, stands for all)."""
    spec = importlib.util.find_spec("typer.main")
    cached = spec.cached if spec else None
    return sys.dont_write_bytecode and not (cached and Path(cached).exists())


def _cached_bytecode_cpu(colmeia: str, args: list[str], env: dict[str, str], work: Path) -> float:
    """The median CPU of CLI_RUNS more turns as an installed colmeia runs them: bytecode
    compiled once and reused (as bench/cli_startup.py measures). Where PYTHONDONTWRITEBYTECODE
    is set and no .pyc was installed, every process above compiled its sources anew."""
    env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    cpus: list[float] = []
    for i in range(CLI_RUNS + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([colmeia, *args], env=env, capture_output=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if i:  # the first one compiles the bytecode
            cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return statistics.median(cpus)


async def _conversation(bot: Assistant, tid: str, number: str, legal: str) -> tuple[int, int]:
    turns = errors = 0
    for text in (f"Onde está o processo {number} e desde quando?", legal, "Obrigado!"):
        result = await bot.ask(tid, text)
        turns += 1
        errors += result.status not in ("answered", "waiting_clarification")
    return turns, errors


async def _concurrent(
    work: Path, model: ChatModel | None, threads: int, numbers: list[str]
) -> dict[str, Any]:
    legal = _legal_questions()
    rng = random.Random(5)
    checkpoints = f"sqlite:///{work / f'threads-{model is None}.db'}"
    async with _assistant(work, model, checkpoints) as bot:
        await _conversation(bot, "warm-up", numbers[0], legal[0])  # imports, caches
        cpu0, wall0 = time.process_time(), time.perf_counter()
        with track_usage() as tracker:
            done = await asyncio.gather(
                *(
                    _conversation(bot, f"b-{i}", rng.choice(numbers), rng.choice(legal))
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
    }


async def simulated(work: Path, url: str, threads: int, numbers: list[str]) -> dict[str, Any]:
    async with OpenAIChatModel(base_url=url, model="sim", max_concurrency=256) as model:
        sim = await _concurrent(work, model, threads, numbers)
    offline = await _concurrent(work, None, threads, numbers)
    return {
        **{f"sim_{k}": v for k, v in sim.items()},
        "sim_offline_framework_cpu_ms_per_turn": offline["framework_cpu_ms_per_turn"],
    }


async def _local_turns(work: Path, base_url: str, name: str) -> dict[str, Any]:
    from colmeia.apps.assistant.conversations import observed_kind

    rows: list[dict[str, Any]] = []
    async with (
        OpenAIChatModel(base_url=base_url, model=name, provider="llamacpp", timeout=900) as model,
        _assistant(work, model, "memory://") as bot,
    ):
        for thread, question, expected in LOCAL_TURNS:
            started = time.perf_counter()
            with track_usage() as tracker:
                result = await bot.ask(f"local-{thread}", question)
            rows.append(
                {
                    "seconds": time.perf_counter() - started,
                    "calls": tracker.usage.calls,
                    "kind_ok": observed_kind(result) == expected,
                }
            )
    return {
        "local_turns": len(rows),
        "local_model_calls_per_turn": round(sum(r["calls"] for r in rows) / len(rows), 2),
        "local_s_per_turn": round(sum(r["seconds"] for r in rows) / len(rows), 1),
        "local_s_per_turn_max": round(max(r["seconds"] for r in rows), 1),
        "local_expected_kind": sum(r["kind_ok"] for r in rows),
    }


def local_model(work: Path, gguf_name: str) -> dict[str, Any]:
    from local_model import gguf_or_skip_reason, start_local_model

    found, reason = gguf_or_skip_reason()
    if found is None:
        return {"local_skipped": reason}
    from colmeia.errors import ConfigurationError
    from colmeia.llm.gguf import resolve_gguf

    try:
        gguf = resolve_gguf(gguf_name)
    except ConfigurationError as exc:
        return {"local_skipped": f"{gguf_name}: {exc}"}
    server = start_local_model(gguf)
    try:
        out: dict[str, Any] = {"local_model": gguf.name, "local_startup_s": round(server.startup_s)}
        out.update(asyncio.run(_local_turns(work, server.base_url, server.model)))
        return out
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default=",".join(PARTS))
    parser.add_argument("--turns", type=int, default=30, help="offline rounds in process")
    parser.add_argument("--threads", type=int, default=50)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--gguf", default="qwen2.5-coder-1.5b-instruct")
    args = parser.parse_args()
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        parser.error(f"unknown parts {unknown}: use {', '.join(PARTS)}")
    out: dict[str, Any] = {
        "bench": "assistant",
        "parts": parts,
        "loadavg_before": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
    }
    with tempfile.TemporaryDirectory(prefix="colmeia-bench-assistant-") as tmp:
        work = Path(tmp)
        store = open_store(f"sqlite:///{work / 'laws.db'}")
        ingest(store, "leis", [DATA / "laws" / "lexml"])
        Retriever(store, "leis").warm()
        store.close()
        registry = SQLiteCaseRegistry(work / "registry.db")
        batch = generate_registry(registry, processes=2000, expedientes=500, as_of=AS_OF)
        registry.close_sync()
        numbers = [p.number for p in batch.processes[:400]]
        if "offline" in parts:
            out.update(asyncio.run(offline_turns(work, args.turns)))
        if "cli" in parts:
            out.update(cli_turn(work))
        if "sim" in parts:
            with stand_in_process(args.latency_ms) as url:
                out.update(asyncio.run(simulated(work, url, args.threads, numbers)))
            out.update(threads=args.threads, latency_ms=args.latency_ms)
        if "local" in parts:
            out.update(local_model(work, args.gguf))
    out["targets"] = {"offline_ms": 50, "cli_cpu_s": 1.0}
    out["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
