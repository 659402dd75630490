"""One smart-home assistant, three paradigms, the same five tasks:
``python -m examples.smart_home [--demo] [--json] [--paradigms react,plan,reflect]``.

Each paradigm gets a fresh house per task; a task is solved when the house ends in the state
asked for (light off, thermostat at the computed temperature, door locked) or the answer states
the right number. It prints, per paradigm, tasks solved, model calls and seconds per task: the
figures behind "choosing a paradigm" in docs/agents.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from examples._endpoint import endpoint
from examples.smart_home.demo_model import demo_model
from examples.smart_home.house import TASKS, House, house_tools

from colmeia.agents.factory import PARADIGMS, make_agent
from colmeia.config import get_settings
from colmeia.llm import OpenAIChatModel


async def compare(base_url: str, model_name: str, paradigms: list[str]) -> list[dict[str, Any]]:
    rows = []
    for paradigm in paradigms:
        model = OpenAIChatModel.from_settings(
            get_settings().llm, base_url=base_url, model=model_name
        )
        solved, calls, seconds, per_task = 0, 0, 0.0, {}
        try:
            for task in TASKS:
                house = House()
                agent = make_agent(
                    paradigm,  # type: ignore[arg-type]
                    model,
                    list(house_tools(house)),
                    max_steps=8 if paradigm != "reflect" else 2,
                )
                started = time.perf_counter()
                trace = await agent.run(task.text)
                seconds += time.perf_counter() - started
                calls += trace.usage.calls
                ok = task.check(house, trace.answer)
                solved += ok
                per_task[task.id] = ok
        finally:
            await model.aclose()
        rows.append(
            {
                "paradigm": paradigm,
                "solved": solved,
                "tasks": len(TASKS),
                "model_calls_per_task": round(calls / len(TASKS), 1),
                "seconds_per_task": round(seconds / len(TASKS), 2),
                "per_task": per_task,
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Three paradigms on the same smart-home tasks.")
    parser.add_argument("--paradigms", default=",".join(PARADIGMS))
    parser.add_argument("--demo", action="store_true", help="Use a scripted model served locally.")
    parser.add_argument("--json", action="store_true", help="One JSON line per paradigm.")
    args = parser.parse_args(argv)
    chosen = [p.strip() for p in args.paradigms.split(",") if p.strip()]
    unknown = sorted(set(chosen) - set(PARADIGMS))
    if unknown:
        print(f"unknown paradigms {unknown}; choose from {', '.join(PARADIGMS)}", file=sys.stderr)
        return 2
    with endpoint(args.demo, demo_model) as (base_url, name):
        rows = asyncio.run(compare(base_url, name, chosen))
    for row in rows:
        if args.json:
            print(json.dumps(row, ensure_ascii=False))
        else:
            print(
                f"{row['paradigm']:<8} solved {row['solved']}/{row['tasks']} · "
                f"{row['model_calls_per_task']} model calls/task · "
                f"{row['seconds_per_task']} s/task"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
