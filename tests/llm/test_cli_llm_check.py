"""`colmeia llm check`: does the configured model answer, and what does it support?"""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from colmeia.cli import app
from colmeia.sim.engine import SimulatedModel
from colmeia.sim.quirks import Quirks

runner = CliRunner()


def _closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _env(**values: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
    env.update(values)
    return env


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.startswith("colmeia ")


def test_check_against_the_simulated_model_reports_support(sim_server) -> None:
    srv = sim_server(SimulatedModel(schema_mode=True))
    result = runner.invoke(
        app,
        ["llm", "check"],
        env=_env(COLMEIA_LLM_BASE_URL=srv.base_url, COLMEIA_LLM_MODEL="sim", COLUMNS="200"),
    )
    assert result.exit_code == 0, result.output
    rows = {line.split("│")[1].strip(): line for line in result.output.splitlines() if "│" in line}
    for row in ("answers", "tool calls", "JSON Schema output"):
        assert "yes" in rows[row], result.output


def test_an_unreachable_url_fails_fast_naming_the_url_and_the_variable() -> None:
    url = _closed_port_url()
    proc = subprocess.run(
        [sys.executable, "-m", "colmeia", "llm", "check"],
        env=_env(COLMEIA_LLM_BASE_URL=url, COLMEIA_LLM_MODEL="qualquer"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1
    message = " ".join(proc.stderr.split())
    assert url in message
    assert "COLMEIA_LLM_BASE_URL" in message


def test_no_configuration_says_what_to_set() -> None:
    result = runner.invoke(app, ["llm", "check"], env=_env())
    assert result.exit_code == 2
    assert "COLMEIA_LLM_BASE_URL" in result.output


def test_check_exits_non_zero_naming_the_checks_that_failed(sim_server) -> None:
    # A model that only ever chats: it answers, but never calls a tool nor writes JSON.
    srv = sim_server(SimulatedModel(responder=lambda req: "Claro, posso ajudar com isso."))
    result = runner.invoke(
        app,
        ["llm", "check"],
        env=_env(COLMEIA_LLM_BASE_URL=srv.base_url, COLMEIA_LLM_MODEL="sim", COLUMNS="200"),
    )
    assert result.exit_code == 1, result.output
    rows = {line.split("│")[1].strip(): line for line in result.output.splitlines() if "│" in line}
    assert "yes" in rows["answers"]
    assert "no" in rows["tool calls"]
    assert "no" in rows["JSON Schema output"]
    assert "failed: tool calls, JSON Schema output" in result.output


def _rows(output: str) -> dict[str, str]:
    return {line.split("│")[1].strip(): line for line in output.splitlines() if "│" in line}


@pytest.mark.parametrize(
    "quirks",
    [Quirks(tool_choice_named="refuse"), Quirks.llamacpp(), Quirks.llamacpp_ignoring_required()],
    ids=["rejects-named", "llamacpp-ignores-named", "ignores-required-too"],
)
def test_check_finds_working_tool_calls_when_the_named_form_does_not_work(
    sim_server, quirks: Quirks
) -> None:
    srv = sim_server(SimulatedModel(schema_mode=True, quirks=quirks))
    result = runner.invoke(
        app,
        ["llm", "check"],
        env=_env(COLMEIA_LLM_BASE_URL=srv.base_url, COLMEIA_LLM_MODEL="sim", COLUMNS="250"),
    )
    assert result.exit_code == 0, result.output
    rows = _rows(result.output)
    assert "yes" in rows["tool calls"]
    assert "tool_choice_named no" in " ".join(result.output.split())
