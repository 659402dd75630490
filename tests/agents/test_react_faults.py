"""Robustness: 200 concurrent ReAct runs against a faulty schema-driven model all end cleanly."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Literal

import orjson

from colmeia.agents import ReActAgent, RunStatus
from colmeia.llm import OpenAIChatModel
from colmeia.sim.engine import Faults, SimulatedModel
from colmeia.sim.server import SimServer
from colmeia.tools import ToolRegistry
from colmeia.tools.builtins.calculator import calculator_tool

StartSim = Callable[[SimulatedModel], SimServer]
MakeClient = Callable[..., OpenAIChatModel]

RUNS = 200
MAX_STEPS = 4
MAX_REPAIRS = 2


def registry() -> ToolRegistry:
    tools = ToolRegistry([calculator_tool()])

    @tools.tool
    def lookup_order(order_id: str) -> str:
        """Look up an order by its number.

        Args:
            order_id: The order number.
        """
        return f"order {order_id[:20]}: delivered, total 120.00"

    @tools.tool
    def convert_currency(amount: float, currency: Literal["USD", "EUR", "BRL"]) -> str:
        """Convert an amount in reais to another currency.

        Args:
            amount: Amount in reais.
            currency: Target currency.
        """
        return f"{amount / 5:.2f} {currency}"

    return tools


async def test_200_runs_with_prose_and_truncated_json_faults_all_end_with_a_status(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(schema_mode=True, faults=Faults(prose=0.10, truncated_json=0.10), seed=7)
    srv = sim_server(sim)
    model = client(srv, max_repairs=MAX_REPAIRS, max_retries=1, deadline=30.0)
    tools = registry()

    async def one(i: int):
        mode = "text" if i % 4 == 3 else "auto"
        agent = ReActAgent(
            model,
            tools,
            tool_mode=mode,
            max_steps=MAX_STEPS,
            deadline=60.0,
            require_tool_first=i % 2 == 1,
        )
        return await agent.run(f"Pedido {i}: qual o total em dólares?")

    traces = await asyncio.gather(*(one(i) for i in range(RUNS)))

    assert len(traces) == RUNS
    statuses = Counter(t.status for t in traces)
    assert set(statuses) <= set(RunStatus)
    assert statuses[RunStatus.FINISHED] > RUNS // 2, statuses
    for trace in traces:
        # within limits: at most max_steps turns plus one answer after a stop
        assert trace.usage.calls <= MAX_STEPS + 1
        assert trace.usage.requests <= trace.usage.calls * (1 + MAX_REPAIRS + 1)
        assert len([s for s in trace.steps if s.kind == "tool"]) <= MAX_STEPS * 4
        if trace.status is RunStatus.FINISHED:
            assert trace.answer
        else:
            assert trace.error
        orjson.dumps(trace.to_dict())  # every trace serialises
    stats = sim.stats()
    # the faults really happened, and were absorbed
    assert stats["prose"] > 0
    assert stats["truncated_json"] > 0
