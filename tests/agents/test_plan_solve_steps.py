"""How a Plan-and-Solve step is carried out, as a user of the agent checks it: a step whose
plan names an offered tool must call it (an answer in prose is asked again), a step naming a
tool that does not exist is answered without one, the calculator is the tool tagged ``math``
and is only required when asked for; a run stopped early gets its partial answer only within
the time it has left; and the blocking ``run_sync`` gives what ``run`` gives."""

from __future__ import annotations

import time
from collections.abc import Callable

from test_plan_solve import call, shop_tools

from colmeia.agents import PlanAndSolveAgent, RunStatus
from colmeia.llm import OpenAIChatModel
from colmeia.sim.engine import Reply, SimRequest, SimulatedModel
from colmeia.sim.server import SimServer
from colmeia.tools import Tool

StartSim = Callable[[SimulatedModel], SimServer]
MakeClient = Callable[..., OpenAIChatModel]

_LOOKUP = {"steps": [{"description": "Look up order A-7", "tool": "lookup_order"}]}


async def test_a_step_naming_an_offered_tool_must_call_it_before_answering(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[
            _LOOKUP,
            "O pedido A-7 custou uns 150.",  # from its head: the tool is required, asked again
            call("lookup_order", order_id="A-7"),
            "Order A-7: total paid 200.00",
            "O pedido A-7 custou R$ 200,00.",
        ]
    )
    agent = PlanAndSolveAgent(client(sim_server(sim)), shop_tools(), tool_mode="native")
    trace = await agent.run("Quanto custou o pedido A-7?")
    assert trace.status is RunStatus.FINISHED, trace.error
    assert [s.tool for s in trace.tool_calls] == ["lookup_order"]
    (result,) = [s for s in trace.steps if s.kind == "step_result"]
    assert result.observation == "Order A-7: total paid 200.00"
    assert "This step needs the tool lookup_order" in sim.requests[1].last_user_text
    assert trace.answer == "O pedido A-7 custou R$ 200,00."


async def test_a_step_naming_a_tool_that_is_not_offered_is_answered_without_one(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[
            {"steps": [{"description": "Describe the store's return policy", "tool": "web"}]},
            "Returns are accepted within 7 days.",
            "A loja aceita devoluções em até 7 dias.",
        ]
    )
    agent = PlanAndSolveAgent(client(sim_server(sim)), shop_tools(), tool_mode="native")
    trace = await agent.run("Qual é a política de devolução?")
    assert trace.status is RunStatus.FINISHED, trace.error
    assert trace.tool_calls == [] and sim.stats()["script_remaining"] == 0
    assert "needs the tool" not in sim.requests[1].last_user_text
    (result,) = [s for s in trace.steps if s.kind == "step_result"]
    assert result.observation == "Returns are accepted within 7 days."


async def test_the_calculator_is_the_math_tool_and_is_required_only_when_asked_for(
    sim_server: StartSim, client: MakeClient
) -> None:
    def contas(expression: str) -> str:
        """Evaluate an arithmetic expression.

        Args:
            expression: The expression, e.g. 2+2.
        """
        return "397.8"

    math = Tool.from_function(contas, tags=("math",))
    compute = {"steps": [{"description": "Calcule 17% de 2340"}]}
    sim = SimulatedModel(
        script=[compute, "É cerca de 400.", call("contas", expression="0.17*2340"), "397.8", "ok"]
    )
    trace = await PlanAndSolveAgent(client(sim_server(sim)), [math], tool_mode="native").run("17%?")
    assert [s.tool for s in trace.tool_calls] == ["contas"]
    assert "This step needs the tool contas" in sim.requests[1].last_user_text

    # without calculator_by_default, an answer from the model's head is the step's result
    sim = SimulatedModel(script=[compute, "É cerca de 400.", "Uns 400."])
    agent = PlanAndSolveAgent(
        client(sim_server(sim)), [math], tool_mode="native", calculator_by_default=False
    )
    trace = await agent.run("17%?")
    assert trace.status is RunStatus.FINISHED and trace.tool_calls == []
    assert "needs the tool" not in sim.requests[1].last_user_text
    assert [s.observation for s in trace.steps if s.kind == "step_result"] == ["É cerca de 400."]


async def test_a_stopped_run_waits_for_its_partial_answer_only_until_its_deadline(
    sim_server: StartSim, client: MakeClient
) -> None:
    # two quick steps (no tool named), the second asks for a new plan that may not come: the
    # run stops with 1.5 s of its deadline left, most of which the partial answer may wait
    sim = SimulatedModel(
        script=[
            {"steps": [{"description": "Read order A-7"}, {"description": "Read order B-9"}]},
            "Order A-7: total paid 200.00",
            "REPLAN: order B-9 does not exist",
            Reply.stall(60, "tarde demais"),  # the partial answer never comes in time
        ]
    )
    agent = PlanAndSolveAgent(
        client(sim_server(sim), timeout=60.0, deadline=60.0),
        shop_tools(),
        tool_mode="native",
        max_replans=0,
        deadline=1.0,
    )
    trace = await agent.run("Quanto custaram os pedidos A-7 e B-9?")
    # the run's own stop, not the deadline's, and the freshest result as the answer: without
    # the run's deadline the stalled reply would arrive and "tarde demais" would be the answer
    assert trace.stop_reason == "replans_exhausted"
    assert trace.answer == "Order A-7: total paid 200.00"
    assert sim.stats()["script_remaining"] == 0  # the partial answer was asked for


async def test_a_stopped_run_with_time_left_waits_for_its_partial_answer(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[
            {"steps": [{"description": "Read order A-7"}, {"description": "Read order B-9"}]},
            "Order A-7: total paid 200.00",
            "REPLAN: order B-9 does not exist",
            Reply.stall(0.5, "O A-7 custou R$ 200,00; o B-9 não existe."),  # slow, in time
        ]
    )
    agent = PlanAndSolveAgent(
        client(sim_server(sim)), shop_tools(), tool_mode="native", max_replans=0, deadline=10.0
    )
    trace = await agent.run("Quanto custaram os pedidos A-7 e B-9?")
    assert trace.stop_reason == "replans_exhausted"
    assert trace.answer == "O A-7 custou R$ 200,00; o B-9 não existe."


def test_run_sync_gives_what_run_gives(sim_server: StartSim, client: MakeClient) -> None:
    sim = SimulatedModel(
        script=[
            _LOOKUP,
            call("lookup_order", order_id="A-7"),
            "Order A-7: total paid 200.00",
            "O pedido A-7 custou R$ 200,00.",
        ]
    )
    agent = PlanAndSolveAgent(client(sim_server(sim)), shop_tools(), tool_mode="native")
    trace = agent.run_sync("Quanto custou o pedido A-7?")
    assert (trace.status, trace.answer) == (RunStatus.FINISHED, "O pedido A-7 custou R$ 200,00.")
    assert [s.tool for s in trace.tool_calls] == ["lookup_order"]


async def test_the_plan_in_the_trace_is_the_plan_followed_with_its_cost(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[
            _LOOKUP,
            call("lookup_order", order_id="A-7"),
            "Order A-7: total paid 200.00",
            "O pedido A-7 custou R$ 200,00.",
        ]
    )
    agent = PlanAndSolveAgent(client(sim_server(sim)), shop_tools(), tool_mode="native")
    started = time.perf_counter()
    trace = await agent.run("Quanto custou o pedido A-7?")
    elapsed = time.perf_counter() - started
    plan = trace.steps[0]
    assert (plan.kind, plan.ok, plan.thought) == ("plan", True, "1. Look up order A-7")
    assert plan.meta == {
        "plan": {
            "steps": [{"description": "Look up order A-7", "tool": "lookup_order", "substeps": []}]
        }
    }
    assert plan.prompt_tokens == sim.requests[0].prompt_tokens > 0
    assert (plan.completion_tokens or 0) > 0
    assert 0 < (plan.latency_s or 0) <= elapsed


async def test_a_planner_that_cannot_write_a_plan_gets_the_task_as_its_one_step(
    sim_server: StartSim, client: MakeClient
) -> None:
    task = "Quanto custou o pedido A-7?"

    def respond(req: SimRequest) -> str:
        if req.schema is not None:
            return "Não sei fazer um plano para isso."  # prose, never the plan's JSON
        if "Your step (1)" in req.last_user_text:
            return "O pedido A-7 custou 200,00."
        return "Custou R$ 200,00."

    sim = SimulatedModel(responder=respond)
    trace = await PlanAndSolveAgent(client(sim_server(sim)), tool_mode="native").run(task)
    assert (trace.status, trace.answer) == (RunStatus.FINISHED, "Custou R$ 200,00.")
    plan = trace.steps[0]
    assert (plan.kind, plan.ok, plan.thought) == ("plan", False, f"1. {task}")
    assert plan.meta["plan"] == {"steps": [{"description": task, "tool": None, "substeps": []}]}
    assert plan.meta["fallback"]  # why the planner's output was refused
    assert [s.meta["plan_step"] for s in trace.steps if s.kind == "step_result"] == ["1"]
