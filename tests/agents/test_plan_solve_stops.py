"""What a Plan-and-Solve run that stops early answers with: the model's partial answer, or, when
the model gives none, the result of the LAST step that ran (the freshest, not the first)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from colmeia.agents import PlanAndSolveAgent, RunStatus
from colmeia.llm import OpenAIChatModel
from colmeia.sim.engine import Reply, SimRequest, SimulatedModel
from colmeia.sim.server import SimServer
from colmeia.tools.builtins.calculator import calculator_tool

StartSim = Callable[[SimulatedModel], SimServer]
MakeClient = Callable[..., OpenAIChatModel]


def planner(final: str) -> Callable[[SimRequest], str | dict[str, object]]:
    def respond(req: SimRequest) -> str | dict[str, object]:
        if req.schema is not None:
            return {"steps": [{"description": f"passo {i}"} for i in range(1, 5)]}
        step = re.search(r"Your step \(([\d.]+)\)", req.last_user_text)
        return f"resultado do passo {step.group(1)}" if step else final

    return respond


async def test_a_run_out_of_steps_answers_with_the_last_result_when_the_model_gives_none(
    sim_server: StartSim, client: MakeClient
) -> None:
    srv = sim_server(SimulatedModel(responder=planner(final="")))
    trace = await PlanAndSolveAgent(client(srv), max_steps=3).run("tarefa de quatro passos")
    assert trace.status is RunStatus.MAX_STEPS
    assert trace.answer == "resultado do passo 3"


async def test_a_run_out_of_steps_answers_from_the_results_so_far(
    sim_server: StartSim, client: MakeClient
) -> None:
    srv = sim_server(SimulatedModel(responder=planner(final="Parcial: passos 1 e 2 feitos.")))
    trace = await PlanAndSolveAgent(client(srv), max_steps=2).run("tarefa de quatro passos")
    assert trace.status is RunStatus.MAX_STEPS
    assert trace.answer == "Parcial: passos 1 e 2 feitos."
    assert [s.meta["plan_step"] for s in trace.steps if s.kind == "step_result"] == ["1", "2"]


@pytest.mark.parametrize(
    ("second", "answer"),
    [("40 + 2", "42"), ("40 +", "36")],  # a failed call's error is no answer: the last good one is
    ids=["both-computed", "second-failed"],
)
async def test_a_run_stopped_before_any_step_finished_answers_with_its_last_observation(
    sim_server: StartSim, client: MakeClient, second: str, answer: str
) -> None:
    # the only step computes twice and runs out of its own steps before it answers: the run's
    # answer is the freshest thing a tool returned, not the first
    sim = SimulatedModel(
        script=[
            {"steps": [{"description": "Compute 12 * 3, then 40 + 2", "tool": "calculator"}]},
            Reply(tool_calls=[{"name": "calculator", "arguments": {"expression": "12 * 3"}}]),
            Reply(tool_calls=[{"name": "calculator", "arguments": {"expression": second}}]),
        ]
    )
    agent = PlanAndSolveAgent(
        client(sim_server(sim)),
        [calculator_tool()],
        tool_mode="native",
        max_steps_per_step=2,
        max_replans=0,
    )
    trace = await agent.run("Quanto é 12 * 3, e depois 40 + 2?")
    assert trace.status is RunStatus.MAX_STEPS
    assert trace.tool_calls[0].observation == "36"
    assert trace.answer == answer
