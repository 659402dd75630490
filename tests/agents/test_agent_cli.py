"""`colmeia agent run` against the simulated server: once as a real subprocess, then in-process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from colmeia.cli import app
from colmeia.sim.engine import Reply, SimRequest, SimulatedModel
from colmeia.sim.server import SimServer

StartSim = Callable[[SimulatedModel], SimServer]


def colmeia(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "colmeia", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def clean_env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("COLMEIA_") or k == "COLMEIA_CACHE_DIR"  # the test's own cache
    }
    env.update(extra, COLUMNS="200", NO_COLOR="1")
    return env


class Out:
    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def cli(*args: str, env: dict[str, str], cwd: Path) -> Out:
    """The command in-process (same code path as the script, without the start-up cost)."""
    unset: dict[str, str | None] = {
        k: None for k in os.environ if k.startswith("COLMEIA_") and k != "COLMEIA_CACHE_DIR"
    }
    unset.update(env)
    old = os.getcwd()
    os.chdir(cwd)  # a .env in the repository must not leak into the test
    try:
        result = CliRunner().invoke(app, list(args), env=unset)
    finally:
        os.chdir(old)
    return Out(result.exit_code, result.stdout, result.stderr)


def test_react_run_prints_the_trace_and_json(sim_server: StartSim, tmp_path: Path) -> None:
    def respond(req: SimRequest) -> Reply | str:
        if req.tool_results == 0 and req.tools:
            return Reply(
                tool_calls=[{"name": "calculator", "arguments": {"expression": "17 * 23"}}]
            )
        return "17 × 23 = 391"

    srv = sim_server(SimulatedModel(responder=respond))
    env = clean_env(COLMEIA_LLM_BASE_URL=srv.base_url, COLMEIA_LLM_MODEL="sim")
    live = colmeia(
        "agent", "run", "Quanto é 17 vezes 23?", "--tools", "calculator", env=env, cwd=tmp_path
    )
    assert live.returncode == 0, live.stderr
    assert "calculator" in live.stdout
    assert "→ 391" in live.stdout
    assert "finished" in live.stdout
    assert "17 × 23 = 391" in live.stdout

    js = cli(
        "agent",
        "run",
        "Quanto é 17 vezes 23?",
        "--tools",
        "calculator",
        "--json",
        env=env,
        cwd=tmp_path,
    )
    assert js.returncode == 0, js.stderr
    payload = json.loads(js.stdout)
    assert payload["status"] == "finished"
    assert payload["answer"] == "17 × 23 = 391"
    assert payload["steps"][0]["tool"] == "calculator"
    assert payload["steps"][0]["observation"] == "391"


def test_a_limit_is_a_status_not_a_failure(sim_server: StartSim, tmp_path: Path) -> None:
    counter = iter(range(1000))
    srv = sim_server(
        SimulatedModel(
            responder=lambda req: (
                Reply(
                    tool_calls=[
                        {"name": "calculator", "arguments": {"expression": f"{next(counter)}+1"}}
                    ]
                )
                if req.tools
                else "Não terminei."
            )
        )
    )
    env = clean_env(COLMEIA_LLM_BASE_URL=srv.base_url, COLMEIA_LLM_MODEL="sim")
    out = cli(
        "agent",
        "run",
        "conte",
        "--tools",
        "calculator",
        "--max-steps",
        "2",
        "--json",
        env=env,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["status"] == "max_steps"


def test_plan_and_reflect_paradigms(sim_server: StartSim, tmp_path: Path) -> None:
    def respond(req: SimRequest) -> str | dict[str, object]:
        if req.schema is not None and "steps" in req.schema.get("properties", {}):
            return {"steps": [{"description": "Answer directly"}]}
        if req.schema is not None:
            return {"problems": [], "suggestions": [], "score": 0.95}
        return "Sete dias."

    srv = sim_server(SimulatedModel(responder=respond))
    env = clean_env(COLMEIA_LLM_BASE_URL=srv.base_url, COLMEIA_LLM_MODEL="sim")
    for paradigm in ("plan", "reflect"):
        out = cli(
            "agent",
            "run",
            "Prazo de arrependimento?",
            "-p",
            paradigm,
            "--json",
            env=env,
            cwd=tmp_path,
        )
        assert out.returncode == 0, out.stderr
        payload = json.loads(out.stdout)
        assert payload["status"] == "finished"
        assert payload["answer"] == "Sete dias."
        assert payload["paradigm"] == paradigm


def test_bad_configuration_exits_non_zero_with_advice(tmp_path: Path) -> None:
    no_model = cli("agent", "run", "2+2?", env={}, cwd=tmp_path)
    assert no_model.returncode == 2
    assert "COLMEIA_LLM_BASE_URL" in no_model.stderr
    assert "colmeia sim serve" in no_model.stderr

    env = {"COLMEIA_LLM_BASE_URL": "http://127.0.0.1:9/v1", "COLMEIA_LLM_MODEL": "sim"}
    no_search = cli("agent", "run", "notícias?", "--tools", "web", env=env, cwd=tmp_path)
    assert no_search.returncode == 2
    assert "COLMEIA_SEARCH_URL" in no_search.stderr

    bad_tool = cli("agent", "run", "x", "--tools", "shell", env=env, cwd=tmp_path)
    assert bad_tool.returncode == 2
    assert "Unknown built-in tool 'shell'" in bad_tool.stderr

    bad_paradigm = cli("agent", "run", "x", "--paradigm", "magic", env=env, cwd=tmp_path)
    assert bad_paradigm.returncode == 2


def test_show_prompts_prints_what_the_model_saw_and_wrote(
    sim_server: StartSim, tmp_path: Path
) -> None:
    raw = (
        'Vou calcular.\n```json\n{"name": "calculator", "arguments": {"expression": "17*23"}}\n```'
    )

    def respond(req: SimRequest) -> Reply | str:
        if req.tool_results == 0 and req.tools:
            return raw
        return "17 × 23 = 391"

    srv = sim_server(SimulatedModel(responder=respond))
    env = clean_env(COLMEIA_LLM_BASE_URL=srv.base_url, COLMEIA_LLM_MODEL="sim")
    for flags in (["agent", "run", "--show-prompts"], ["-v", "agent", "run"]):
        task = ["Quanto é 17 vezes 23?", "--tools", "calculator", "--tool-mode", "native"]
        out = cli(*flags, *task, env=env, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        # the rendered system prompt, the task, and the reply exactly as the model wrote it
        assert "system: You are a careful assistant" in out.stdout
        assert "user: Quanto é 17 vezes 23?" in out.stdout
        assert '"arguments": {"expression": "17*23"}' in out.stdout
        assert "(recovered from the text)" in out.stdout
        assert "tool: 391" in out.stdout
        # the simulated model's text is said to be placeholder
        assert "placeholder text from colmeia's simulated server" in out.stdout

    quiet = cli(
        "agent", "run", "Quanto é 17 vezes 23?", "--tools", "calculator", env=env, cwd=tmp_path
    )
    assert "system: You are a careful assistant" not in quiet.stdout
