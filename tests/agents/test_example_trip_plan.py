"""The trip example: Plan-and-Solve plans flight, hotel and budget; the hotel of the first plan
is full, the step says so, and the new plan books another neighbourhood and sums the budget
with the calculator."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from examples.trip_plan.demo_model import demo_model  # noqa: E402
from examples.trip_plan.run import TASK, plan_trip  # noqa: E402

from colmeia.agents import RunStatus  # noqa: E402
from colmeia.sim.engine import SimulatedModel  # noqa: E402
from colmeia.sim.server import SimServer  # noqa: E402

StartSim = Callable[[SimulatedModel], SimServer]


async def test_a_full_hotel_triggers_a_replan_and_the_budget_is_computed(
    sim_server: StartSim,
) -> None:
    sim = demo_model()
    trace = await plan_trip(sim_server(sim).base_url, "demo", TASK)
    assert trace.status is RunStatus.FINISHED, trace.error
    kinds = [s.kind for s in trace.steps]
    assert kinds.count("plan") == 1
    assert kinds.count("replan") == 1
    failed = [s for s in trace.steps if s.kind == "step_result" and not s.ok]
    assert [s.meta["plan_step"] for s in failed] == ["2"]
    assert "no rooms left in Alfama" in failed[0].observation
    replan = next(s for s in trace.steps if s.kind == "replan")
    assert "Belém" in replan.observation
    calls = [(s.tool, s.meta.get("plan_step")) for s in trace.tool_calls]
    assert calls == [
        ("search_flights", "1"),
        ("search_hotels", "2"),
        ("search_hotels", "r1.1"),
        ("calculator", "r1.2"),
    ]
    budget = trace.tool_calls[-1]
    assert budget.input == {"expression": "2 * 4200.00 + 7 * 520.00"}
    assert budget.observation == "12040"
    assert trace.answer.endswith("R$ 12040.")


def test_runs_as_a_module_with_the_demo_model() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "examples.trip_plan", "--demo", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    trace = json.loads(out.stdout)
    assert trace["status"] == "finished"
    assert "hotel em Belém" in trace["answer"]
