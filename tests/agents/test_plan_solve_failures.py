"""How a Plan-and-Solve step fails, as a user reads it in the trace and the answer: a step that
runs out of turns, answers in prose where a tool was needed, or asks for a new plan is a failed
step, recorded under its label with why, and the planner is told that why; a failing model
ends the run at once with the model's own error; and a run that stops with nothing found
answers from the model, never with the plan's ``REPLAN:`` marker."""

from __future__ import annotations

from collections.abc import Callable

from test_plan_solve import call, shop_tools

from colmeia.agents import PlanAndSolveAgent, RunStatus
from colmeia.llm import OpenAIChatModel
from colmeia.sim.engine import Reply, SimulatedModel
from colmeia.sim.server import SimServer
from colmeia.tools import ToolRegistry

StartSim = Callable[[SimulatedModel], SimServer]
MakeClient = Callable[..., OpenAIChatModel]

LOOKUP_7 = {"steps": [{"description": "Look up order 7", "tool": "lookup_order"}]}
LOOKUP_A7 = {"steps": [{"description": "Look up order A-7", "tool": "lookup_order"}]}
OUT_OF_TURNS = "the step ended with max_steps: no final answer within 1 steps"


def _failed_steps(trace: object) -> list[tuple[bool, str, str, dict[str, object]]]:
    return [
        (s.ok, s.thought, s.observation, s.meta)
        for s in trace.steps  # type: ignore[attr-defined]
        if s.kind == "step_result" and not s.ok
    ]


async def test_a_step_out_of_turns_fails_and_the_planner_is_told_so_at_once(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[
            LOOKUP_7,
            call("lookup_order", order_id="7"),  # the step's one turn: no answer yet
            LOOKUP_A7,
            call("lookup_order", order_id="A-7"),  # again out of turns, no replan left
        ]
    )
    agent = PlanAndSolveAgent(
        client(sim_server(sim)),
        shop_tools(),
        tool_mode="native",
        max_steps_per_step=1,
        max_replans=1,
    )
    trace = await agent.run("Quanto foi pago no pedido 7?")
    # no extra "answer now" call inside a step, and none after: the lookup found the answer
    assert [r.schema is not None for r in sim.requests] == [True, False, True, False]
    assert f"step 1 could not be completed as planned:\n{OUT_OF_TURNS}" in (
        sim.requests[2].last_user_text
    )
    assert _failed_steps(trace) == [
        (False, "Look up order 7", OUT_OF_TURNS, {"plan_step": "1"}),
        (False, "Look up order A-7", OUT_OF_TURNS, {"plan_step": "r1.1"}),
    ]
    assert (trace.status, trace.stop_reason) == (RunStatus.MAX_STEPS, "replans_exhausted")
    assert trace.error == f"step r1.1 failed after 1 replans: {OUT_OF_TURNS}"
    assert trace.answer == "order A-7: 2 items, total paid 200.00, delivered"


async def test_a_step_answered_in_prose_where_a_tool_was_needed_is_replanned_with_why(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[
            LOOKUP_A7,
            "O pedido custou uns 150.",  # prose where the lookup is required: asked again
            "Uns 150, acho.",  # prose again: the step's answer is unusable
            LOOKUP_A7,
            "Uns 150.",
            "Acho que 150.",
            "Não consegui consultar o pedido A-7.",
        ]
    )
    agent = PlanAndSolveAgent(
        client(sim_server(sim)), shop_tools(), tool_mode="native", max_replans=3
    )
    trace = await agent.run("Quanto custou o pedido A-7?")
    assert sim.stats()["script_remaining"] == 0
    failed = _failed_steps(trace)
    assert [(ok, thought, meta) for ok, thought, _, meta in failed] == [
        (False, "Look up order A-7", {"plan_step": "1"}),
        (False, "Look up order A-7", {"plan_step": "r1.1"}),
    ]
    reason = failed[0][2]
    assert reason.startswith("the step's answer was unusable: ")
    assert len(reason) > len("the step's answer was unusable: ")
    assert f"step 1 could not be completed as planned:\n{reason}" in sim.requests[3].last_user_text
    # the second prose failure ends the run, whatever replans are left
    assert (trace.status, trace.stop_reason) == (RunStatus.MODEL_ERROR, "model_output")
    assert trace.error == failed[1][2]
    assert trace.answer == "Não consegui consultar o pedido A-7."


async def test_prose_where_a_tool_was_needed_with_no_replan_left_is_a_model_error(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(script=[LOOKUP_A7, "Uns 150.", "Acho que 150.", "Não sei."])
    agent = PlanAndSolveAgent(
        client(sim_server(sim)), shop_tools(), tool_mode="native", max_replans=0
    )
    trace = await agent.run("Quanto custou o pedido A-7?")
    assert (trace.status, trace.stop_reason) == (RunStatus.MODEL_ERROR, "replans_exhausted")
    assert (trace.error or "").startswith("step 1 failed after 0 replans: the step's answer")


async def test_a_model_failing_during_a_step_ends_the_run_with_its_error_and_no_new_plan(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(script=[LOOKUP_A7, Reply.http_error(404, "no such model")])
    agent = PlanAndSolveAgent(client(sim_server(sim)), shop_tools(), tool_mode="native")
    trace = await agent.run("Pedido A-7?")
    assert (trace.status, trace.stop_reason) == (RunStatus.MODEL_ERROR, "model_error")
    assert "HTTP 404" in (trace.error or "")
    assert len(sim.requests) == 2  # the plan and the step: the planner is not asked again


async def test_a_bare_replan_tells_the_planner_the_result_contradicts_the_plan(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[
            {"steps": [{"description": "Read order 7"}]},
            "REPLAN:",
            {"steps": [{"description": "Read order A-7"}]},
            "replan:   ",  # any case, nothing after it
            "Não encontrei o pedido.",
        ]
    )
    agent = PlanAndSolveAgent(
        client(sim_server(sim)), shop_tools(), tool_mode="native", max_replans=1
    )
    trace = await agent.run("Quanto custou o pedido 7?")
    assert "could not be completed as planned:\nthe step's result contradicts the plan" in (
        sim.requests[2].last_user_text
    )
    assert _failed_steps(trace) == [
        (False, "Read order 7", "REPLAN:", {"plan_step": "1"}),
        (False, "Read order A-7", "replan:", {"plan_step": "r1.1"}),
    ]
    # a step that keeps asking for new plans has not failed as a model: it ran out of them
    assert (trace.status, trace.stop_reason) == (RunStatus.MAX_STEPS, "replans_exhausted")
    assert trace.error == (
        "step r1.1 failed after 1 replans: the step's result contradicts the plan"
    )


async def test_a_run_stopped_with_nothing_found_answers_from_the_model_not_with_replan(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[
            {"steps": [{"description": "Read order 7"}]},
            "REPLAN: order 7 does not exist",
            "Não há pedido 7; confira o número (resposta não verificada passo a passo).",
        ]
    )
    agent = PlanAndSolveAgent(
        client(sim_server(sim)), shop_tools(), tool_mode="native", max_replans=0
    )
    trace = await agent.run("Quanto custou o pedido 7?")
    assert "had to stop before any step was done" in sim.requests[-1].last_user_text
    assert trace.answer == (
        "Não há pedido 7; confira o número (resposta não verificada passo a passo)."
    )


async def test_a_task_written_with_parentheses_runs_without_a_calculator(
    sim_server: StartSim, client: MakeClient
) -> None:
    # the parentheses guard wraps the calculator; with no calculator there is nothing to wrap
    sim = SimulatedModel(
        script=[{"steps": [{"description": "Add up the order"}]}, "3402", "São 3402 itens."]
    )
    lookup_only = ToolRegistry([t for t in shop_tools() if t.name == "lookup_order"])
    agent = PlanAndSolveAgent(client(sim_server(sim)), lookup_only, tool_mode="native")
    trace = await agent.run("Quantos itens são (345 + 789) * 3?")
    assert (trace.status, trace.answer) == (RunStatus.FINISHED, "São 3402 itens.")
