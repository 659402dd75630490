"""Tool retrieval over 64 e-commerce tools: ``python -m examples.tool_retrieval [--demo] [task…]``.

For each request, a ReAct agent is offered only the 6 tools a BM25 search over the catalogue
(names, descriptions, parameters; Portuguese stemming and accent folding) ranks highest for the
request — never all 64, which would fill a small model's context and confuse its choice. It
prints what was offered and what was called.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from examples._endpoint import endpoint
from examples.tool_retrieval.catalog import TOOLS
from examples.tool_retrieval.demo_model import demo_model

from colmeia.agents import ReActAgent
from colmeia.config import get_settings
from colmeia.llm import OpenAIChatModel
from colmeia.tools.retrieval import ToolRetriever

SAMPLE_TASKS = [
    "Onde está meu pedido 5001? Quero rastrear a entrega.",
    "Tem cafeteira em estoque?",
    "Quanto custa o notebook?",
    "Aplique o cupom BEMVINDO10 em R$ 299,90.",
    "Qual o frete do fone bluetooth para o CEP 01310-100?",
    "Quero cancelar o pedido 5002 porque comprei errado.",
]
K = 6


def make_agent(model: OpenAIChatModel) -> ReActAgent:
    retriever = ToolRetriever(TOOLS, language="portuguese")
    return ReActAgent(model, TOOLS, retriever=retriever, retrieval_k=K, max_steps=4)


async def run_all(base_url: str, model_name: str, tasks: list[str]) -> list[dict[str, Any]]:
    model = OpenAIChatModel.from_settings(get_settings().llm, base_url=base_url, model=model_name)
    agent = make_agent(model)
    out = []
    try:
        for task in tasks:
            offered = [t.name for t in agent.select_tools(task)]
            trace = await agent.run(task)
            out.append(
                {
                    "task": task,
                    "offered": offered,
                    "called": [s.tool for s in trace.tool_calls],
                    "status": trace.status.value,
                    "answer": trace.answer,
                    "seconds": round(trace.elapsed_s, 2),
                }
            )
    finally:
        await model.aclose()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Tool retrieval over 64 e-commerce tools.")
    parser.add_argument("tasks", nargs="*", help="Requests (default: six samples).")
    parser.add_argument("--demo", action="store_true", help="Use a scripted model served locally.")
    parser.add_argument("--json", action="store_true", help="One JSON line per request.")
    args = parser.parse_args(argv)
    with endpoint(args.demo, demo_model) as (base_url, name):
        results = asyncio.run(run_all(base_url, name, args.tasks or SAMPLE_TASKS))
    for r in results:
        if args.json:
            print(json.dumps(r, ensure_ascii=False))
            continue
        print(f"\n{r['task']}\n  offered {K} of {len(TOOLS)}: {', '.join(r['offered'])}")
        print(f"  called: {', '.join(r['called']) or '-'} · {r['status']} · {r['seconds']}s")
        print(f"  {r['answer']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
