"""The Reflection example: a critic focused on time complexity catches the executor calling two
nested loops O(n); the refined answer says O(n²) and proposes the O(n) version. The focus is
the student's choice, and a critic looking at something else lets the mistake through."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from examples.code_review.demo_model import demo_model  # noqa: E402
from examples.code_review.run import review  # noqa: E402

from colmeia.agents import RunStatus  # noqa: E402
from colmeia.sim.engine import SimulatedModel  # noqa: E402
from colmeia.sim.server import SimServer  # noqa: E402

StartSim = Callable[[SimulatedModel], SimServer]


async def test_the_complexity_critic_corrects_o_n_to_o_n_squared(sim_server: StartSim) -> None:
    sim = demo_model()
    trace = await review(sim_server(sim).base_url, "demo", "complexity", critic_model="judge")
    assert trace.status is RunStatus.FINISHED
    assert [s.kind for s in trace.steps] == ["attempt", "critique", "refine", "critique"]
    assert [s.meta["score"] for s in trace.steps if s.kind == "critique"] == [0.2, 0.95]
    assert "nested loops" in trace.steps[1].observation
    assert "O(n²)" in trace.answer
    assert "vistos = set()" in trace.answer
    critic_requests = [r for r in sim.requests if r.schema is not None]
    assert {r.model for r in critic_requests} == {"judge"}  # --critic-model
    assert "time complexity: is the stated big-O" in critic_requests[0].last_user_text


async def test_a_critic_with_another_focus_does_not_catch_it(sim_server: StartSim) -> None:
    trace = await review(sim_server(demo_model()).base_url, "demo", "style: is it short", None)
    assert [s.kind for s in trace.steps] == ["attempt", "critique"]
    assert "O(n)." in trace.answer  # the student's focus decides what is checked


def test_runs_as_a_module_with_the_demo_model() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "examples.code_review", "--demo", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "O(n²)" in json.loads(out.stdout)["answer"]
