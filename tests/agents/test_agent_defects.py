"""The defects a student met, each fixed: protocol text never becomes an answer, a prose reply
to a tool step replans once before failing, and runs are deterministic by default
(temperature 0, recorded in the trace)."""

from __future__ import annotations

from collections.abc import Callable

from colmeia.agents import PlanAndSolveAgent, ReActAgent, ReflectionAgent, RunStatus, answer_from
from colmeia.llm import OpenAIChatModel
from colmeia.sim.engine import Reply, SimRequest, SimulatedModel
from colmeia.sim.server import SimServer
from colmeia.tools.builtins.calculator import calculator_tool

StartSim = Callable[[SimulatedModel], SimServer]
MakeClient = Callable[..., OpenAIChatModel]


def call(name: str, **arguments: str) -> Reply:
    return Reply(tool_calls=[{"name": name, "arguments": arguments}])


def test_protocol_text_is_not_an_answer() -> None:
    assert answer_from("Thought: x\nAction: math2[1+1]") is None
    assert answer_from("Thought: I should compute it") is None
    assert answer_from("Action: calculator\nAction Input: 2+2", ["calculator"]) is None
    assert answer_from("Thought: done\nFinal Answer: 397,8") == "397,8"
    assert answer_from("O total é 397,8.") == "O total é 397,8."


async def test_after_tool_failures_a_protocol_reply_ends_with_no_answer(
    sim_server: StartSim, client: MakeClient
) -> None:
    """The issue's case: three failed calls, then the last call (without tools) writes
    ``Thought: x / Action: math2[1+1]``. That text must not reach the user as the answer."""
    sim = SimulatedModel(
        script=[
            "Thought: compute\nAction: math2[1+1]",
            "Thought: again\nAction: math2[1 + 1]",
            "Thought: once more\nAction: math2[(1+1)]",
            "Thought: x\nAction: math2[1+1]",  # the answer-on-limit call
        ]
    )
    trace = await ReActAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="text").run(
        "Quanto é 1+1?"
    )
    assert trace.status is RunStatus.TOOL_FAILURES
    assert trace.answer == ""
    assert "Action:" not in trace.answer
    last = trace.steps[-1]
    assert last.kind == "no_answer"
    assert "no answer" in last.observation
    assert sim.stats()["script_remaining"] == 0


async def test_a_bare_thought_in_native_mode_is_sent_back_not_answered(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(script=["Thought: I need to add the numbers", "2"])
    trace = await ReActAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="native").run(
        "Quanto é 1+1?"
    )
    assert trace.status is RunStatus.FINISHED
    assert trace.answer == "2"
    assert [s.kind for s in trace.steps] == ["format_error", "answer"]


async def test_a_prose_reply_to_a_tool_step_replans_once(
    sim_server: StartSim, client: MakeClient
) -> None:
    """A step the plan gave the calculator gets prose (even after the model layer's repair):
    the planner is asked again instead of the whole run ending ``model_error``."""
    plans = 0

    def respond(req: SimRequest) -> Reply | str | dict[str, object]:
        nonlocal plans
        if req.schema is not None:
            plans += 1
            if plans == 1:
                return {"steps": [{"description": "Compute 17% of 2340", "tool": "calculator"}]}
            return {"steps": [{"description": "Compute 0.17 * 2340 with the calculator"}]}
        if plans == 1:
            return "It is about 400."  # prose where a call is required, every time
        if "Final answer" in req.last_user_text or "final answer" in req.last_user_text:
            return "17% de 2.340 é 397,8."
        if req.tool_results:
            return "397.8"
        return call("calculator", expression="0.17 * 2340")

    srv = sim_server(SimulatedModel(responder=respond))
    agent = PlanAndSolveAgent(client(srv, max_repairs=1), [calculator_tool()], tool_mode="native")
    trace = await agent.run("Quanto é 17% de 2.340?")
    assert plans == 2
    kinds = [s.kind for s in trace.steps]
    assert "replan" in kinds
    failed = next(s for s in trace.steps if s.kind == "step_result")
    assert not failed.ok
    assert "answered in prose" in failed.observation
    assert trace.status is RunStatus.FINISHED, trace.error
    assert "397" in trace.answer


async def test_prose_twice_ends_the_run_after_one_replan(
    sim_server: StartSim, client: MakeClient
) -> None:
    plans = 0

    def respond(req: SimRequest) -> str | dict[str, object]:
        nonlocal plans
        if req.schema is not None:
            plans += 1
            return {"steps": [{"description": "Compute 17% of 2340", "tool": "calculator"}]}
        return "It is about 400."

    srv = sim_server(SimulatedModel(responder=respond))
    agent = PlanAndSolveAgent(client(srv, max_repairs=1), [calculator_tool()], tool_mode="native")
    trace = await agent.run("Quanto é 17% de 2.340?")
    assert plans == 2  # one replan, not max_replans (2)
    assert trace.status is RunStatus.MODEL_ERROR
    assert trace.stop_reason == "model_output"
    assert "answered in prose" in (trace.error or "")


async def test_agents_run_at_temperature_zero_by_default_and_say_so(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(script=[call("calculator", expression="1+1"), "2", "2"])
    srv = sim_server(sim)
    trace = await ReActAgent(client(srv), [calculator_tool()], tool_mode="native").run("1+1?")
    assert trace.to_dict()["settings"] == {"temperature": 0.0}
    assert [r.body.get("temperature") for r in sim.requests] == [0.0, 0.0]

    warm = await ReActAgent(client(srv), tool_mode="native", temperature=0.7).run("1+1?")
    assert warm.settings["temperature"] == 0.7
    assert sim.requests[-1].body.get("temperature") == 0.7


async def test_plan_and_reflection_pass_their_temperature_to_every_call(
    sim_server: StartSim, client: MakeClient
) -> None:
    def respond(req: SimRequest) -> str | dict[str, object]:
        if req.schema is not None and "steps" in str(req.schema):
            return {"steps": [{"description": "answer"}]}
        if req.schema is not None:
            return {"problems": [], "suggestions": [], "score": 1.0}
        return "ok"

    sim = SimulatedModel(responder=respond)
    srv = sim_server(sim)
    plan = await PlanAndSolveAgent(client(srv), temperature=0.3).run("x")
    reflect = await ReflectionAgent(client(srv), temperature=0.3).run("x")
    assert plan.settings == reflect.settings == {"temperature": 0.3}
    assert {r.body.get("temperature") for r in sim.requests} == {0.3}


async def test_a_call_that_only_restates_the_tools_result_is_the_answer(
    sim_server: StartSim, client: MakeClient
) -> None:
    """Seen on the 0.5B model: after the calculator said 397.8 it "calculated" 397.8 again,
    three times, and the loop detector ended the run with no answer. The restated result is
    the answer (it came from the tool), and the run ends there, without a second run of it."""
    sim = SimulatedModel(
        script=[
            "Thought: compute\nAction: calculator[17% de 2340]",
            "Thought: the result\nAction: calculator[397.8]",
        ]
    )
    trace = await ReActAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="text").run(
        "Quanto é 17% de 2340?"
    )
    assert trace.status is RunStatus.FINISHED
    assert trace.stop_reason == "restated_result"
    assert trace.answer == "397.8"
    assert [s.input for s in trace.tool_calls] == [{"expression": "17% de 2340"}]
    assert sim.stats()["script_remaining"] == 0
