"""The service under load, against the simulated model in its own process.

1. Chat turns: ``--sessions`` concurrent sessions (200) each ask ``--turns`` questions in a row
   over HTTP (``POST /v1/ask``: auth, rate limit, quota, retrieval, one model call, citation
   checks). The model's own time is known per turn (``usage.latency_s``), so the time the
   *service* adds is measured twice: end to end at the client (includes queueing in this
   client), and inside the server (its request log's duration). The peer: the same turn as a
   library call in one process (retrieval + ``answer_question``), no HTTP.
2. Assistant conversations: ``--sessions`` concurrent threads (``POST /v1/assistant/threads``),
   each a conversation of ``--turns`` messages (a case in the tenant's registry of 5,000
   synthetic processes, a question on the laws, a thank-you) through the coordinator, the
   search and RAG agents and the SQLite checkpoints. The model is the assistant's careful
   stand-in (``colmeia.apps.assistant.simulated``) in its own process. Overhead per turn as
   above (server request log minus the turn's model time); the peer is the same conversations
   through the library (``open_assistant``) at the same concurrency, no HTTP.
3. Moderation: the same records moderated through the API (a job) and through the CLI
   (``colmeia moderate run``), same model server, same concurrency; records per second.

0. Hardening on vs off (issue 20: it may cost at most 5 % of ``/v1/ask`` throughput): the
   chat turns of 1. against this tree's server ("on") and against the server of the tree before
   the hardening (``--baseline``, default ``a8102c3``: extracted with ``git archive`` and run
   with its ``src`` first on ``PYTHONPATH``; or ``--baseline-src``, the ``src`` of a checkout
   such as a ``git worktree`` of that commit; "off"), alternating off/on ``--rounds`` times (2)
   on fresh homes, same model server, same client. ``hardening_cost_pct`` is the drop of the
   mean turns per second; the spread of each side is printed with it, since on a loaded
   machine run-to-run noise can exceed the difference. ``--rounds 0`` skips it.

Prints ONE JSON line with the figures and the load average. Asserts nothing about time.

    .venv/bin/python bench/service.py [--sessions 200] [--turns 3] [--latency-ms 50] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(ROOT / "tests"))

from _sim import sim_process, stand_in_process  # noqa: E402
from colmeia.service.db import open_database  # noqa: E402
from colmeia.service.keys import create_key  # noqa: E402
from serve_process import start_server, stop_server  # noqa: E402

QUESTIONS = [
    "qual o prazo para responder a um pedido de acesso à informação?",
    "o titular pode pedir a eliminação dos dados pessoais?",
    "quando a administração deve motivar seus atos?",
    "o consumidor pode desistir da compra feita fora do estabelecimento?",
    "quem fiscaliza o tratamento de dados pessoais?",
]


def _ingest_laws(url: str, headers: dict[str, str]) -> None:
    """Upload three of the shipped laws into the collection ``leis`` and wait for the job."""
    laws = sorted((ROOT / "data" / "laws" / "lexml").glob("*.csv"))[:3]
    files = [("files", (p.name, p.read_bytes(), "text/csv")) for p in laws]
    job = httpx.post(
        f"{url}/v1/collections/leis/documents", files=files, headers=headers, timeout=120
    ).json()
    while httpx.get(f"{url}/v1/jobs/{job['id']}", headers=headers).json()["status"] in (
        "queued",
        "running",
    ):
        time.sleep(0.2)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def _ms(x: float) -> float:
    return round(x * 1000, 2)


async def _chat(url: str, key: str, sessions: int, turns: int) -> dict[str, Any]:
    h = {"X-API-Key": key}
    limits = httpx.Limits(max_connections=sessions, max_keepalive_connections=sessions)
    results: list[tuple[str, float, float]] = []
    errors = 0

    async with httpx.AsyncClient(base_url=url, headers=h, limits=limits, timeout=120) as client:

        async def session(i: int) -> None:
            nonlocal errors
            for t in range(turns):
                q = QUESTIONS[(i + t) % len(QUESTIONS)]
                rid = f"bench-{i}-{t}"
                started = time.perf_counter()
                r = await client.post(
                    "/v1/ask", json={"question": q, "k": 5}, headers={"X-Request-ID": rid}
                )
                took = time.perf_counter() - started
                if r.status_code != 200:
                    errors += 1
                    continue
                results.append((rid, took, float(r.json()["usage"]["latency_s"])))

        started = time.perf_counter()
        await asyncio.gather(*(session(i) for i in range(sessions)))
        wall = time.perf_counter() - started
    return {"results": results, "errors": errors, "wall_s": wall}


THANKS = "Obrigado!"


def _case_numbers(n: int) -> list[str]:
    from colmeia.apps.assistant.synthetic import SyntheticRegistry

    return [p.number for p in SyntheticRegistry(as_of=None).batch(n, 0).processes]


def _conversation(i: int, turns: int, numbers: list[str]) -> list[str]:
    texts = [
        f"Onde está o processo {numbers[i % len(numbers)]} e desde quando?",
        QUESTIONS[i % len(QUESTIONS)],
        THANKS,
    ]
    return [texts[t % len(texts)] for t in range(turns)]


async def _assistant_chat(
    url: str, key: str, sessions: int, turns: int, numbers: list[str]
) -> dict[str, Any]:
    h = {"X-API-Key": key}
    limits = httpx.Limits(max_connections=sessions, max_keepalive_connections=sessions)
    results: list[tuple[str, float, float]] = []
    errors: list[str] = []

    async with httpx.AsyncClient(base_url=url, headers=h, limits=limits, timeout=300) as client:

        async def session(i: int) -> None:
            r = await client.post("/v1/assistant/threads", json={"collection": "leis"})
            if r.status_code != 201:
                errors.append(f"thread {r.status_code}")
                return
            tid = r.json()["id"]
            for t, text in enumerate(_conversation(i, turns, numbers)):
                rid = f"bench-a-{i}-{t}"
                started = time.perf_counter()
                r = await client.post(
                    f"/v1/assistant/threads/{tid}/messages",
                    json={"text": text},
                    headers={"X-Request-ID": rid},
                )
                took = time.perf_counter() - started
                body = r.json() if r.status_code == 200 else {}
                if body.get("status") != "answered":
                    errors.append(f"{r.status_code} {body.get('status')}")
                    continue
                results.append((rid, took, float(body["usage"]["latency_s"])))

        started = time.perf_counter()
        await asyncio.gather(*(session(i) for i in range(sessions)))
        wall = time.perf_counter() - started
    return {"results": results, "errors": errors, "wall_s": wall}


def _library_assistant(
    home: Path, tenant: str, model_url: str, sessions: int, turns: int
) -> dict[str, float]:
    """The same conversations through the library at the same concurrency, no HTTP (the peer)."""
    from colmeia.apps.assistant.registry_url import open_registry
    from colmeia.apps.assistant.session import open_assistant
    from colmeia.apps.assistant.settings import AssistantSettings
    from colmeia.llm import OpenAIChatModel
    from colmeia.llm.base import track_usage
    from colmeia.store import open_store

    folder = home / "tenants" / tenant
    store = open_store(f"sqlite:///{folder / 'colmeia.db'}")
    numbers = _case_numbers(400)

    async def run() -> tuple[list[float], float]:
        out: list[float] = []
        registry = open_registry(f"sqlite:///{folder / 'registry.db'}")
        async with (
            OpenAIChatModel(base_url=model_url, model="sim", max_concurrency=512) as model,
            open_assistant(
                store=store,
                model=model,
                registry=registry,
                checkpoints=f"sqlite:///{folder / 'library-peer.db'}",
                settings=AssistantSettings(collection="leis"),
                home=folder,
            ) as bot,
        ):

            async def conversation(i: int) -> None:
                for text in _conversation(i, turns, numbers):
                    with track_usage() as tracker:
                        started = time.perf_counter()
                        await bot.ask(f"peer-{i}", text)
                        took = time.perf_counter() - started
                    out.append(took - tracker.usage.latency_s)

            await conversation(-1)  # warm-up
            out.clear()
            started = time.perf_counter()
            await asyncio.gather(*(conversation(i) for i in range(sessions)))
            wall = time.perf_counter() - started
        await registry.close()
        return out, wall

    overheads, wall = asyncio.run(run())
    store.close()
    return {
        "overhead_ms_p50": _ms(_pct(overheads, 0.5)),
        "overhead_ms_p95": _ms(_pct(overheads, 0.95)),
        "turns_per_s": round(len(overheads) / wall, 1),
    }


def _server_durations(log: Path, route: str = "/v1/ask") -> dict[str, float]:
    out: dict[str, float] = {}
    for line in log.read_text(errors="replace").splitlines():
        if not line.startswith("{") or f'"route":"{route}"' not in line:
            continue
        entry = json.loads(line)
        out[entry.get("request_id", "")] = float(entry["duration_ms"]) / 1000
    return out


def _library_turn_ms(home: Path, tenant: str, model_url: str, n: int) -> float:
    """The same turn as a library call: retrieval + answer_question, no HTTP (the peer)."""
    from colmeia.llm import OpenAIChatModel
    from colmeia.llm.base import track_usage
    from colmeia.rag.generate import answer_question
    from colmeia.rag.retrieve import Retriever
    from colmeia.store import open_store

    store = open_store(f"sqlite:///{home / 'tenants' / tenant / 'colmeia.db'}")
    retriever = Retriever(store, [c.name for c in store.collections()])

    async def run() -> list[float]:
        model = OpenAIChatModel(base_url=model_url, model="sim")
        out = []
        try:
            for i in range(n):
                q = QUESTIONS[i % len(QUESTIONS)]
                with track_usage() as tracker:
                    started = time.perf_counter()
                    hits = await retriever.asearch(q, 5)
                    await answer_question(q, hits, model)
                    took = time.perf_counter() - started
                out.append(took - tracker.usage.latency_s)
        finally:
            await model.aclose()
        return out

    overheads = asyncio.run(run())
    store.close()
    return _ms(statistics.median(overheads))


def _moderation_api(url: str, key: str, batch: Path, concurrency: int) -> dict[str, Any]:
    h = {"X-API-Key": key}
    started = time.perf_counter()
    r = httpx.post(
        f"{url}/v1/moderation/jobs",
        files=[("files", (batch.name, batch.read_bytes(), "application/json"))],
        data={"concurrency": str(concurrency)},
        headers=h,
        timeout=60,
    )
    r.raise_for_status()
    job_id = r.json()["id"]
    while True:
        job = httpx.get(f"{url}/v1/jobs/{job_id}", headers=h, timeout=30).json()
        if job["status"] in ("succeeded", "failed", "cancelled"):
            break
        time.sleep(0.1)
    wall = time.perf_counter() - started
    result = job["result"] or {}
    return {
        "status": job["status"],
        "wall_s": wall,
        "run_s": float(result.get("wall_s") or wall),
        "records": int(result.get("total") or 0),
    }


def _moderation_cli(model_url: str, batch: Path, out: Path, concurrency: int) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
    env.update(COLMEIA_LLM_BASE_URL=model_url, COLMEIA_LLM_MODEL="sim", COLUMNS="200")
    started = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "colmeia",
            "moderate",
            "run",
            str(batch),
            "--out",
            str(out),
            "--concurrency",
            str(concurrency),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - started
    found = re.search(r"written in ([\d.]+)s", done.stdout)
    return {"wall_s": wall, "run_s": float(found.group(1)) if found else wall}


# the last commit before the hardening of issue 20 (the archive limits came next)
BASELINE = "a8102c3"


def _tree_at(ref: str, dest: Path) -> Path:
    """The ``src`` folder of ``ref``, extracted read-only from the repository."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "src"], capture_output=True, check=True
    ).stdout
    dest.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest / "src"


def _ask_round(home: Path, env: dict[str, str], sessions: int, turns: int) -> dict[str, float]:
    """One server (the code ``env``'s PYTHONPATH picks), one key, the laws ingested, then the
    chat turns; turns per second and the load around them."""
    home.mkdir(parents=True)
    # a machine shared with other work may take minutes to start a server: wait, don't fail
    server = start_server(home, simulated=False, env=env, timeout=600)
    try:
        clean = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
        create = ["keys", "create", "-t", "bench", "-n", "bench", "--json"]
        made = subprocess.run(
            [sys.executable, "-m", "colmeia", *create],
            env={**clean, **env, "COLMEIA_HOME": str(home)},
            capture_output=True,
            text=True,
            check=True,
        )
        key = str(json.loads(made.stdout)["key"])
        h = {"X-API-Key": key}
        _ingest_laws(server.url, h)
        # which code answers: the hardened API documents its 401 on every operation (issue
        # 20); round two (issue 34) shows the tokens a request holds in /v1/me
        spec = httpx.get(f"{server.url}/openapi.json").json()
        hardened = "401" in spec["paths"]["/v1/ask"]["post"]["responses"]
        if os.environ.get("COLMEIA_BENCH_ROUND_TWO"):
            hardened = "tokens_held_per_request" in json.dumps(spec)
        asyncio.run(_chat(server.url, key, 10, 1))  # warm-up
        load = os.getloadavg()[0]
        chat = asyncio.run(_chat(server.url, key, sessions, turns))
    finally:
        stop_server(server)
    return {
        "turns_per_s": len(chat["results"]) / chat["wall_s"],
        "errors": chat["errors"],
        "load": load,
        "hardened": hardened,
    }


def _hardening_cost(
    tmp: Path, model_url: str, env: dict[str, str], args: argparse.Namespace
) -> dict[str, Any]:
    """/v1/ask throughput with the hardening (this tree) and without (``args.baseline``),
    alternating off/on so a drift of the machine's load falls on both."""
    if args.baseline_src:
        # another checkout (a git worktree of the tree before): its src first on PYTHONPATH
        base_src = Path(args.baseline_src).resolve()
        if not (base_src / "colmeia" / "__init__.py").is_file():
            raise SystemExit(f"--baseline-src {base_src}: not a src folder holding colmeia/")
    else:
        base_src = _tree_at(args.baseline, tmp / "baseline")
    here = os.environ.get("PYTHONPATH", "")
    off_env = {**env, "PYTHONPATH": os.pathsep.join(p for p in (str(base_src), here) if p)}
    runs: dict[str, list[dict[str, float]]] = {"off": [], "on": []}
    for i in range(args.rounds):
        for side, side_env in (("off", off_env), ("on", env)):
            home = tmp / f"hardening-{side}-{i}"
            run = _ask_round(home, side_env, args.sessions, args.turns)
            if run.pop("hardened") != (side == "on"):
                raise SystemExit(f"the {side!r} server ran the wrong code (see {home})")
            runs[side].append(run)
    off = [r["turns_per_s"] for r in runs["off"]]
    on = [r["turns_per_s"] for r in runs["on"]]
    return {
        "hardening_baseline": args.baseline_src or args.baseline,
        "hardening_rounds": args.rounds,
        "hardening_off_turns_per_s": [round(x, 1) for x in off],
        "hardening_on_turns_per_s": [round(x, 1) for x in on],
        "hardening_cost_pct": round(100 * (1 - statistics.mean(on) / statistics.mean(off)), 1),
        "hardening_errors": int(sum(r["errors"] for rs in runs.values() for r in rs)),
        "hardening_load_avg_1m": [round(r["load"], 2) for rs in runs.values() for r in rs],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=200)
    ap.add_argument("--turns", type=int, default=3)
    ap.add_argument("--latency-ms", type=float, default=50.0)
    ap.add_argument("--records", type=int, default=100)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=2, help="hardening off/on pairs (0: skip)")
    ap.add_argument("--baseline", default=BASELINE, help="the tree without the hardening")
    ap.add_argument(
        "--baseline-src",
        default="",
        help="the src folder of a checkout of the tree without the hardening (instead of "
        "--baseline's commit)",
    )
    ap.add_argument(
        "--only-hardening", action="store_true", help="measure hardening on vs off, nothing else"
    )
    args = ap.parse_args()

    with (
        tempfile.TemporaryDirectory(prefix="colmeia-bench-service-") as tmp,
        sim_process("--schema", "--latency-ms", str(args.latency_ms)) as model_url,
    ):
        env = {
            "COLMEIA_LLM_BASE_URL": model_url,
            "COLMEIA_LLM_MODEL": "sim",
            "COLMEIA_SERVICE_RATE_LIMIT_PER_MINUTE": "1000000",
            "COLMEIA_SERVICE_TOKEN_QUOTA": "1000000000",
            "COLMEIA_LLM_MAX_CONCURRENCY": "512",
        }
        hardening = _hardening_cost(Path(tmp), model_url, env, args) if args.rounds else {}
        if args.only_hardening:
            print(json.dumps({"bench": "service", **hardening, "cpus": os.cpu_count()}))
            return
        home = Path(tmp) / "home"
        home.mkdir()
        db = open_database(f"sqlite:///{home / 'service.db'}")
        _, key = create_key(db, "bench", "bench/service.py")
        db.close()
        server = start_server(home, simulated=False, env=env)
        try:
            h = {"X-API-Key": key}
            _ingest_laws(server.url, h)
            # warm-up: indexes loaded, connections open
            asyncio.run(_chat(server.url, key, 10, 1))
            load_before = os.getloadavg()[0]
            chat = asyncio.run(_chat(server.url, key, args.sessions, args.turns))
            load_after = os.getloadavg()[0]
            time.sleep(0.5)
            server_side = _server_durations(server.log)

            records = json.loads(
                (ROOT / "data" / "moderation" / "sample_items.json").read_text("utf-8")
            )
            batch = Path(tmp) / "batch.json"
            batch.write_text(
                json.dumps(records[: args.records], ensure_ascii=False), encoding="utf-8"
            )
            api = _moderation_api(server.url, key, batch, args.concurrency)
        finally:
            stop_server(server)
        cli = _moderation_cli(model_url, batch, Path(tmp) / "cli.jsonl", args.concurrency)
        library_ms = _library_turn_ms(home, "bench", model_url, 30)

        # assistant conversations: the tenant's registry holds 5,000 synthetic processes
        from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
        from colmeia.apps.assistant.synthetic import generate_registry

        registry = SQLiteCaseRegistry(home / "tenants" / "bench" / "registry.db")
        generate_registry(registry, processes=5000, expedientes=2000)
        registry.close_sync()
        numbers = _case_numbers(400)
        with stand_in_process(args.latency_ms) as stand_in_url:
            server = start_server(
                home, simulated=False, env={**env, "COLMEIA_LLM_BASE_URL": stand_in_url}
            )
            try:
                asyncio.run(_assistant_chat(server.url, key, 5, 3, numbers))  # warm-up
                a_load_before = os.getloadavg()[0]
                assistant = asyncio.run(
                    _assistant_chat(server.url, key, args.sessions, args.turns, numbers)
                )
                a_load_after = os.getloadavg()[0]
                time.sleep(0.5)
                a_server = _server_durations(
                    server.log, "/v1/assistant/threads/{thread_id}/messages"
                )
            finally:
                stop_server(server)
            library_assistant = _library_assistant(
                home, "bench", stand_in_url, args.sessions, args.turns
            )

    client_over = [took - model for _, took, model in chat["results"]]
    server_over = [
        server_side[rid] - model for rid, _, model in chat["results"] if rid in server_side
    ]
    totals = [took for _, took, _ in chat["results"]]
    a_over = [a_server[rid] - model for rid, _, model in assistant["results"] if rid in a_server]
    a_totals = [took for _, took, _ in assistant["results"]]
    figures = {
        "bench": "service",
        "sessions": args.sessions,
        "turns": len(chat["results"]),
        "errors": chat["errors"],
        "model_latency_ms": args.latency_ms,
        "turn_ms_p50": _ms(_pct(totals, 0.5)),
        "turn_ms_p95": _ms(_pct(totals, 0.95)),
        "service_overhead_ms_p50": _ms(_pct(server_over, 0.5)),
        "service_overhead_ms_p95": _ms(_pct(server_over, 0.95)),
        "client_seen_overhead_ms_p50": _ms(_pct(client_over, 0.5)),
        "client_seen_overhead_ms_p95": _ms(_pct(client_over, 0.95)),
        "library_turn_overhead_ms_p50": library_ms,
        "turns_per_s": round(len(chat["results"]) / chat["wall_s"], 1),
        "assistant_sessions": args.sessions,
        "assistant_turns": len(assistant["results"]),
        "assistant_errors": len(assistant["errors"]),
        "assistant_error_kinds": sorted(set(assistant["errors"]))[:5],
        "assistant_turn_ms_p50": _ms(_pct(a_totals, 0.5)),
        "assistant_turn_ms_p95": _ms(_pct(a_totals, 0.95)),
        "assistant_service_overhead_ms_p50": _ms(_pct(a_over, 0.5)),
        "assistant_service_overhead_ms_p95": _ms(_pct(a_over, 0.95)),
        **{f"assistant_library_{k}": v for k, v in library_assistant.items()},
        "assistant_turns_per_s": round(len(assistant["results"]) / assistant["wall_s"], 1),
        "assistant_load_avg_1m_before": round(a_load_before, 2),
        "assistant_load_avg_1m_after": round(a_load_after, 2),
        "moderation_records": args.records,
        "moderation_concurrency": args.concurrency,
        "moderation_api_records_per_s": round(api["records"] / api["wall_s"], 2),
        "moderation_api_records_per_s_excl_report": round(api["records"] / api["run_s"], 2),
        "moderation_cli_records_per_s": round(args.records / cli["wall_s"], 2),
        "moderation_cli_records_per_s_excl_startup_and_report": round(
            args.records / cli["run_s"], 2
        ),
        "moderation_api_status": api["status"],
        **hardening,
        "load_avg_1m_before": round(load_before, 2),
        "load_avg_1m_after": round(load_after, 2),
        "cpus": os.cpu_count(),
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
