"""The tool-retrieval example: out of 64 e-commerce tools, each request is offered 6, and the
right one first; the model never sees the other 58."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from examples.tool_retrieval.catalog import TOOLS  # noqa: E402
from examples.tool_retrieval.demo_model import demo_model  # noqa: E402
from examples.tool_retrieval.run import SAMPLE_TASKS, make_agent  # noqa: E402

from colmeia.agents import RunStatus  # noqa: E402
from colmeia.llm import OpenAIChatModel  # noqa: E402
from colmeia.sim.engine import SimulatedModel  # noqa: E402
from colmeia.sim.server import SimServer  # noqa: E402

StartSim = Callable[[SimulatedModel], SimServer]
MakeClient = Callable[..., OpenAIChatModel]

EXPECTED = [
    "track_order",
    "check_stock",
    "product_price",
    "apply_coupon",
    "calculate_shipping",
    "cancel_order",
]


def test_the_catalogue_has_over_sixty_distinct_tools() -> None:
    names = [t.name for t in TOOLS]
    assert len(names) == 64
    assert len(set(names)) == 64


@pytest.mark.parametrize(("task", "tool"), list(zip(SAMPLE_TASKS, EXPECTED, strict=True)))
async def test_each_request_is_offered_six_tools_the_right_one_first(
    sim_server: StartSim, client: MakeClient, task: str, tool: str
) -> None:
    sim = demo_model()
    agent = make_agent(client(sim_server(sim)))
    trace = await agent.run(task)
    assert trace.status is RunStatus.FINISHED
    assert sim.requests[0].tool_names[0] == tool
    assert len(sim.requests[0].tool_names) == 6  # not 64
    assert [s.tool for s in trace.tool_calls] == [tool]
    assert trace.tool_calls[0].ok, trace.tool_calls[0].observation


def test_runs_as_a_module_with_the_demo_model() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "examples.tool_retrieval", "--demo", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [line["called"] for line in lines] == [[t] for t in EXPECTED]
    assert "chega em 2 dias" in lines[0]["answer"]
    assert "R$ 269.91" in lines[3]["answer"]  # 10% off 299,90


def test_the_catalogue_from_the_cli(sim_server: StartSim, tmp_path: Path) -> None:
    from tests.agents.test_agent_cli import clean_env, cli

    sim = demo_model()
    env = clean_env(COLMEIA_LLM_BASE_URL=sim_server(sim).base_url, COLMEIA_LLM_MODEL="sim")
    out = cli("agent", "run", "Onde está meu pedido 5001? Quero rastrear a entrega.",
              "--tool-catalog", str(ROOT / "examples/tool_retrieval/catalog.py"),
              env=env, cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "tools: 64 (the most relevant 6 offered at each step)" in out.stdout
    assert "track_order" in out.stdout
    assert len(sim.requests[0].tool_names) == 6
    # Each step says which tools the model could choose from: the ones it was sent.
    assert f"offered: {', '.join(sim.requests[0].tool_names)}" in out.stdout


def test_no_librarys_debug_line_reaches_the_terminal(sim_server: StartSim, tmp_path: Path) -> None:
    # bm25s sets its own logger to DEBUG at import, past the root logger's WARNING: a real
    # process (not the in-process runner, whose logging pytest owns) shows what a student sees.
    from tests.agents.test_agent_cli import clean_env

    env = clean_env(COLMEIA_LLM_BASE_URL=sim_server(demo_model()).base_url, COLMEIA_LLM_MODEL="sim")
    out = subprocess.run(
        [sys.executable, "-m", "colmeia", "agent", "run", "Onde está meu pedido 5001?",
         "--tool-catalog", str(ROOT / "examples/tool_retrieval/catalog.py")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    shown = out.stdout + out.stderr
    assert "tools: 64 (the most relevant 6 offered at each step)" in shown
    assert "DEBUG" not in shown and "bm25s" not in shown, shown
