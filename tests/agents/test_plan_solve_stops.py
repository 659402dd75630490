"""What a Plan-and-Solve run that stops early answers with: the model's partial answer, or, when
the model gives none, the result of the LAST step that ran (the freshest, not the first)."""

from __future__ import annotations

import re
from collections.abc import Callable

from colmeia.agents import PlanAndSolveAgent, RunStatus
from colmeia.llm import OpenAIChatModel
from colmeia.sim.engine import SimRequest, SimulatedModel
from colmeia.sim.server import SimServer

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
