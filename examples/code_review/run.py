"""Reflection reviews code: ``python -m examples.code_review [--demo] [--focus "name: …"]``.

The executor answers what the time complexity of a function is; a critic with the focus you
choose (by default ``complexity``: is the big-O right, counting nested loops) reviews the
answer, optionally on another model (``--critic-model``); the answer is refined until the critic
is satisfied, stops improving, or the iterations run out.
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
from examples.code_review.demo_model import demo_model

from colmeia.agents import ReflectionAgent, Trace, critic_from_text
from colmeia.config import get_settings
from colmeia.llm import OpenAIChatModel

CODE = """def tem_duplicados(itens):
    for i in range(len(itens)):
        for j in range(i + 1, len(itens)):
            if itens[i] == itens[j]:
                return True
    return False"""

TASK = (
    "Qual é a complexidade de tempo desta função Python, em notação big-O? Explique e, se "
    f"houver, proponha uma versão mais rápida.\n\n{CODE}"
)


async def review(
    base_url: str, model_name: str, focus: str, critic_model: str | None, task: str = TASK
) -> Trace:
    settings = get_settings().llm
    model = OpenAIChatModel.from_settings(settings, base_url=base_url, model=model_name)
    judge = (
        OpenAIChatModel.from_settings(settings, base_url=base_url, model=critic_model)
        if critic_model
        else None
    )
    try:
        agent = ReflectionAgent(
            model, critics=[critic_from_text(focus, judge)], threshold=0.8, max_iterations=3
        )
        return await agent.run(task)
    finally:
        await model.aclose()
        if judge is not None:
            await judge.aclose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Reflection: a code review for time complexity.")
    parser.add_argument(
        "--focus",
        default="complexity",
        help='The critic: a name (complexity, correctness, …) or "name: what it checks".',
    )
    parser.add_argument("--critic-model", help="The critic's model on the same server.")
    parser.add_argument("--demo", action="store_true", help="Use a scripted model served locally.")
    parser.add_argument("--json", action="store_true", help="Print the trace as JSON.")
    args = parser.parse_args(argv)
    with endpoint(args.demo, demo_model) as (base_url, name):
        trace = asyncio.run(review(base_url, name, args.focus, args.critic_model))
    if args.json:
        print(json.dumps(trace.to_dict(), ensure_ascii=False))
        return 0
    for step in trace.steps:
        score = f" score {step.meta['score']:.2f}" if "score" in step.meta else ""
        print(f"{step.index:>2}. {step.kind}{score}\n    {step.observation[:500]}")
    print(f"\n{trace.status.value} ({trace.stop_reason}):\n{trace.answer}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
