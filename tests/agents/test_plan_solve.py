"""Plan-and-Solve: a validated plan, step-by-step execution, replanning when a step fails."""

from __future__ import annotations

import re
from collections.abc import Callable

from colmeia.agents import PlanAndSolveAgent, RunStatus
from colmeia.errors import ToolError
from colmeia.llm import OpenAIChatModel
from colmeia.sim.engine import Reply, SimRequest, SimulatedModel
from colmeia.sim.server import SimServer
from colmeia.tools import ToolRegistry
from colmeia.tools.builtins.calculator import calculator_tool

StartSim = Callable[[SimulatedModel], SimServer]
MakeClient = Callable[..., OpenAIChatModel]


def shop_tools() -> ToolRegistry:
    registry = ToolRegistry([calculator_tool()])

    @registry.tool
    def lookup_order(order_id: str) -> str:
        """Look up an order: items, total paid and status.

        Args:
            order_id: The order number, e.g. A-7.
        """
        if order_id != "A-7":
            raise ToolError(f"order {order_id!r} not found; order numbers look like A-123")
        return "order A-7: 2 items, total paid 200.00, delivered"

    return registry


def call(name: str, **arguments: str) -> Reply:
    return Reply(tool_calls=[{"name": name, "arguments": arguments}])


async def test_a_failing_step_triggers_a_replan(sim_server: StartSim, client: MakeClient) -> None:
    sim = SimulatedModel(
        script=[
            {
                "steps": [
                    {"description": "Look up order 7", "tool": "lookup_order"},
                    {"description": "Compute half of the total paid", "tool": "calculator"},
                ]
            },
            call("lookup_order", order_id="7"),
            "REPLAN: order 7 does not exist; the number is probably A-7",
            {
                "steps": [
                    {"description": "Look up order A-7", "tool": "lookup_order"},
                    {"description": "Compute half of the total paid", "tool": "calculator"},
                ]
            },
            call("lookup_order", order_id="A-7"),
            "Order A-7: total paid 200.00",
            call("calculator", expression="200 * 0.5"),
            "100",
            "O reembolso é de R$ 100,00.",
        ]
    )
    srv = sim_server(sim)
    agent = PlanAndSolveAgent(client(srv), shop_tools(), tool_mode="native")
    trace = await agent.run("Qual é o reembolso (metade do valor) do pedido 7?")
    assert trace.status is RunStatus.FINISHED, trace.error
    assert trace.answer == "O reembolso é de R$ 100,00."
    kinds = [s.kind for s in trace.steps]
    assert kinds == [
        "plan",
        "tool",  # lookup_order 7 → error observation
        "answer",  # REPLAN: …
        "step_result",
        "replan",
        "tool",
        "answer",
        "step_result",
        "tool",
        "answer",
        "step_result",
        "answer",
    ]
    failed = trace.steps[3]
    assert not failed.ok
    assert failed.meta["plan_step"] == "1"
    replan = trace.steps[4]
    assert "order 7 does not exist" in replan.thought
    assert replan.observation.startswith("1. Look up order A-7")
    assert [s.meta.get("plan_step") for s in trace.steps if s.kind == "step_result"] == [
        "1",
        "r1.1",
        "r1.2",
    ]
    # the replanner saw the failure, and the executor of step 2 saw step 1's result
    assert "order 7 does not exist" in sim.requests[3].last_user_text
    assert "Order A-7: total paid 200.00" in sim.requests[6].text()
    assert sim.requests[0].schema is not None  # the plan is structured output
    assert sim.stats()["script_remaining"] == 0


async def test_replans_are_bounded(sim_server: StartSim, client: MakeClient) -> None:
    plans = 0

    def respond(req: SimRequest) -> Reply | dict[str, object]:
        nonlocal plans
        if req.schema is not None:
            plans += 1
            return {"steps": [{"description": f"Look up order 7 (plan {plans})"}]}
        return call("lookup_order", order_id=f"7-{len(req.messages)}")

    srv = sim_server(SimulatedModel(responder=respond))
    agent = PlanAndSolveAgent(client(srv), shop_tools(), max_replans=1, tool_mode="native")
    trace = await agent.run("Reembolso do pedido 7?")
    assert trace.status is RunStatus.TOOL_FAILURES
    assert trace.stop_reason == "replans_exhausted"
    assert "after 1 replans" in (trace.error or "")
    assert plans == 2
    assert [s.kind for s in trace.steps].count("replan") == 1


async def test_hierarchical_plans_run_sub_steps_in_order(
    sim_server: StartSim, client: MakeClient
) -> None:
    def respond(req: SimRequest) -> str | dict[str, object]:
        if req.schema is not None:
            return {
                "steps": [
                    {
                        "description": "Gather the facts",
                        "substeps": [
                            {"description": "Find the purchase date"},
                            {"description": "Find the policy"},
                        ],
                    },
                    {"description": "Decide"},
                ]
            }
        step = re.search(r"Your step \(([\d.]+)\)", req.last_user_text)
        return f"result of {step.group(1)}" if step else "Final: approved."

    srv = sim_server(SimulatedModel(responder=respond))
    agent = PlanAndSolveAgent(client(srv), hierarchical=True)
    trace = await agent.run("Devo aprovar o reembolso?")
    assert trace.status is RunStatus.FINISHED
    results = [(s.meta["plan_step"], s.observation) for s in trace.steps if s.kind == "step_result"]
    assert results == [("1.1", "result of 1.1"), ("1.2", "result of 1.2"), ("2", "result of 2")]
    assert trace.answer == "Final: approved."
    assert "1.2. Find the policy" in trace.steps[0].thought


async def test_flat_planning_drops_substeps_and_the_step_budget_holds(
    sim_server: StartSim, client: MakeClient
) -> None:
    def respond(req: SimRequest) -> str | dict[str, object]:
        if req.schema is not None:
            return {
                "steps": [
                    {"description": f"step {i}", "substeps": [{"description": "x"}]}
                    for i in range(5)
                ]
            }
        return "ok"

    srv = sim_server(SimulatedModel(responder=respond))
    trace = await PlanAndSolveAgent(client(srv), max_steps=3).run("tarefa longa")
    assert trace.status is RunStatus.MAX_STEPS
    assert "more than 3 steps" in (trace.error or "")
    assert [s.meta["plan_step"] for s in trace.steps if s.kind == "step_result"] == ["1", "2", "3"]


async def test_a_model_error_while_planning(sim_server: StartSim, client: MakeClient) -> None:
    srv = sim_server(SimulatedModel(script=[Reply.http_error(404, "no such model")]))
    trace = await PlanAndSolveAgent(client(srv)).run("x")
    assert trace.status is RunStatus.MODEL_ERROR
    assert "HTTP 404" in (trace.error or "")


async def test_a_computing_step_without_a_tool_gets_the_calculator(
    sim_server: StartSim, client: MakeClient
) -> None:
    """Small planners leave "tool" empty; the step still has to call the calculator first."""
    sim = SimulatedModel(
        script=[
            {"steps": [{"description": "Calcule 17% de 2340"}]},
            "É cerca de 400.",  # computed in its head: a tool call is required, asked again
            call("calculator", expression="17% de 2340"),
            "397.8",
            "17% de 2.340 é 397,8.",
        ]
    )
    agent = PlanAndSolveAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="native")
    trace = await agent.run("Quanto é 17% de 2.340?")
    assert trace.status is RunStatus.FINISHED, trace.error
    assert [s.tool for s in trace.tool_calls] == ["calculator"]
    assert trace.tool_calls[0].observation == "397.8"
    assert "calculator" in sim.requests[0].last_user_text  # the planner is told to name it


async def test_an_expression_that_drops_the_tasks_parentheses_is_refused(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[
            {"steps": [{"description": "Compute 345 + 789 * 3", "tool": "calculator"}]},
            call("calculator", expression="345 + 789 * 3"),
            call("calculator", expression="(345 + 789) * 3"),
            "3402",
            "O resultado é 3402.",
        ]
    )
    agent = PlanAndSolveAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="native")
    trace = await agent.run("Quanto é (345 + 789) multiplicado por 3?")
    assert trace.answer == "O resultado é 3402."
    first, second = trace.tool_calls
    assert not first.ok
    assert "keep the grouping, e.g. (345 + 789)*3" in first.observation
    assert second.ok and second.observation == "3402"


async def test_prose_where_a_tool_is_needed_ends_the_run_the_second_time_whatever_came_between(
    sim_server: StartSim, client: MakeClient
) -> None:
    """A step answered in prose gets one new plan; a second prose answer ends the run, even
    when another kind of failure (a REPLAN) came between the two."""
    compute = {"steps": [{"description": "Calcule 17% de 2340", "tool": "calculator"}]}
    sim = SimulatedModel(
        script=[
            compute,
            "É cerca de 400.",  # prose where the calculator is required
            "Uns 400, acho.",  # prose again: the step's answer is unusable
            {"steps": [{"description": "Look up order 7", "tool": "lookup_order"}]},
            call("lookup_order", order_id="7"),
            "REPLAN: order 7 does not exist",
            compute,
            "É cerca de 400.",
            "Uns 400, acho.",
        ]
    )
    agent = PlanAndSolveAgent(
        client(sim_server(sim)), shop_tools(), max_replans=5, tool_mode="native"
    )
    trace = await agent.run("Quanto é 17% de 2.340?")
    assert (trace.status, trace.stop_reason) == (RunStatus.MODEL_ERROR, "model_output")
    assert [s.kind for s in trace.steps].count("replan") == 2
    assert sim.stats()["script_remaining"] == 0
