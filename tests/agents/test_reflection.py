"""Reflection: critique and refine until the score is good, nothing is wrong, or no progress."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from colmeia.agents import Critic, ReflectionAgent, RunStatus
from colmeia.agents.memory import TrajectoryMemory
from colmeia.errors import ConfigurationError
from colmeia.llm import OpenAIChatModel
from colmeia.sim.engine import SimulatedModel
from colmeia.sim.server import SimServer

StartSim = Callable[[SimulatedModel], SimServer]
MakeClient = Callable[..., OpenAIChatModel]
TASK = "Explique em uma frase o direito de arrependimento do CDC."


def critique(score: float, *problems: str) -> dict[str, object]:
    return {
        "problems": list(problems),
        "suggestions": [f"fix: {p}" for p in problems],
        "score": score,
    }


async def test_stops_when_the_score_reaches_the_threshold(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[
            "Você pode devolver.",
            critique(0.4, "não diz o prazo", "não cita o artigo"),
            "Pelo art. 49 do CDC, compras fora da loja podem ser desistidas em 7 dias.",
            critique(0.9, "poderia citar 'a contar do recebimento'"),
        ]
    )
    srv = sim_server(sim)
    trace = await ReflectionAgent(client(srv), threshold=0.8).run(TASK)
    assert trace.status is RunStatus.FINISHED
    assert trace.stop_reason == "score"
    assert trace.answer.startswith("Pelo art. 49")
    assert [s.kind for s in trace.steps] == ["attempt", "critique", "refine", "critique"]
    assert [s.meta["score"] for s in trace.steps if s.kind == "critique"] == [0.4, 0.9]
    # the refiner saw the critique's problems
    refine_prompt = sim.requests[2].last_user_text
    assert "não diz o prazo" in refine_prompt
    assert "fix: não cita o artigo" in refine_prompt
    # and the second critic saw the trajectory so far
    assert "Você pode devolver." in sim.requests[3].last_user_text


async def test_stops_when_the_score_stops_improving_and_keeps_the_best(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[
            "Resposta A (boa mas incompleta).",
            critique(0.6, "incompleta"),
            "Resposta B (pior).",
            critique(0.5, "agora está errada"),
        ]
    )
    srv = sim_server(sim)
    trace = await ReflectionAgent(client(srv), threshold=0.9, max_iterations=5).run(TASK)
    # not finished: only a passing score finishes a run; the best answer is kept all the same
    assert trace.status is RunStatus.MAX_STEPS
    assert trace.stop_reason == "no_improvement"
    assert trace.answer == "Resposta A (boa mas incompleta)."
    assert sim.stats()["script_remaining"] == 0


async def test_a_low_score_without_problems_is_not_acceptance(
    sim_server: StartSim, client: MakeClient
) -> None:
    # Seen on a 1.5B critic: score 0.3 and an empty list of problems. That is no "all good".
    sim = SimulatedModel(
        script=["Ok.", critique(0.3), "Sete dias, art. 49 do CDC.", critique(0.96)]
    )
    srv = sim_server(sim)
    trace = await ReflectionAgent(client(srv), threshold=0.95).run(TASK)
    assert trace.status is RunStatus.FINISHED
    assert trace.stop_reason == "score"
    assert trace.answer == "Sete dias, art. 49 do CDC."
    # the refine prompt said why it was sent back, though the critic named nothing
    refine = sim.requests[2].last_user_text
    assert "without naming a problem" in refine


async def test_a_passing_score_is_the_only_way_to_finish(
    sim_server: StartSim, client: MakeClient
) -> None:
    srv = sim_server(SimulatedModel(script=["Ok.", critique(0.3), "Ok!", critique(0.3)]))
    trace = await ReflectionAgent(client(srv), threshold=0.95, max_iterations=2).run(TASK)
    assert trace.status is RunStatus.MAX_STEPS
    assert trace.answer in ("Ok.", "Ok!")


async def test_max_iterations_returns_the_best_answer(
    sim_server: StartSim, client: MakeClient
) -> None:
    srv = sim_server(SimulatedModel(script=["v1", critique(0.2, "a"), "v2", critique(0.3, "b")]))
    trace = await ReflectionAgent(client(srv), threshold=0.9, max_iterations=2).run(TASK)
    assert trace.status is RunStatus.MAX_STEPS
    assert trace.stop_reason == "max_iterations"
    assert trace.answer == "v2"


async def test_several_critics_one_with_its_own_model(
    sim_server: StartSim, client: MakeClient
) -> None:
    executor = SimulatedModel(
        responder=lambda req: critique(0.9) if req.schema is not None else "Resposta em português."
    )
    strict = SimulatedModel(responder=lambda req: critique(0.5, "falta o prazo"))
    exec_srv, critic_srv = sim_server(executor), sim_server(strict)
    critics = [
        Critic("correctness", "correctness", model=client(critic_srv), weight=1.0),
        "language",
    ]
    agent = ReflectionAgent(client(exec_srv), critics=critics, threshold=0.8, max_iterations=1)
    trace = await agent.run(TASK)
    step = next(s for s in trace.steps if s.kind == "critique")
    assert step.meta["scores"] == {"correctness": 0.5, "language": 0.9}
    assert step.meta["score"] == pytest.approx(0.7)
    assert step.observation == "[correctness] falta o prazo"
    assert "correctness" in strict.requests[0].last_user_text
    assert any("language" in r.last_user_text for r in executor.requests if r.schema is not None)
    assert trace.status is RunStatus.MAX_STEPS


async def test_starting_from_a_given_answer(sim_server: StartSim, client: MakeClient) -> None:
    srv = sim_server(SimulatedModel(script=[critique(0.95)]))
    trace = await ReflectionAgent(client(srv)).run(TASK, initial_answer="Sete dias, art. 49.")
    assert trace.answer == "Sete dias, art. 49."
    assert trace.steps[0].meta["given"] is True


def test_unknown_critics_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="Unknown critic 'style'"):
        ReflectionAgent(object(), critics=["style"])  # type: ignore[arg-type]


def test_memory_keeps_the_newest_within_budget() -> None:
    memory = TrajectoryMemory(max_entries=3, max_chars=60)
    for i in range(5):
        memory.add("attempt", f"answer number {i}", iteration=i, score=i / 10)
    assert len(memory) == 3
    text = memory.render()
    assert "answer number 4" in text
    assert "answer number 1" not in text
    assert len(text) <= 60
