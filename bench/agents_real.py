"""Agents on a real small model: colmeia's ReAct beside LangGraph's and smolagents' agents.

Serves Qwen2.5-Coder-1.5B-Instruct (the packaged GGUF, or ``COLMEIA_TEST_GGUF``) with
``colmeia llm serve`` on 127.0.0.1 and runs the arithmetic/unit tasks in Portuguese of
``bench/data/agent_tasks_pt.jsonl`` through, on the same server, with the same calculator, the
same step limit, temperature 0 and seed:

* colmeia's ``ReActAgent`` (default ``tool_mode="auto"``), ``PlanAndSolveAgent`` and
  ``ReflectionAgent``;
* LangGraph's prebuilt ReAct agent (``create_react_agent``) over ``langchain-openai``'s
  ``ChatOpenAI`` pointed at the server;
* smolagents' ``ToolCallingAgent`` over its ``OpenAIServerModel``.

Peers use their documented defaults otherwise. A task succeeds when the expected number
appears in the final answer (either decimal notation, to the cent). Prints ONE JSON line:
success rates per framework and paradigm, mean model requests and seconds per task, the load
average before and after each, and what was skipped and why (xllamacpp, the weights or a peer
library missing). Per-task lines go to stderr.

    .venv/bin/python bench/agents_real.py [--limit N|0] [--only colmeia_react,langgraph_react,...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TASKS = ROOT / "bench" / "data" / "agent_tasks_pt.jsonl"
sys.path.insert(0, str(ROOT / "tests"))  # the one way the tests start a local model

MODEL = "qwen2.5-coder-1.5b-instruct"
MAX_STEPS = 6
TEMPERATURE = 0.0
SEED = 7
MAX_TOKENS = 800
TIMEOUT_S = 600.0
#: Tasks `make bench` runs (the 1.5B is slow on 2 cores); ``--limit 0`` runs all 26.
DEFAULT_LIMIT = 2
FRAMEWORKS = (
    "colmeia_react",
    "langgraph_react",
    "smolagents_toolcalling",
    "colmeia_plan",
    "colmeia_reflect",
)


def correct(answer: str, expected: float) -> bool:
    from colmeia.agents.numbers import read_numbers  # the same reading as Reflection's check

    return any(abs(n - expected) <= max(0.011, 1e-4 * abs(expected)) for n in read_numbers(answer))


def load_tasks(limit: int | None) -> list[dict[str, Any]]:
    tasks = [json.loads(line) for line in TASKS.read_text(encoding="utf-8").splitlines() if line]
    return tasks[:limit] if limit else tasks


def calculate_text(expression: str) -> str:
    from colmeia.tools.builtins.calculator import calculate, format_number

    return format_number(calculate(expression))


# ---------------------------------------------------------------------------- frameworks


#: A runner answers a task and says how many model requests it made.
Runner = Callable[[str], tuple[str, int]]


def colmeia_runner(paradigm: str, base_url: str, model: str) -> Runner:
    from colmeia.agents import PlanAndSolveAgent, ReActAgent, ReflectionAgent
    from colmeia.llm import OpenAIChatModel
    from colmeia.tools.builtins.calculator import calculator_tool

    def run(task: str) -> tuple[str, int]:
        async def go() -> tuple[str, int]:
            chat = OpenAIChatModel(
                base_url=base_url,
                model=model,
                provider="llamacpp",
                temperature=TEMPERATURE,
                timeout=TIMEOUT_S,
                deadline=TIMEOUT_S,
            )
            tools = [calculator_tool()]
            try:
                agent: Any
                if paradigm == "react":
                    agent = ReActAgent(
                        chat, tools, max_steps=MAX_STEPS, deadline=TIMEOUT_S, max_tokens=MAX_TOKENS
                    )
                elif paradigm == "plan":
                    agent = PlanAndSolveAgent(
                        chat, tools, max_steps=MAX_STEPS, deadline=TIMEOUT_S, max_tokens=MAX_TOKENS
                    )
                else:
                    agent = ReflectionAgent(
                        chat, tools, executor_max_steps=MAX_STEPS, deadline=TIMEOUT_S
                    )
                trace = await agent.run(task)
                return str(trace.answer), trace.usage.requests
            finally:
                await chat.aclose()

        return asyncio.run(go())

    return run


def langgraph_runner(base_url: str, model: str) -> Runner:
    from langchain_core.tools import tool as lc_tool
    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import create_react_agent

    @lc_tool
    def calculator(expression: str) -> str:
        """Evaluate an arithmetic expression exactly and return the number.

        Args:
            expression: The arithmetic expression, e.g. "2 * (3 + 4)".
        """
        try:
            return calculate_text(expression)
        except Exception as exc:  # the peer sees the error as we show it to ours
            return f"Error: {exc}"

    llm = ChatOpenAI(
        model=model,
        base_url=base_url,
        api_key="not-needed",  # type: ignore[arg-type]
        temperature=TEMPERATURE,
        seed=SEED,
        max_tokens=MAX_TOKENS,  # type: ignore[call-arg]
        timeout=TIMEOUT_S,
    )
    agent = create_react_agent(llm, [calculator])

    def run(task: str) -> tuple[str, int]:
        state = agent.invoke({"messages": [("user", task)]}, {"recursion_limit": 2 * MAX_STEPS + 1})
        requests = sum(1 for m in state["messages"] if m.type == "ai")
        return str(state["messages"][-1].content), requests

    return run


def smolagents_runner(base_url: str, model: str) -> Runner:
    from smolagents import OpenAIServerModel, ToolCallingAgent
    from smolagents import tool as smol_tool

    @smol_tool
    def calculator(expression: str) -> str:
        """Evaluate an arithmetic expression exactly and return the number.

        Args:
            expression: The arithmetic expression, e.g. "2 * (3 + 4)".
        """
        try:
            return calculate_text(expression)
        except Exception as exc:
            return f"Error: {exc}"

    llm = OpenAIServerModel(
        model_id=model,
        api_base=base_url,
        api_key="not-needed",
        temperature=TEMPERATURE,
        seed=SEED,
        max_tokens=MAX_TOKENS,
    )

    def run(task: str) -> tuple[str, int]:
        agent = ToolCallingAgent(
            tools=[calculator], model=llm, max_steps=MAX_STEPS, verbosity_level=0
        )
        answer = str(agent.run(task))
        requests = sum(1 for s in agent.memory.steps if type(s).__name__ == "ActionStep")
        return answer, requests

    return run


def build(name: str, base_url: str, model: str) -> Runner:
    if name.startswith("colmeia_"):
        return colmeia_runner(name.removeprefix("colmeia_"), base_url, model)
    if name == "langgraph_react":
        return langgraph_runner(base_url, model)
    return smolagents_runner(base_url, model)


# ---------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--limit",
        type=int,
        default=DEFAULT_LIMIT,
        help=f"first N tasks only (default {DEFAULT_LIMIT}, so `make bench` stays short; 0: all)",
    )
    parser.add_argument("--only", default=",".join(FRAMEWORKS), help="frameworks to run")
    parser.add_argument("--task", action="append", default=[], help="only these task ids")
    args = parser.parse_args()
    load_before = os.getloadavg()
    record: dict[str, Any] = {"bench": "agents_real", "model": MODEL, "max_steps": MAX_STEPS}

    from local_model import gguf_or_skip_reason, start_local_model

    os.environ.setdefault("COLMEIA_TEST_GGUF", "")
    gguf, reason = gguf_or_skip_reason()
    if gguf is not None and not os.environ["COLMEIA_TEST_GGUF"]:
        from colmeia.errors import ConfigurationError
        from colmeia.llm.gguf import packaged_gguf

        try:
            gguf = packaged_gguf(MODEL)
        except ConfigurationError as exc:
            gguf, reason = None, f"no {MODEL} weights: {exc}"
    if gguf is None:
        print(json.dumps({**record, "skipped": reason}))
        return
    tasks = load_tasks(args.limit or None)
    if args.task:
        tasks = [t for t in tasks if t["id"] in args.task]
    server = start_local_model(gguf, ctx=8192)
    results: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    try:
        for name in [n for n in args.only.split(",") if n]:
            try:
                runner = build(name, server.base_url, server.model)
            except ImportError as exc:
                skipped[name] = f"not installed: {exc.name}"
                continue
            ok = 0
            seconds: list[float] = []
            requests: list[int] = []
            failures: list[str] = []
            load_at_start = os.getloadavg()[0]
            for task in tasks:
                started = time.perf_counter()
                try:
                    answer, used = runner(task["task"])
                except Exception as exc:  # a peer's crash is a failed task, not a failed bench
                    answer, used = f"{type(exc).__name__}: {exc}", 0
                seconds.append(time.perf_counter() - started)
                requests.append(used)
                solved = correct(answer, float(task["answer"]))
                ok += solved
                if not solved:
                    failures.append(task["id"])
                print(
                    f"{name} {task['id']}: {'ok' if solved else 'FAIL'} {seconds[-1]:.0f}s "
                    f"{used} requests {answer[:120]!r}",
                    file=sys.stderr,
                    flush=True,
                )
            results[name] = {
                "success_rate": round(ok / len(tasks), 3),
                "solved": ok,
                "tasks": len(tasks),
                "mean_model_requests": round(sum(requests) / len(requests), 2),
                "mean_s": round(sum(seconds) / len(seconds), 1),
                "load_avg_1m": [round(load_at_start, 2), round(os.getloadavg()[0], 2)],
                "failed": failures,
            }
    finally:
        server.stop()
    record.update(
        results=results,
        skipped=skipped,
        load_avg_before=[round(x, 2) for x in load_before],
        load_avg_after=[round(x, 2) for x in os.getloadavg()],
    )
    print(json.dumps(record, ensure_ascii=False))


if __name__ == "__main__":
    main()
