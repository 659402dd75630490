"""Plan-and-Solve plans a trip: ``python -m examples.trip_plan [--demo] [--json] [task]``.

The planner writes the steps (flight, hotel, budget), each step is carried out by a small ReAct
run with its tool, and when a step fails — the hotel of the first plan has no rooms that week —
the planner is asked for a new plan of the remaining work, with the failure in view.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from examples._endpoint import endpoint
from examples.trip_plan.demo_model import demo_model
from examples.trip_plan.tools import trip_tools

from colmeia.agents import PlanAndSolveAgent, Trace
from colmeia.config import get_settings
from colmeia.llm import OpenAIChatModel

TASK = (
    "Planeje uma viagem de 7 noites para um casal saindo de São Paulo para Lisboa, com hotel "
    "em Alfama, e diga o orçamento total de passagens e hotel."
)


async def plan_trip(base_url: str, model_name: str, task: str) -> Trace:
    model = OpenAIChatModel.from_settings(get_settings().llm, base_url=base_url, model=model_name)
    try:
        agent = PlanAndSolveAgent(model, trip_tools(), max_replans=2, max_steps=8)
        return await agent.run(task)
    finally:
        await model.aclose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Plan-and-Solve: a trip plan with replanning.")
    parser.add_argument("task", nargs="?", default=TASK)
    parser.add_argument("--demo", action="store_true", help="Use a scripted model served locally.")
    parser.add_argument("--json", action="store_true", help="Print the trace as JSON.")
    args = parser.parse_args(argv)
    with endpoint(args.demo, demo_model) as (base_url, name):
        trace = asyncio.run(plan_trip(base_url, name, args.task))
    if args.json:
        print(json.dumps(trace.to_dict(), ensure_ascii=False))
        return 0
    for step in trace.steps:
        label = step.meta.get("plan_step", "")
        head = f"{step.index:>2}. {step.kind:<11} {label:<6}"
        if step.tool:
            head += f" {step.tool}({json.dumps(step.input, ensure_ascii=False)})"
        print(head)
        body = step.observation or step.thought
        if body:
            print("    " + body.replace("\n", "\n    ")[:400])
    print(f"\n{trace.status.value}: {trace.answer}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
