"""The smart-home example: the three paradigms on the same five tasks, each judged by the state
the house ends in (or the number in the answer), with what each paradigm cost."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from examples.smart_home.demo_model import demo_model  # noqa: E402
from examples.smart_home.house import TASKS, House, house_tools  # noqa: E402
from examples.smart_home.run import compare  # noqa: E402

from colmeia.sim.engine import SimulatedModel  # noqa: E402
from colmeia.sim.server import SimServer  # noqa: E402

StartSim = Callable[[SimulatedModel], SimServer]


async def test_three_paradigms_solve_the_same_tasks_at_different_costs(
    sim_server: StartSim,
) -> None:
    rows = await compare(sim_server(demo_model()).base_url, "demo", ["react", "plan", "reflect"])
    by = {r["paradigm"]: r for r in rows}
    assert [by[p]["solved"] for p in ("react", "plan", "reflect")] == [5, 5, 5]
    # ReAct: one call per tool use plus the answer; Plan-and-Solve adds a planner and a
    # step-result call per step; Reflection adds a critique
    assert by["react"]["model_calls_per_task"] == 3.2
    assert by["react"]["model_calls_per_task"] < by["reflect"]["model_calls_per_task"]
    assert by["reflect"]["model_calls_per_task"] < by["plan"]["model_calls_per_task"]


def test_a_task_is_judged_by_the_house_not_by_the_answer() -> None:
    house = House()
    thermostat = next(t for t in TASKS if t.id == "thermostat-plus-2")
    assert not thermostat.check(house, "Termostato em 21 °C.")  # said, not done
    tools = house_tools(house)
    assert tools.execute_sync("set_thermostat", {"celsius": 21}).ok
    assert thermostat.check(house, "")
    cost = next(t for t in TASKS if t.id == "energy-cost")
    assert cost.check(house, "R$ 10,63") and not cost.check(house, "R$ 10,36")


def test_runs_as_a_module_with_the_demo_model() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "examples.smart_home", "--demo", "--json", "--paradigms", "react"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert out.returncode == 0, out.stderr
    assert [json.loads(line)["solved"] for line in out.stdout.splitlines()] == [5]
