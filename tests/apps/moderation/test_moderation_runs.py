"""Runs a team can rely on: a manifest per results file, resumes that refuse to mix settings,
a dead model server that stops the run (with an honest exit code) instead of filling the file
with ERROR lines, and an audit trail that keeps what failed calls cost and what was done
before an unexpected exception."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from moderation_helpers import ROLE_OF, DeciderFails

from colmeia.apps.moderation.batch import run_batch
from colmeia.apps.moderation.graph import Moderator
from colmeia.apps.moderation.io import load_records
from colmeia.apps.moderation.manifest import manifest_path, read_manifest
from colmeia.apps.moderation.records import ModerationItem
from colmeia.apps.moderation.results import read_results
from colmeia.errors import ConfigurationError
from colmeia.llm.openai_compat import OpenAIChatModel
from colmeia.sim.engine import Reply, SimRequest, SimulatedModel
from colmeia.sim.server import SimServer
from shared_data import DATA_DIR

DATA = DATA_DIR / "moderation"


def write_items(path: Path, n: int) -> Path:
    raw = json.loads((DATA / "sample_items.json").read_text(encoding="utf-8"))
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(
                json.dumps({**raw[i % len(raw)], "id": f"item-{i}"}, ensure_ascii=False) + "\n"
            )
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
async def moderator_at(sim_server: Any) -> AsyncIterator[Callable[..., Moderator]]:
    models: list[OpenAIChatModel] = []

    def make(sim: SimulatedModel, **kwargs: Any) -> Moderator:
        srv = sim_server(sim)
        models.append(OpenAIChatModel(base_url=srv.base_url, model="sim", backoff_base=0.0))
        return Moderator(models[-1], **kwargs)

    yield make
    for m in models:
        await m.aclose()


# -- manifest and resume -------------------------------------------------------------------------


async def test_the_manifest_says_what_produced_the_file(tmp_path: Path, moderator_at: Any) -> None:
    records = load_records([write_items(tmp_path / "items.jsonl", 8)])
    out = tmp_path / "results.jsonl"
    moderator = moderator_at(SimulatedModel(schema_mode=True, seed=2), threshold=7)
    summary = await run_batch(records, moderator, out, concurrency=4)
    manifest = read_manifest(out)
    assert manifest is not None
    assert manifest_path(out).name == "results.manifest.json"
    settings = manifest.settings
    assert settings["threshold"] == 7 and settings["max_rewrites"] == 3
    assert settings["roles"]["decider"]["model"] == "sim"
    assert settings["roles"]["semantic"]["base_url"].startswith("http://127.0.0.1:")
    assert set(settings["prompts"]) >= {"semantic.j2", "decider.j2", "_macros.j2"}
    assert all(len(h) == 64 for h in settings["prompts"].values())
    run = manifest.runs[0]
    assert (run.status, run.written, run.records) == ("complete", 8, 8)
    assert run.started_at <= (run.ended_at or "")
    assert run.simulated_answers == summary.usage["simulated"] > 0
    assert manifest.simulated
    assert manifest.counts == {o: n for o, n in summary.counts.items() if n}
    # Every line says which run wrote it and carries what a reviewer needs.
    line = read_results(out)["item-0"]
    assert line["run"] == 0
    item = records[0].item
    assert item is not None
    assert (line["question"], line["original_answer"], line["locale"]) == (
        item.question,
        item.answer,
        item.locale,
    )
    assert line["category"] == item.category


async def test_resume_with_another_threshold_is_refused_and_the_file_is_untouched(
    tmp_path: Path, moderator_at: Any
) -> None:
    records = load_records([write_items(tmp_path / "items.jsonl", 6)])
    out = tmp_path / "results.jsonl"
    sim = SimulatedModel(schema_mode=True, seed=4)
    await run_batch(records[:3], moderator_at(sim), out)
    before = (out.read_bytes(), manifest_path(out).read_bytes())

    with pytest.raises(ConfigurationError) as refused:
        await run_batch(records, moderator_at(sim, threshold=6), out, resume=True)
    message = str(refused.value)
    assert "threshold: 8.0 → 6" in message
    assert "--allow-mixed" in message
    assert (out.read_bytes(), manifest_path(out).read_bytes()) == before

    # Told to mix, it goes on, and the manifest and the lines say so.
    mixed = await run_batch(
        records, moderator_at(sim, threshold=6), out, resume=True, allow_mixed=True
    )
    assert mixed.done == 3
    manifest = read_manifest(out)
    assert manifest is not None and manifest.mixed
    assert manifest.runs[1].mixed and "threshold: 8.0 → 6" in manifest.runs[1].differences
    assert manifest.runs[1].settings["threshold"] == 6
    assert sorted(r["run"] for r in read_results(out).values()) == [0, 0, 0, 1, 1, 1]


async def test_a_file_without_a_manifest_is_not_resumed_blindly(
    tmp_path: Path, moderator_at: Any
) -> None:
    records = load_records([write_items(tmp_path / "items.jsonl", 2)])
    out = tmp_path / "old.jsonl"
    out.write_text('{"key": "item-0", "outcome": "KEEP_ORIGINAL"}\n')
    with pytest.raises(ConfigurationError, match="no run manifest"):
        await run_batch(records, moderator_at(SimulatedModel(schema_mode=True)), out, resume=True)


# -- a dead endpoint stops the run ---------------------------------------------------------------


def test_a_dead_endpoint_stops_the_run_then_retry_errors_completes_it(
    tmp_path: Path, colmeia_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = free_port()  # nothing listens here yet
    monkeypatch.setenv("COLMEIA_LLM_BASE_URL", f"http://127.0.0.1:{port}/v1")
    monkeypatch.setenv("COLMEIA_LLM_MODEL", "sim")
    monkeypatch.setenv("COLMEIA_LLM_MAX_RETRIES", "1")
    items = write_items(tmp_path / "items.jsonl", 40)
    out = tmp_path / "results.jsonl"
    args = ["moderate", "run", str(items), "--out", str(out), "--concurrency", "2"]

    code, stdout, stderr = colmeia_cli(*args, "--stop-after", "3")
    assert code == 3, stderr
    said = " ".join(stderr.split())
    assert "stopped: stopped after 3 items in a row failed because the model server cannot" in said
    assert f"Could not reach the model server at http://127.0.0.1:{port}/v1" in said
    assert "rerun with --retry-errors" in said
    lines = read_results(out)
    assert 3 <= len(lines) <= 6  # stopped early: the other records were never sent
    assert {r["outcome"] for r in lines.values()} == {"ERROR"}
    assert {r["error_kind"] for r in lines.values()} == {"unreachable"}
    failed = next(iter(lines.values()))
    step = failed["trail"][0]
    assert (step["requests"], step["retries"]) == (2, 1)  # the failed call's cost is kept
    manifest = read_manifest(out)
    assert manifest is not None
    assert manifest.last.status == "stopped"
    assert "Could not reach" in (manifest.last.stop_reason or "")

    with SimServer(SimulatedModel(schema_mode=True, seed=5), port=port):
        code, stdout, stderr = colmeia_cli(*args, "--retry-errors")
    assert code == 0, stderr
    lines = read_results(out)
    assert len(lines) == 40
    assert "ERROR" not in {r["outcome"] for r in lines.values()}
    assert "already done" in stdout
    assert "simulated model" in stdout  # the text is placeholder, and the command says so


def test_retry_errors_at_a_corrected_url_is_not_a_mixed_run(
    tmp_path: Path, colmeia_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    dead = free_port()  # a typo in the URL: nothing listens there
    monkeypatch.setenv("COLMEIA_LLM_BASE_URL", f"http://127.0.0.1:{dead}/v1")
    monkeypatch.setenv("COLMEIA_LLM_MODEL", "sim")
    monkeypatch.setenv("COLMEIA_LLM_MAX_RETRIES", "0")
    items = write_items(tmp_path / "items.jsonl", 10)
    out = tmp_path / "results.jsonl"
    args = ["moderate", "run", str(items), "--out", str(out), "--concurrency", "1"]
    code, _, _ = colmeia_cli(*args, "--stop-after", "2")
    assert code == 3

    with SimServer(SimulatedModel(schema_mode=True, seed=5)) as srv:
        monkeypatch.setenv("COLMEIA_LLM_BASE_URL", srv.base_url)
        code, _, stderr = colmeia_cli(*args, "--retry-errors")
    assert code == 0, stderr
    assert len(read_results(out)) == 10
    manifest = read_manifest(out)
    assert manifest is not None
    assert not manifest.mixed
    # the file's settings are the first run's; the retry says where it went
    assert manifest.settings["roles"]["semantic"]["base_url"] == f"http://127.0.0.1:{dead}/v1"
    assert manifest.runs[1].settings["roles"]["semantic"]["base_url"] == srv.base_url


def test_a_refused_key_stops_too_and_bad_settings_are_one_line_before_any_progress(
    tmp_path: Path, colmeia_cli: Any, sim_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    srv = sim_server(SimulatedModel(script=[Reply.http_error(401, "bad key")] * 50))
    monkeypatch.setenv("COLMEIA_LLM_BASE_URL", srv.base_url)
    monkeypatch.setenv("COLMEIA_LLM_MODEL", "sim")
    items = write_items(tmp_path / "items.jsonl", 30)
    out = tmp_path / "results.jsonl"
    code, _, stderr = colmeia_cli("moderate", "run", str(items), "--out", str(out))
    assert code == 3
    assert "HTTP 401" in stderr and "COLMEIA_LLM_API_KEY" in " ".join(stderr.split())
    assert len(read_results(out)) < 30

    code, _, stderr = colmeia_cli(
        "moderate", "run", str(items), "--out", str(tmp_path / "b.jsonl"), "--threshold", "11"
    )
    assert code == 2
    assert stderr.startswith("configuration error: moderation config is invalid: threshold")
    assert "moderate:" not in stderr  # no progress was drawn before the error
    assert not (tmp_path / "b.jsonl").exists()


# -- the trail on failure ------------------------------------------------------------------------


def flagged_then(decider: Any) -> Callable[[SimRequest], Any]:
    """Reviewers flag the original, the rewrite is clean; the decider answers ``decider``."""

    def respond(req: SimRequest) -> Any:
        role = ROLE_OF[str((req.schema or {}).get("title"))]
        if role in ("semantic", "contextual"):
            return {"justification": "Incompleta.", "score": 1}
        if role == "suggester":
            return {"suggestions": ["Responda se é sem fio."]}
        if role == "rewriter":
            answer = "Olá! Sim, é sem fio. Atenciosamente, equipe Logitech."
            return {"can_rewrite": True, "answer": answer, "reason": ""}
        return decider

    return respond


async def test_a_failed_role_records_the_requests_retries_and_tokens_it_spent(
    moderator_at: Any, item: ModerationItem
) -> None:
    moderator = moderator_at(SimulatedModel(responder=flagged_then("Vou pensar com calma.")))
    result = await moderator.moderate(item)
    assert result["outcome"] == "ERROR"
    assert result["error_kind"] == "output"
    decider = result["trail"][-1]
    assert decider["role"] == "decider" and decider["error"].startswith("ModelOutputError")
    assert decider["requests"] == 5 and decider["repairs"] == 4  # default max_repairs
    assert decider["completion_tokens"] > 0 and decider["prompt_tokens"] > 0
    assert result["usage"]["failed_calls"] == 1
    assert result["usage"]["requests"] == sum(s["requests"] for s in result["trail"])


async def _a_bug() -> None:
    raise KeyError("choices")  # not a ModelError: a bug


async def test_an_unexpected_exception_keeps_every_step_taken_before_it(
    sim_server: Any, item: ModerationItem
) -> None:
    srv = sim_server(SimulatedModel(responder=flagged_then({})))
    async with OpenAIChatModel(base_url=srv.base_url, model="sim") as inner:
        buggy = DeciderFails(inner, _a_bug)  # a bug that shows on the decider call
        result = await Moderator(buggy).moderate(item)  # type: ignore[arg-type]
    assert result["outcome"] == "ERROR"
    assert result["error_kind"] == "internal"
    assert result["error"] == "internal error: KeyError: 'choices'"
    roles = [(s["role"], s["round"]) for s in result["trail"]]
    assert roles == [
        ("semantic", 0),
        ("contextual", 0),
        ("suggester", 0),
        ("rewriter", 1),
        ("semantic", 1),
        ("contextual", 1),
    ]
    assert all(s["prompt_tokens"] > 0 and s["output"] for s in result["trail"])
    assert result["scores"]["original"] == {"semantic": 1, "contextual": 1}
    assert result["revisions"] == 1
    assert result["usage"]["calls"] == 6
