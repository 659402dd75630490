"""What ReAct learns about an endpoint is kept across processes: a model seen writing its tool
calls as text is spoken to in the text protocol from the first turn of the next process, and a
first native turn that might run on in prose is bounded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from colmeia.agents import ReActAgent, RunStatus
from colmeia.llm import OpenAIChatModel
from colmeia.llm.verdicts import cache_file, recall, remember
from colmeia.sim.engine import Reply, SimRequest, SimulatedModel
from colmeia.sim.server import SimServer
from colmeia.tools.builtins.calculator import calculator_tool

StartSim = Callable[[SimulatedModel], SimServer]
MakeClient = Callable[..., OpenAIChatModel]

ONE_RUN = """
import sys
from colmeia.agents import ReActAgent
from colmeia.llm import OpenAIChatModel
from colmeia.tools.builtins.calculator import calculator_tool
model = OpenAIChatModel(base_url=sys.argv[1], model="sim", max_retries=0, max_repairs=1)
trace = ReActAgent(model, [calculator_tool()]).run_sync("Quanto é 2+2?")
print(trace.status.value, trace.answer)
"""


def text_caller(req: SimRequest) -> Reply | str:
    """A small model that writes its call as text even when offered native tools."""
    if req.tool_results or "Observation:" in req.last_user_text:
        return "Final Answer: 4"
    return "Thought: I add.\nAction: calculator[2+2]"


def run_process(base_url: str, cache: Path) -> str:
    env = {**os.environ, "COLMEIA_CACHE_DIR": str(cache)}
    out = subprocess.run(
        [sys.executable, "-c", ONE_RUN, base_url],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_a_second_process_starts_in_the_text_protocol(sim_server: StartSim, tmp_path: Path) -> None:
    sim = SimulatedModel(responder=text_caller)
    srv = sim_server(sim)
    assert run_process(srv.base_url, tmp_path) == "finished 4"
    first = len(sim.requests)
    assert sim.requests[0].tools  # the first process offered native tools and learned

    kept = json.loads((tmp_path / "endpoints.json").read_text())
    assert kept[f"{srv.base_url.rstrip('/')} sim"]["calls_as_text"]["value"] is True

    assert run_process(srv.base_url, tmp_path) == "finished 4"
    second = sim.requests[first:]
    assert [r.tools for r in second] == [[], []]  # no native turn, no probe: straight to text
    assert "Action:" in second[0].text(("system",))


def test_verdicts_expire_and_a_broken_file_is_ignored(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("COLMEIA_CACHE_DIR", str(tmp_path))
    remember("http://127.0.0.1:9/v1", "m", "calls_as_text", True)
    assert recall("http://127.0.0.1:9/v1/", "m", "calls_as_text") is True
    assert recall("http://127.0.0.1:9/v1", "other-model", "calls_as_text") is None
    assert recall("http://127.0.0.1:9/v1", "m", "calls_as_text", ttl_s=0) is None

    data = json.loads((tmp_path / "endpoints.json").read_text())
    data["http://127.0.0.1:9/v1 m"]["calls_as_text"]["at"] = time.time() - 601
    (tmp_path / "endpoints.json").write_text(json.dumps(data))
    assert recall("http://127.0.0.1:9/v1", "m", "calls_as_text") is None  # ten minutes passed

    (tmp_path / "endpoints.json").write_text("{not json")
    assert recall("http://127.0.0.1:9/v1", "m", "calls_as_text") is None
    remember("http://127.0.0.1:9/v1", "m", "native_calls", False)  # rewrites a clean file
    assert recall("http://127.0.0.1:9/v1", "m", "native_calls") is False

    monkeypatch.setenv("COLMEIA_CACHE_DIR", "off")
    assert cache_file() is None


async def test_the_first_native_turn_is_bounded_and_prose_cut_there_moves_to_text(
    sim_server: StartSim, client: MakeClient
) -> None:
    def respond(req: SimRequest) -> Reply | str:
        if req.tools:
            return Reply(
                content="Vamos pensar com calma sobre a soma " * 20, finish_reason="length"
            )
        if "Observation:" in req.last_user_text:
            return "Final Answer: 4"
        return "Action: calculator[2+2]"

    sim = SimulatedModel(responder=respond)
    srv = sim_server(sim)
    trace = await ReActAgent(client(srv), [calculator_tool()]).run("2+2?")
    assert trace.status is RunStatus.FINISHED
    assert trace.answer == "4"
    assert sim.requests[0].body["max_tokens"] == 192
    assert sim.requests[1].body["max_tokens"] == 800  # the text turn is not bounded
    assert trace.steps[0].kind == "mode"
    # a long first answer says nothing lasting about the model: no verdict is kept
    assert recall(srv.base_url, "sim", "calls_as_text") is None


async def test_an_endpoint_known_to_call_natively_gets_a_full_first_turn(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[Reply(tool_calls=[{"name": "calculator", "arguments": {"expression": "2+2"}}]), "4"]
    )
    srv = sim_server(sim)
    remember(srv.base_url, "sim", "native_calls", True)
    trace = await ReActAgent(client(srv), [calculator_tool()]).run("2+2?")
    assert trace.answer == "4"
    assert sim.requests[0].body["max_tokens"] == 800
