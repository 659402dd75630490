"""Output that came from the simulated model says so, and simulated runs are reproducible."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from colmeia.llm.base import Usage
from colmeia.llm.notice import NO_MODEL_HINT, simulated_notice
from colmeia.sim.engine import Latency, Reply, SimRequest, SimulatedModel
from colmeia.sim.server import SimServer
from shared_data import DATA_DIR

NOTICE = "simulated model: "


@pytest.fixture
def laws(colmeia_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "laws"
    folder.mkdir()
    shutil.copy(DATA_DIR / "laws" / "lexml" / "lei_8078_19900911.csv", folder)
    code, _, err = colmeia_cli("ingest", str(folder), "-c", "leis")
    assert code == 0, err


def _use(monkeypatch: pytest.MonkeyPatch, server: SimServer) -> None:
    monkeypatch.setenv("COLMEIA_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("COLMEIA_LLM_MODEL", "sim")


def test_the_notice_counts_simulated_answers() -> None:
    assert simulated_notice(None) is None
    assert simulated_notice(Usage(calls=3)) is None
    assert "the answer is placeholder text" in (simulated_notice(Usage(calls=1, simulated=1)) or "")
    assert "all 4 answers are" in (simulated_notice(Usage(calls=4, simulated=4)) or "")
    assert "2 of 5 answers are" in (simulated_notice(Usage(calls=5, simulated=2)) or "")


def test_the_no_model_hint_sets_every_variable_needed() -> None:
    for needed in (
        "COLMEIA_LLM_BASE_URL=http://127.0.0.1:8000/v1",
        "COLMEIA_LLM_MODEL=sim",
        "colmeia sim serve --port 8000",
        "COLMEIA_LLM_MODEL=qwen3:8b",
    ):
        assert needed in NO_MODEL_HINT


def test_ask_says_when_its_answer_is_simulated(
    colmeia_cli, laws, sim_server: Callable[[SimulatedModel], SimServer], monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = colmeia_cli("ask", "O que é publicidade enganosa?", "-c", "leis")
    assert code == 0
    assert NOTICE not in out  # extractive: no model at all

    _use(monkeypatch, sim_server(SimulatedModel(schema_mode=True)))
    code, out, err = colmeia_cli("ask", "O que é publicidade enganosa?", "-c", "leis")
    assert code == 0, err
    assert out.splitlines()[0] == (
        "simulated model: the answer is placeholder text from colmeia's simulated server, "
        "not a language model's"
    )
    code, out, err = colmeia_cli("ask", "O que é publicidade enganosa?", "-c", "leis", "--json")
    assert json.loads(out)["simulated"] is True
    assert err.startswith(NOTICE)


def test_llm_check_and_agent_run_say_so_too(
    colmeia_cli, sim_server: Callable[[SimulatedModel], SimServer], monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    _use(monkeypatch, sim_server(SimulatedModel(schema_mode=True)))
    code, out, err = colmeia_cli("llm", "check")
    assert code == 0, err
    assert "simulated model: all 3 answers are placeholder text" in out

    def calculator(req: SimRequest) -> Reply:
        if req.tool_results == 0:
            return Reply(tool_calls=[{"name": "calculator", "arguments": {"expression": "2+2"}}])
        return Reply(content="4")

    _use(monkeypatch, sim_server(SimulatedModel(responder=calculator)))
    code, out, err = colmeia_cli("agent", "run", "Quanto é 2+2?", "--tools", "calculator")
    assert code == 0, err
    assert out.rstrip().splitlines()[-1].startswith("simulated model: all 2 answers")


def test_a_dead_endpoint_leaves_no_unclosed_session(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
    env.update(COLMEIA_LLM_BASE_URL="http://127.0.0.1:9/v1", COLMEIA_LLM_MODEL="x")
    proc = subprocess.run(
        [sys.executable, "-m", "colmeia", "llm", "check", "--timeout", "2"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert "Could not reach the model server" in proc.stderr
    assert "Unclosed" not in proc.stderr
    assert "Traceback" not in proc.stderr


def _outcomes(colmeia_cli, items: Path, out: Path, seed: int, sim_server) -> dict[str, str]:  # type: ignore[no-untyped-def]
    sim = SimulatedModel(
        schema_mode=True, latency=Latency(fixed_s=0.002), seed=seed, per_request_seed=True
    )
    server = sim_server(sim)
    out.unlink(missing_ok=True)
    code, _, err = colmeia_cli(
        "moderate", "run", str(items), "--out", str(out), "-j", "8",
        env={"COLMEIA_LLM_BASE_URL": server.base_url, "COLMEIA_LLM_MODEL": "sim"},
    )  # fmt: skip
    assert code == 0, err
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return {r["key"]: f"{r['outcome']}|{r['final_answer']}" for r in lines}


@pytest.mark.slow
def test_same_seed_same_moderation_outcomes_whatever_the_arrival_order(
    colmeia_cli, tmp_path: Path, sim_server
) -> None:  # type: ignore[no-untyped-def]
    records = json.loads((DATA_DIR / "moderation" / "sample_items.json").read_text("utf-8"))
    items = tmp_path / "items.json"
    items.write_text(json.dumps(records[:40], ensure_ascii=False), encoding="utf-8")
    first = _outcomes(colmeia_cli, items, tmp_path / "a.jsonl", 7, sim_server)
    again = _outcomes(colmeia_cli, items, tmp_path / "b.jsonl", 7, sim_server)
    other = _outcomes(colmeia_cli, items, tmp_path / "c.jsonl", 8, sim_server)
    assert len(first) == 40
    assert first == again
    assert sum(first[k] != other[k] for k in first) >= 10  # the seed is what decides
