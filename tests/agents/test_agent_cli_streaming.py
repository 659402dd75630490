"""`colmeia agent run` shows the model's tokens as they arrive (SSE from the server), on a
terminal by default and with ``--stream`` anywhere; piped output and ``--json`` stay clean."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from test_agent_cli import clean_env, cli

from colmeia.sim.engine import Reply, SimRequest, SimulatedModel
from colmeia.sim.server import SimServer

StartSim = Callable[[SimulatedModel], SimServer]
# Words the model writes that the printed steps never show whole: the thought is shortened and
# the answer printed once at the end, so seeing them twice means they were streamed.
REPLY = "Thought: vou somar sem ferramenta, quinze mais vinte e sete dá quarenta e dois.\nFinal Answer: 42"


def _model(req: SimRequest) -> Reply | str:
    return REPLY


def test_tokens_are_streamed_with_stream_and_not_when_piped(
    sim_server: StartSim, tmp_path: Path
) -> None:
    srv = sim_server(SimulatedModel(responder=_model))
    env = clean_env(COLMEIA_LLM_BASE_URL=srv.base_url, COLMEIA_LLM_MODEL="sim")
    args = ("agent", "run", "Quanto é 15 + 27?", "--tool-mode", "text")
    streamed = cli(*args, "--stream", env=env, cwd=tmp_path)
    assert streamed.returncode == 0, streamed.stderr
    assert "▹ Thought: vou somar sem ferramenta" in streamed.stdout
    # the streamed reply comes before the step the agent made of it
    assert streamed.stdout.index("▹ Thought") < streamed.stdout.index("1. answer")
    assert streamed.stdout.count("Final Answer: 42") == 1  # once, as streamed
    piped = cli(*args, env=env, cwd=tmp_path)
    assert piped.returncode == 0, piped.stderr
    assert "▹" not in piped.stdout
    assert "Final Answer:" not in piped.stdout
    assert "42" in piped.stdout
    as_json = cli(*args, "--stream", "--json", env=env, cwd=tmp_path)
    assert as_json.stdout.lstrip().startswith("{"), as_json.stdout


def test_a_terminal_gets_the_tokens_by_default(sim_server: StartSim, tmp_path: Path) -> None:
    srv = sim_server(SimulatedModel(responder=_model))
    env = clean_env(COLMEIA_LLM_BASE_URL=srv.base_url, COLMEIA_LLM_MODEL="sim", TERM="xterm")
    env.pop("NO_COLOR", None)
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "colmeia", "agent", "run", "Quanto é 15 + 27?", "--tool-mode",
         "text"],
        stdout=child, stderr=subprocess.DEVNULL, env=env, cwd=tmp_path,
    )  # fmt: skip
    os.close(child)
    chunks: list[bytes] = []
    while True:
        try:
            data = os.read(main, 4096)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    assert proc.wait(timeout=120) == 0
    os.close(main)
    raw = b"".join(chunks).decode("utf-8", "replace")
    # each piece is printed (dim) as it arrives: the server sent the reply in many SSE chunks
    assert raw.count("\x1b[2m") > 5, raw
    shown = re.sub(r"\x1b\[[0-9;]*m", "", raw)
    assert "▹ Thought: vou somar sem ferramenta" in shown
