"""The agents chapter's three tasks, runnable:
``python -m examples.chapter_tasks [search|apples|primes|all] [--demo] [--json]``.

* ``search`` — ReAct answers a question it must look up, with ``web_search`` over a local index
  standing in for the web (this machine reaches none; see ``local_search.py``);
* ``apples`` — Plan-and-Solve: the apples sold over three days, a plan of three computations,
  each done with the calculator on the earlier results;
* ``primes`` — Reflection: a function for the primes from 1 to n, reviewed by a critic of its
  efficiency and refined.

``--demo`` serves a scripted model that shows the chapter's reasoning; otherwise the model in
``COLMEIA_LLM_BASE_URL``/``COLMEIA_LLM_MODEL`` (``colmeia llm serve`` for a real local one).
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
from examples.chapter_tasks.demo_model import APPLES_TASK, PRIMES_TASK, SEARCH_TASK, demo_model
from examples.chapter_tasks.local_search import LocalSearch

from colmeia.agents import Critic, PlanAndSolveAgent, ReActAgent, ReflectionAgent, Trace
from colmeia.config import get_settings
from colmeia.llm import OpenAIChatModel
from colmeia.tools.builtins.calculator import calculator_tool

TASKS = {"search": SEARCH_TASK, "apples": APPLES_TASK, "primes": PRIMES_TASK}


async def run_task(
    base_url: str, model_name: str, name: str, *, hierarchical: bool = False
) -> Trace:
    model = OpenAIChatModel.from_settings(get_settings().llm, base_url=base_url, model=model_name)
    try:
        if name == "search":
            agent = ReActAgent(
                model, [LocalSearch.faquad().tool()], max_steps=5, require_tool_first=True
            )
            return await agent.run(SEARCH_TASK)
        if name == "apples":
            planner = PlanAndSolveAgent(
                model, [calculator_tool()], max_replans=1, max_steps=6, hierarchical=hierarchical
            )
            return await planner.run(APPLES_TASK)
        critic = Critic(
            "efficiency",
            "efficiency: is the algorithm's time complexity the best known for the task, and "
            "is the code correct for n < 2",
        )
        reviewer = ReflectionAgent(model, critics=[critic], threshold=0.8, max_iterations=3)
        return await reviewer.run(PRIMES_TASK)
    finally:
        await model.aclose()


def _print(name: str, trace: Trace) -> None:
    print(f"== {name}: {TASKS[name]}")
    for step in trace.steps:
        label = step.meta.get("plan_step", "")
        head = f"{step.index:>2}. {step.kind:<11} {label:<6}"
        if step.tool:
            head += f" {step.tool}({json.dumps(step.input, ensure_ascii=False)})"
        print(head.rstrip())
        if step.thought:
            print("    thought: " + step.thought.replace("\n", "\n    ")[:300])
        if step.observation:
            print("    → " + step.observation.replace("\n", "\n      ")[:600])
    why = f" ({trace.stop_reason})" if trace.stop_reason and trace.stop_reason != "answer" else ""
    print(f"{trace.status.value}{why}: {trace.answer or '(no answer)'}")
    if trace.error:
        print(f"    {trace.error}")
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The agents chapter's three tasks.")
    parser.add_argument("task", nargs="?", default="all", choices=[*TASKS, "all"])
    parser.add_argument("--demo", action="store_true", help="Use a scripted model served locally.")
    parser.add_argument("--json", action="store_true", help="One JSON trace per task.")
    parser.add_argument(
        "--hierarchical",
        action="store_true",
        help="apples: let the planner split a step into sub-steps (1.1, 1.2, …).",
    )
    args = parser.parse_args(argv)
    names = list(TASKS) if args.task == "all" else [args.task]
    with endpoint(args.demo, demo_model) as (base_url, model_name):
        for name in names:
            trace = asyncio.run(
                run_task(base_url, model_name, name, hierarchical=args.hierarchical)
            )
            if args.json:
                print(json.dumps({**trace.to_dict(), "example": name}, ensure_ascii=False))
            else:
                _print(name, trace)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
