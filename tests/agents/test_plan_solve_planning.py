"""What the planner is told and what a run holds, as docs/agents.md describes Plan-and-Solve:
the planner gets the task, the step bound, the tools (naming the calculator for computing
steps) and the task's number and rate notes; a planner that cannot write a plan leaves the
whole task, however long, as the one step; the agent's limits are checked when it is built;
replans are counted up to ``max_replans``; a step that outlives the run's deadline ends the
run with the results so far; and a registry passed in is the one the agent uses."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from test_plan_solve import call, shop_tools

from colmeia.agents import PlanAndSolveAgent, RunStatus
from colmeia.errors import ConfigurationError
from colmeia.llm import OpenAIChatModel
from colmeia.sim.engine import Reply, SimRequest, SimulatedModel
from colmeia.sim.server import SimServer
from colmeia.tools import Tool, ToolRegistry

StartSim = Callable[[SimulatedModel], SimServer]
MakeClient = Callable[..., OpenAIChatModel]


def _one_step_run() -> SimulatedModel:
    return SimulatedModel(
        script=[{"steps": [{"description": "Answer"}]}, "uma resposta", "A resposta."]
    )


async def test_the_planner_is_told_the_task_its_bound_the_tools_and_the_tasks_numbers(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = _one_step_run()
    agent = PlanAndSolveAgent(
        client(sim_server(sim)), shop_tools(), tool_mode="native", max_plan_steps=4
    )
    task = "Quanto é 10% de gorjeta sobre 1.250,50?"
    await agent.run(task)
    prompt = sim.requests[0].last_user_text
    assert prompt.endswith(f"Task:\n{task}")
    assert "(at most 4)" in prompt
    assert 'Leave "substeps" empty.' in prompt
    assert 'Every step that computes a number names "calculator" in "tool"' in prompt
    assert "1.250,50 = 1250.50" in prompt
    assert "What the task's percentages do: 10% de gorjeta" in prompt


async def test_a_hierarchical_planner_may_list_sub_steps_and_one_without_a_calculator_is_not_told_of_it(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = _one_step_run()
    lookup_only = ToolRegistry([t for t in shop_tools() if t.name == "lookup_order"])
    agent = PlanAndSolveAgent(
        client(sim_server(sim)), lookup_only, tool_mode="native", hierarchical=True
    )
    await agent.run("Pedido A-7?")
    prompt = sim.requests[0].last_user_text
    assert "A step that is itself complex may list sub-steps" in prompt
    assert "computes a number" not in prompt


async def test_a_tool_named_calculator_is_the_calculator_even_without_the_math_tag(
    sim_server: StartSim, client: MakeClient
) -> None:
    def calculator(expression: str) -> str:
        """Evaluate an arithmetic expression.

        Args:
            expression: The expression, e.g. 2+2.
        """
        return "397.8"

    sim = SimulatedModel(
        script=[
            {"steps": [{"description": "Calcule 17% de 2340"}]},
            "É cerca de 400.",  # from its head: the calculator is required, asked again
            call("calculator", expression="0.17*2340"),
            "397.8",
            "397,8.",
        ]
    )
    tools = [Tool.from_function(calculator)]
    trace = await PlanAndSolveAgent(client(sim_server(sim)), tools, tool_mode="native").run("17%?")
    assert [s.tool for s in trace.tool_calls] == ["calculator"]
    assert "This step needs the tool calculator" in sim.requests[1].last_user_text


async def test_the_parentheses_guard_wraps_the_calculator_only(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[
            {"steps": [{"description": "Look up order A-7", "tool": "lookup_order"}]},
            call("lookup_order", order_id="A-7"),
            "200.00",
            "R$ 200,00.",
        ]
    )
    agent = PlanAndSolveAgent(client(sim_server(sim)), shop_tools(), tool_mode="native")
    trace = await agent.run("Quanto custou o pedido A-7 (345 + 789)?")
    (lookup,) = trace.tool_calls
    assert (lookup.tool, lookup.observation) == (
        "lookup_order",
        "order A-7: 2 items, total paid 200.00, delivered",
    )


async def test_a_planner_without_a_plan_leaves_a_long_task_whole_as_the_one_step(
    sim_server: StartSim, client: MakeClient
) -> None:
    task = "Resuma o pedido A-7. " + "Detalhe cada item e o valor pago. " * 30  # > 600 chars

    def respond(req: SimRequest) -> str:
        return "Não sei planejar." if req.schema is not None else "Resumo feito."

    sim = SimulatedModel(responder=respond)
    started = time.perf_counter()
    trace = await PlanAndSolveAgent(client(sim_server(sim)), tool_mode="native").run(task)
    elapsed = time.perf_counter() - started
    assert trace.status is RunStatus.FINISHED, trace.error
    plan = trace.steps[0]
    assert plan.meta["plan"]["steps"][0]["description"] == task[:600]
    assert "the answer contains no JSON" in plan.meta["fallback"]  # why the plan was refused
    assert 0 < (plan.latency_s or 0) <= elapsed


def test_the_agents_limits_are_checked_when_it_is_built() -> None:
    model = OpenAIChatModel(base_url="http://127.0.0.1:9/v1", model="sim")
    for limits in ({"max_steps": 0}, {"max_replans": -1}, {"max_steps_per_step": 0}):
        with pytest.raises(ConfigurationError) as refused:
            PlanAndSolveAgent(model, **limits)  # type: ignore[arg-type]
        assert str(refused.value) == "max_steps and max_steps_per_step ≥ 1, max_replans ≥ 0"
    PlanAndSolveAgent(model, max_steps=1, max_replans=0, max_steps_per_step=1)


def test_an_agent_built_with_nothing_but_a_model_has_the_documented_defaults() -> None:
    model = OpenAIChatModel(base_url="http://127.0.0.1:9/v1", model="sim")
    agent = PlanAndSolveAgent(model)
    assert (agent.max_steps, agent.max_plan_steps, agent.max_replans) == (12, 6, 2)
    assert (agent.max_steps_per_step, agent.deadline) == (5, 600.0)
    assert (agent.max_tokens, agent.temperature) == (800, 0.0)
    assert (agent.instructions, agent.role, agent.few_shot) == ("", "", "")


def test_a_registry_passed_in_is_the_one_the_agent_uses() -> None:
    registry = shop_tools()
    model = OpenAIChatModel(base_url="http://127.0.0.1:9/v1", model="sim")
    assert PlanAndSolveAgent(model, registry).registry is registry


async def test_replans_are_counted_up_to_max_replans(
    sim_server: StartSim, client: MakeClient
) -> None:
    def respond(req: SimRequest) -> str | dict[str, object]:
        if req.schema is not None:
            return {"steps": [{"description": "Read order 7"}]}
        return "REPLAN: no order 7"

    sim = SimulatedModel(responder=respond)
    agent = PlanAndSolveAgent(client(sim_server(sim)), tool_mode="native", max_replans=2)
    trace = await agent.run("Pedido 7?")
    assert trace.stop_reason == "replans_exhausted"
    assert [s.meta["plan_step"] for s in trace.steps if s.kind == "step_result"] == [
        "1",
        "r1.1",
        "r2.1",
    ]


async def test_a_step_outliving_the_runs_deadline_ends_the_run_with_the_results_so_far(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[
            {"steps": [{"description": "Read order A-7"}, {"description": "Read order B-9"}]},
            "Order A-7: total paid 200.00",
            Reply.stall(60, "tarde demais"),
        ]
    )
    agent = PlanAndSolveAgent(
        client(sim_server(sim), timeout=60.0, deadline=60.0), tool_mode="native", deadline=1.0
    )
    trace = await agent.run("Quanto custaram A-7 e B-9?")
    assert (trace.paradigm, trace.task) == ("plan", "Quanto custaram A-7 e B-9?")
    assert (trace.status, trace.stop_reason) == (RunStatus.MAX_STEPS, "deadline")
    assert trace.answer == "Order A-7: total paid 200.00"
    assert trace.settings["temperature"] == 0.0
