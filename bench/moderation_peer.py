"""The LangGraph peer of bench/moderation.py: the same five-agent flow, hand-built.

What a team would write without colmeia: a LangGraph ``StateGraph`` whose nodes call
``langchain_openai.ChatOpenAI(...).with_structured_output(schema, method="json_schema")``,
the two reviewers fanned out and joined by a gate node, the same prompts (colmeia's templates,
so prompt tokens match), the same rewrite cap, one JSON line written per item. It runs against
the same simulated server (``colmeia sim serve --schema --latency-ms 200``, its own process) on
the same records at the same concurrency, and prints ONE JSON line: items_per_min,
llm_calls_per_item, framework_cpu_ms_per_llm_call, errors. No policy, no retries beyond the
client's defaults, no audit trail: the peer is the bare flow.

    .venv/bin/python bench/moderation_peer.py [--records 300] [--concurrency 32]

Run it right after bench/moderation.py to compare the two on the same machine load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import operator
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langchain_openai import ChatOpenAI
from langgraph.graph import END, START, StateGraph

from _sim import sim_process  # the same server start as the other benches
from colmeia.apps.moderation.records import agent_view
from colmeia.apps.moderation.schemas import (
    MAX_SUGGESTIONS,
    ContextualReview,
    Decision,
    Rewrite,
    SemanticReview,
    Suggestions,
)
from colmeia.llm.prompts import render_prompt
from moderation import _records  # the same records

PKG = "colmeia.apps.moderation"
CAP = 3
THRESHOLD = 8


class State(TypedDict, total=False):
    view: Any
    current: str
    semantic: SemanticReview
    contextual: ContextualReview
    suggestions: list[str]
    revisions: int
    outcome: str
    calls: Annotated[int, operator.add]


def _system(role: str) -> str:
    return render_prompt(
        PKG, f"{role}.j2", part="system", audit_language="English", max_suggestions=MAX_SUGGESTIONS
    )


def build(base_url: str) -> Any:
    llm = ChatOpenAI(base_url=base_url, api_key="sim", model="sim", temperature=0, max_retries=2)
    structured = {
        t: llm.with_structured_output(t, method="json_schema")
        for t in (SemanticReview, ContextualReview, Suggestions, Rewrite, Decision)
    }
    systems = {
        r: _system(r) for r in ("semantic", "contextual", "suggester", "rewriter", "decider")
    }

    async def ask(role: str, schema: type, user: str) -> Any:
        return await structured[schema].ainvoke([("system", systems[role]), ("user", user)])

    async def semantic(s: State) -> dict[str, Any]:
        v = s["view"]
        user = render_prompt(PKG, "semantic.j2", part="user", question=v.question,
                             answer=s["current"], locale=v.locale, category=v.category,
                             intent=v.intent)  # fmt: skip
        return {"semantic": await ask("semantic", SemanticReview, user), "calls": 1}

    async def contextual(s: State) -> dict[str, Any]:
        v = s["view"]
        user = render_prompt(PKG, "contextual.j2", part="user", question=v.question,
                             answer=s["current"], context=v.context, rules=v.rules,
                             category=v.category, intent=v.intent)  # fmt: skip
        return {"contextual": await ask("contextual", ContextualReview, user), "calls": 1}

    def gate(s: State) -> dict[str, Any]:
        return {}

    def after_gate(s: State) -> str:
        if s["revisions"] == 0:
            total = s["semantic"].score + s["contextual"].score
            return "keep" if total > THRESHOLD else "suggester"
        return "decider"

    def keep(s: State) -> dict[str, Any]:
        return {"outcome": "KEEP_ORIGINAL"}

    async def suggester(s: State) -> dict[str, Any]:
        v = s["view"]
        user = render_prompt(PKG, "suggester.j2", part="user", question=v.question,
                             answer=s["current"], context=v.context, rules=v.rules,
                             semantic=s["semantic"], contextual=s["contextual"], policy=[],
                             violations=[])  # fmt: skip
        out = await ask("suggester", Suggestions, user)
        return {"suggestions": list(out.suggestions), "calls": 1}

    async def rewriter(s: State) -> dict[str, Any]:
        v = s["view"]
        user = render_prompt(PKG, "rewriter.j2", part="user", question=v.question,
                             answer=s["current"], context=v.context, rules=v.rules,
                             suggestions=s.get("suggestions", []), feedback=[], policy=[],
                             language="the question's language", category=v.category,
                             intent=v.intent)  # fmt: skip
        out = await ask("rewriter", Rewrite, user)
        if not out.can_rewrite:
            return {"outcome": "DO_NOT_ANSWER", "revisions": s["revisions"] + 1, "calls": 1}
        return {"current": out.answer, "revisions": s["revisions"] + 1, "calls": 1}

    def after_rewriter(s: State) -> Any:
        return END if s.get("outcome") else ["semantic", "contextual"]

    async def decider(s: State) -> dict[str, Any]:
        v = s["view"]
        user = render_prompt(PKG, "decider.j2", part="user", question=v.question,
                             original=v.answer, original_scores=(0, 0), rewrite=s["current"],
                             revision=s["revisions"], context=v.context, rules=v.rules,
                             suggestions=s.get("suggestions", []), semantic=s["semantic"],
                             contextual=s["contextual"], category=v.category,
                             intent=v.intent)  # fmt: skip
        out = await ask("decider", Decision, user)
        if out.decision == "answer":
            return {"outcome": "ANSWER_REVISED", "calls": 1}
        if out.decision == "do_not_answer" or s["revisions"] >= CAP:
            return {"outcome": "DO_NOT_ANSWER", "calls": 1}
        return {"calls": 1}

    def after_decider(s: State) -> str:
        return END if s.get("outcome") else "rewriter"

    g: StateGraph[State] = StateGraph(State)
    for name, fn in (("semantic", semantic), ("contextual", contextual), ("gate", gate),
                     ("keep", keep), ("suggester", suggester), ("rewriter", rewriter),
                     ("decider", decider)):  # fmt: skip
        g.add_node(name, fn)  # type: ignore[call-overload]
    g.add_edge(START, "semantic")
    g.add_edge(START, "contextual")
    g.add_edge(["semantic", "contextual"], "gate")
    g.add_conditional_edges("gate", after_gate, ["keep", "suggester", "decider"])
    g.add_edge("keep", END)
    g.add_edge("suggester", "rewriter")
    g.add_conditional_edges("rewriter", after_rewriter, ["semantic", "contextual", END])
    g.add_conditional_edges("decider", after_decider, ["rewriter", END])
    return g.compile()


async def _run(base_url: str, n: int, concurrency: int) -> dict[str, Any]:
    graph = build(base_url)
    records = _records(n)
    gate = asyncio.Semaphore(concurrency)
    errors = 0
    calls = 0

    async def one(rec: Any, fh: Any) -> None:
        nonlocal errors, calls
        async with gate:
            try:
                state = await graph.ainvoke(
                    {"view": agent_view(rec.item), "current": rec.item.answer, "revisions": 0,
                     "calls": 0},
                    {"recursion_limit": 40},
                )  # fmt: skip
                calls += state["calls"]
                line = {"key": rec.key, "outcome": state.get("outcome")}
            except Exception as exc:  # the peer counts failures like colmeia's ERROR lines
                errors += 1
                line = {"key": rec.key, "outcome": "ERROR", "error": str(exc)[:200]}
            fh.write(json.dumps(line) + "\n")
            fh.flush()

    with tempfile.TemporaryDirectory() as tmp:
        with open(Path(tmp) / "warm.jsonl", "w") as fh:  # noqa: ASYNC230 (as a peer would)
            await asyncio.gather(*(one(r, fh) for r in records[:concurrency]))
        calls, errors = 0, 0
        cpu0, t0 = time.process_time(), time.perf_counter()
        with open(Path(tmp) / "results.jsonl", "w") as fh:  # noqa: ASYNC230
            await asyncio.gather(*(one(r, fh) for r in records))
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    return {
        "records": n,
        "concurrency": concurrency,
        "items_per_min": round(n / wall * 60, 1),
        "llm_calls_per_item": round(calls / n, 3),
        "framework_cpu_ms_per_llm_call": round(cpu * 1000 / max(calls, 1), 3),
        "errors": errors,
        "wall_s": round(wall, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency-ms", type=int, default=200)
    args = parser.parse_args()
    with sim_process("--schema", "--latency-ms", str(args.latency_ms)) as base_url:
        figures = asyncio.run(_run(base_url, args.records, args.concurrency))
    print(
        json.dumps({"bench": "moderation_langgraph_peer", **figures, "latency_ms": args.latency_ms})
    )


if __name__ == "__main__":
    main()
