"""What a Plan-and-Solve agent is configured with reaches every call it makes: the steps' workers
get its role, instructions, worked examples, token cap and temperature, the final answer its
token cap and temperature, the replanner its temperature; each step is told the task, the plan
and its own step, with the task's numbers spelled out for tool arguments; and ``run_sync``
passes on what ``run`` takes (a step callback, a step budget)."""

from __future__ import annotations

from collections.abc import Callable

from test_plan_solve import call, shop_tools

from colmeia.agents import PlanAndSolveAgent, RunStatus
from colmeia.agents.trace import Step
from colmeia.llm import OpenAIChatModel
from colmeia.sim.engine import SimulatedModel
from colmeia.sim.server import SimServer
from colmeia.tools.builtins.calculator import calculator_tool

StartSim = Callable[[SimulatedModel], SimServer]
MakeClient = Callable[..., OpenAIChatModel]


def _replanned_lookup() -> SimulatedModel:
    """A plan, a step that asks for a new plan, the new plan's step, and the final answer."""
    return SimulatedModel(
        script=[
            {"steps": [{"description": "Look up order 7", "tool": "lookup_order"}]},
            call("lookup_order", order_id="A-7"),
            "REPLAN: the number is A-7, not 7",
            {"steps": [{"description": "Look up order A-7", "tool": "lookup_order"}]},
            call("lookup_order", order_id="A-7"),
            "Order A-7: total paid 200.00",
            "O pedido A-7 custou R$ 200,00.",
        ]
    )


async def test_every_call_of_a_run_has_the_agents_temperature_and_its_token_cap(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = _replanned_lookup()
    agent = PlanAndSolveAgent(
        client(sim_server(sim)), shop_tools(), tool_mode="native", max_tokens=321, temperature=0.3
    )
    trace = await agent.run("Quanto custou o pedido 7?")
    assert trace.status is RunStatus.FINISHED, trace.error
    assert sim.stats()["script_remaining"] == 0
    assert [r.body.get("temperature") for r in sim.requests] == [0.3] * len(sim.requests)
    # the plans are bounded by their schema; the steps and the final answer by the agent's cap
    answers = [r for r in sim.requests if r.schema is None]
    assert [r.body.get("max_tokens") for r in answers] == [321] * 5


async def test_every_step_is_worked_by_the_agents_role_instructions_and_examples(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = _replanned_lookup()
    agent = PlanAndSolveAgent(
        client(sim_server(sim)),
        shop_tools(),
        tool_mode="native",
        role="Você é o atendente da loja Colmeia.",
        instructions="Cite sempre o número do pedido.",
        few_shot="Pedido B-2 → 'O pedido B-2 custou R$ 10,00.'",
    )
    await agent.run("Quanto custou o pedido 7?")
    steps = [r for r in sim.requests if r.schema is None][:-1]  # the final answer has no system
    assert len(steps) == 4
    for request in steps:
        system = request.text(roles=("system",))
        assert system.startswith("Você é o atendente da loja Colmeia.")
        assert "Cite sempre o número do pedido." in system
        assert "Pedido B-2 → 'O pedido B-2 custou R$ 10,00.'" in system


async def test_a_step_is_told_the_task_the_plan_and_which_step_is_its_own(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[
            {
                "steps": [
                    {"description": "Look up order A-7", "tool": "lookup_order"},
                    {"description": "Say what was paid"},
                ]
            },
            call("lookup_order", order_id="A-7"),
            "Order A-7: total paid 200.00",
            "200.00 was paid",
            "Foram pagos R$ 200,00.",
        ]
    )
    agent = PlanAndSolveAgent(client(sim_server(sim)), shop_tools(), tool_mode="native")
    await agent.run("Quanto foi pago no pedido A-7?")
    second = sim.requests[3].last_user_text
    assert "Overall task:\nQuanto foi pago no pedido A-7?" in second
    assert "The plan:\n1. Look up order A-7\n2. Say what was paid" in second
    assert "- Step 1: Order A-7: total paid 200.00" in second
    assert "Your step (2): Say what was paid" in second


async def test_a_steps_tool_arguments_are_told_how_the_tasks_numbers_are_written(
    sim_server: StartSim, client: MakeClient
) -> None:
    # the step's prompt is in English around the task: the task's own Portuguese numbers,
    # not the prompt's, are the ones spelled out for the calculator
    sim = SimulatedModel(
        script=[
            {"steps": [{"description": "Compute 17% of 2340", "tool": "calculator"}]},
            call("calculator", expression="0.17 * 2340"),
            "397.8",
            "17% de 2.340 é 397,8.",
        ]
    )
    agent = PlanAndSolveAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="native")
    await agent.run("Quanto é 17% de 2.340?")
    assert "2.340 = 2340" in sim.requests[1].text(roles=("system",))


async def test_the_steps_the_workers_took_are_in_the_trace_under_their_plan_step(
    sim_server: StartSim, client: MakeClient
) -> None:
    trace = await PlanAndSolveAgent(
        client(sim_server(_replanned_lookup())), shop_tools(), tool_mode="native"
    ).run("Quanto custou o pedido 7?")
    assert [(s.kind, s.meta.get("plan_step")) for s in trace.steps] == [
        ("plan", None),
        ("tool", "1"),
        ("answer", "1"),
        ("step_result", "1"),
        ("replan", None),
        ("tool", "r1.1"),
        ("answer", "r1.1"),
        ("step_result", "r1.1"),
        ("answer", None),
    ]
    done = trace.steps[-2]
    assert (done.ok, done.thought, done.observation) == (
        True,
        "Look up order A-7",
        "Order A-7: total paid 200.00",
    )


def test_run_sync_passes_on_the_step_callback_and_the_step_budget(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[
            {"steps": [{"description": "Read order A-7"}, {"description": "Read order B-9"}]},
            "Order A-7: total paid 200.00",
            "Só o pedido A-7 foi lido: R$ 200,00.",
        ]
    )
    seen: list[Step] = []
    agent = PlanAndSolveAgent(client(sim_server(sim)), shop_tools(), tool_mode="native")
    trace = agent.run_sync("Quanto custaram A-7 e B-9?", on_step=seen.append, max_steps=1)
    assert (trace.status, trace.stop_reason) == (RunStatus.MAX_STEPS, "max_steps")
    assert trace.answer == "Só o pedido A-7 foi lido: R$ 200,00."
    assert [s.kind for s in seen] == [s.kind for s in trace.steps] != []
