"""What a replan is made of and what a stopped run answers: the planner is told the task, the
plan so far, the step that failed and why; the trace says which step it replaced; and a run
stopped before any step finished answers with the last thing it found."""

from __future__ import annotations

import time
from collections.abc import Callable

from test_plan_solve import call, shop_tools

from colmeia.agents import PlanAndSolveAgent, RunStatus
from colmeia.llm import OpenAIChatModel
from colmeia.sim.engine import SimulatedModel
from colmeia.sim.server import SimServer

StartSim = Callable[[SimulatedModel], SimServer]
MakeClient = Callable[..., OpenAIChatModel]

TASK = "Qual é o reembolso (metade do valor) do pedido 7?"


async def test_the_replanner_is_told_what_failed_and_the_trace_says_what_it_replaced(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[
            {"steps": [{"description": "Look up order 7", "tool": "lookup_order"}]},
            call("lookup_order", order_id="7"),
            "REPLAN: order 7 does not exist; the number is probably A-7",
            {"steps": [{"description": "Look up order A-7", "tool": "lookup_order"}]},
            call("lookup_order", order_id="A-7"),
            "Order A-7: total paid 200.00",
            "O reembolso é de R$ 100,00.",
        ]
    )
    agent = PlanAndSolveAgent(
        client(sim_server(sim)), shop_tools(), tool_mode="native", max_plan_steps=4
    )
    started = time.perf_counter()
    trace = await agent.run(TASK)
    elapsed = time.perf_counter() - started
    assert trace.status is RunStatus.FINISHED, trace.error

    replan_request = sim.requests[3]
    prompt = replan_request.last_user_text
    assert "step 1 could not be completed" in prompt
    assert "order 7 does not exist" in prompt
    assert TASK in prompt
    assert "1. Look up order 7" in prompt  # the plan so far
    assert "At most 4 steps" in prompt
    assert "lookup_order" in prompt and "calculator" in prompt  # the tools it can plan with
    # the new plan is structured output bounded like the first one
    assert replan_request.schema is not None
    assert replan_request.schema == sim.requests[0].schema

    (replan,) = [s for s in trace.steps if s.kind == "replan"]
    assert replan.meta["failed_step"] == "1"
    assert replan.meta["plan"]["steps"][0]["description"] == "Look up order A-7"
    assert replan.observation == "1. Look up order A-7"
    assert replan.prompt_tokens == replan_request.prompt_tokens > 0
    assert (replan.completion_tokens or 0) > 0
    assert 0 < (replan.latency_s or 0) <= elapsed

    # the final answer is written from the task and every step's result
    final_request = sim.requests[-1]
    assert TASK in final_request.last_user_text
    assert "A plan was carried out step by step" in final_request.last_user_text
    assert "Step r1.1 (Look up order A-7): Order A-7: total paid 200.00" in (
        final_request.last_user_text
    )
    answer = trace.steps[-1]
    assert (answer.kind, answer.observation, answer.meta) == (
        "answer",
        "O reembolso é de R$ 100,00.",
        {},
    )
    assert answer.prompt_tokens == final_request.prompt_tokens > 0
    assert (answer.completion_tokens or 0) > 0
    assert 0 < (answer.latency_s or 0) <= elapsed
    assert (trace.answer, trace.stop_reason) == ("O reembolso é de R$ 100,00.", "answer")


async def test_a_run_stopped_before_any_step_finished_answers_with_what_it_found(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[
            {"steps": [{"description": "Look up order A-7", "tool": "lookup_order"}]},
            # the step's one turn goes to the lookup: it ends without an answer, and there is
            # no replan left
            call("lookup_order", order_id="A-7"),
        ]
    )
    agent = PlanAndSolveAgent(
        client(sim_server(sim)),
        shop_tools(),
        tool_mode="native",
        max_replans=0,
        max_steps_per_step=1,
    )
    trace = await agent.run("Quanto foi pago no pedido A-7?")
    assert trace.status is not RunStatus.FINISHED
    assert trace.stop_reason == "replans_exhausted"
    assert trace.answer == "order A-7: 2 items, total paid 200.00, delivered"


async def test_a_run_stopped_after_some_steps_answers_from_them_saying_it_stopped(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[
            {
                "steps": [
                    {"description": "Look up order A-7", "tool": "lookup_order"},
                    {"description": "Look up order B-9", "tool": "lookup_order"},
                ]
            },
            call("lookup_order", order_id="A-7"),
            "Order A-7: total paid 200.00",
            call("lookup_order", order_id="B-9"),
            "REPLAN: order B-9 does not exist",
            "O pedido A-7 custou 200,00; o B-9 não foi encontrado.",
        ]
    )
    agent = PlanAndSolveAgent(
        client(sim_server(sim)), shop_tools(), tool_mode="native", max_replans=0
    )
    trace = await agent.run("Quanto custaram os pedidos A-7 e B-9?")
    assert trace.stop_reason == "replans_exhausted"
    prompt = sim.requests[-1].last_user_text
    assert "had to stop before its end" in prompt
    assert "Step 1 (Look up order A-7): Order A-7: total paid 200.00" in prompt
    assert "Quanto custaram os pedidos A-7 e B-9?" in prompt
    assert trace.answer == "O pedido A-7 custou 200,00; o B-9 não foi encontrado."
    assert trace.steps[-1].meta == {"partial": True}


async def test_the_replanner_may_split_steps_only_when_the_agent_is_hierarchical(
    sim_server: StartSim, client: MakeClient
) -> None:
    for hierarchical, told_to_leave_substeps_empty in ((True, False), (False, True)):
        sim = SimulatedModel(
            script=[
                {"steps": [{"description": "Look up order 7", "tool": "lookup_order"}]},
                call("lookup_order", order_id="7"),
                "REPLAN: the number is A-7",
                {"steps": [{"description": "Say the number is A-7"}]},
                "A-7",
                "O número é A-7.",
            ]
        )
        agent = PlanAndSolveAgent(
            client(sim_server(sim)), shop_tools(), tool_mode="native", hierarchical=hierarchical
        )
        await agent.run(TASK)
        replan_prompt = sim.requests[3].last_user_text
        assert ('Leave "substeps" empty.' in replan_prompt) is told_to_leave_substeps_empty
