"""What a 1.5B model served by llama.cpp did to the agents, replayed with scripted replies.

Each test is one quirk seen on the real model (issue 12); ``tests/real_model`` runs the same
agents against the real server.
"""

from __future__ import annotations

from collections.abc import Callable

from colmeia.agents import PlanAndSolveAgent, ReActAgent, ReflectionAgent, RunStatus
from colmeia.agents.react import DEFAULT_DEADLINE_S, MIN_TURN_TOKENS, refuses_tools
from colmeia.agents.reflection import states_result
from colmeia.errors import ModelHTTPError
from colmeia.llm import OpenAIChatModel
from colmeia.sim.engine import Latency, Reply, SimRequest, SimulatedModel
from colmeia.sim.server import SimServer
from colmeia.tools import ToolRegistry
from colmeia.tools.builtins.calculator import calculator_tool

StartSim = Callable[[SimulatedModel], SimServer]
MakeClient = Callable[..., OpenAIChatModel]


def call(name: str, arguments: object) -> Reply:
    return Reply(tool_calls=[{"name": name, "arguments": arguments}])


async def test_arguments_that_copy_the_schema_are_repaired(
    sim_server: StartSim, client: MakeClient
) -> None:
    schema_copy = {"required": ["expression"], "properties": {"expression": "2340 * 0.17"}}
    sim = SimulatedModel(script=[call("calculator", schema_copy), "17% de 2340 é 397,8."])
    trace = await ReActAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="native").run(
        "Quanto é 17% de 2340?"
    )
    assert trace.status is RunStatus.FINISHED
    step = trace.steps[0]
    assert (step.ok, step.input, step.observation) == (True, {"expression": "2340 * 0.17"}, "397.8")
    assert step.meta["repaired_from"] == schema_copy


async def test_an_unrepairable_schema_copy_is_answered_with_an_example_call(
    sim_server: StartSim, client: MakeClient
) -> None:
    schema_only = {"type": "object", "properties": {"expression": {"type": "string"}}}
    sim = SimulatedModel(
        script=[call("calculator", schema_only), call("calculator", {"expression": "3*3"}), "9"]
    )
    trace = await ReActAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="native").run(
        "3*3?"
    )
    assert trace.answer == "9"
    error = sim.requests[1].messages[-1]["content"]
    assert 'Call it like: calculator({"expression": "2 * (3 + 4)"})' in error
    assert '"properties"' not in error  # the schema is not shown back to be copied again


async def test_a_different_failing_call_is_not_called_a_repeat(
    sim_server: StartSim, client: MakeClient
) -> None:
    # Text mode: two different unreadable inputs used to share the key "calculator {}".
    sim = SimulatedModel(
        script=[
            "Action: calculator[17 pct de 2340]",
            "Action: calculator[dezessete por cento de 2340]",
            "Action: calculator[0.17 * 2340]",
            "Final Answer: 397,8",
        ]
    )
    trace = await ReActAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="text").run(
        "Quanto é 17% de 2340?"
    )
    assert trace.status is RunStatus.FINISHED
    assert trace.answer == "397,8"
    seen_by_model = [m["content"] or "" for r in sim.requests for m in r.messages]
    assert not any("exactly these arguments" in c for c in seen_by_model)
    assert [s.ok for s in trace.tool_calls] == [False, False, True]


async def test_the_same_failing_call_is_told_it_already_failed(
    sim_server: StartSim, client: MakeClient
) -> None:
    bad = call("calculator", {"expression": "17 pct de 2340"})
    sim = SimulatedModel(script=[bad, bad, call("calculator", {"expression": "0.17*2340"}), "ok"])
    trace = await ReActAgent(
        client(sim_server(sim)), [calculator_tool()], tool_mode="native", max_tool_failures=3
    ).run("17% de 2340?")
    assert trace.tool_calls[1].ok is False
    second = sim.requests[2].messages[-1]["content"]  # what the model read after the repeat
    assert "already failed with these arguments" in second
    assert "got the result above" not in second


async def test_a_different_wrong_tool_name_each_step_trips_the_limit(
    sim_server: StartSim, client: MakeClient
) -> None:
    names = iter(["calc", "calculate", "math", "compute", "evaluate", "sum"])
    sim = SimulatedModel(
        responder=lambda req: call(next(names), {"expression": "2+2"}) if req.tools else "4?"
    )
    trace = await ReActAgent(
        client(sim_server(sim)), [calculator_tool()], tool_mode="native", max_steps=8
    ).run("2+2?")
    assert trace.status is RunStatus.TOOL_FAILURES
    assert "3 tool calls failed in a row" in (trace.error or "")
    assert [s.tool for s in trace.tool_calls] == ["calc", "calculate", "math"]
    # each unknown name was answered with the right one and how to call it
    assert "Did you mean calculator?" in trace.tool_calls[0].observation


async def test_failures_of_different_tools_count_together_and_a_success_resets(
    sim_server: StartSim, client: MakeClient
) -> None:
    registry = ToolRegistry([calculator_tool()])

    @registry.tool
    def lookup_order(order_id: str) -> str:
        """Look up an order by number."""
        raise RuntimeError("database is down")

    script: list[Reply | str] = [
        call("lookup_order", {"order_id": "1"}),
        call("calculator", {"expression": "1/0"}),
        call("calculator", {"expression": "1+1"}),  # success: the count starts again
        call("lookup_order", {"order_id": "2"}),
        call("calculator", {"expression": "x"}),
        call("lookup_order", {"order_id": "3"}),
        "nunca",
    ]
    sim = SimulatedModel(script=script)
    trace = await ReActAgent(client(sim_server(sim)), registry, tool_mode="native").run("?")
    assert trace.status is RunStatus.TOOL_FAILURES
    assert len(trace.tool_calls) == 6
    assert "tools 'calculator', 'lookup_order'" in (trace.error or "")


async def test_unknown_tools_keep_their_input_in_the_trace(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=["Action: percentage\nAction Input: 17% de 2340", "Final Answer: não sei"]
    )
    trace = await ReActAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="text").run(
        "17% de 2340?"
    )
    step = trace.tool_calls[0]
    assert (step.tool, step.input, step.ok) == ("percentage", {"input": "17% de 2340"}, False)
    assert "Unknown tool 'percentage'" in step.observation


async def test_finish_conventions_of_other_frameworks_end_the_run(
    sim_server: StartSim, client: MakeClient
) -> None:
    for reply in ("Thought: pronto.\nAction: Finish[397,8]", 'finish(answer="397,8")'):
        sim = SimulatedModel(script=["Action: calculator[0.17*2340]", reply])
        trace = await ReActAgent(
            client(sim_server(sim)), [calculator_tool()], tool_mode="text"
        ).run("17% de 2340?")
        assert (trace.status, trace.answer) == (RunStatus.FINISHED, "397,8"), reply


async def test_fenced_json_calls_in_text_mode(sim_server: StartSim, client: MakeClient) -> None:
    fenced = (
        'Vou calcular.\n```json\n{"name": "calculator", "arguments": {"expression": "6*7"}}\n```'
    )
    sim = SimulatedModel(script=[fenced, "Final Answer: 42"])
    trace = await ReActAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="text").run(
        "6*7?"
    )
    assert trace.answer == "42"
    assert (trace.steps[0].observation, trace.steps[0].thought) == ("42", "Vou calcular.")


async def test_auto_mode_keeps_native_tools_after_an_unrelated_400(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[Reply.http_error(400, "the request exceeds the available context size")]
    )
    agent = ReActAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="auto")
    trace = await agent.run("2*3?")
    assert trace.status is RunStatus.MODEL_ERROR
    assert "context" in (trace.error or "")
    assert len(sim.requests) == 1  # not retried without tools as if tools were refused
    assert not agent._native_refused


def test_only_errors_that_say_so_mean_tools_are_refused() -> None:
    def error(status: int, text: str) -> ModelHTTPError:
        return ModelHTTPError(text, status=status, model="m", base_url="http://127.0.0.1")

    assert refuses_tools(error(400, "tools are not supported by this model"))
    assert refuses_tools(error(400, "Unrecognized request argument supplied: tool_choice"))
    assert refuses_tools(error(501, "Not Implemented"))
    assert not refuses_tools(error(400, "the request exceeds the available context size"))
    assert not refuses_tools(error(404, "model 'qwen' not found"))
    assert not refuses_tools(error(422, "messages: field required"))


async def test_a_model_writing_calls_as_text_is_switched_to_the_text_protocol(
    sim_server: StartSim, client: MakeClient
) -> None:
    # llama.cpp with Qwen2.5-Coder-1.5B: tools accepted, the call written as fenced JSON.
    def model(req: SimRequest) -> Reply | str:
        if req.tools:
            return '```json\n{"name": "calculator", "arguments": {"expression": "0.17*2340"}}\n```'
        if "Observation: 397.8" in req.last_user_text:
            return "Thought: done.\nFinal Answer: 397,8"
        return 'Thought: compute.\nAction: calculator\nAction Input: {"expression": "0.17*2340"}'

    sim = SimulatedModel(responder=model)
    trace = await ReActAgent(client(sim_server(sim)), [calculator_tool()]).run("17% de 2340?")
    assert trace.status is RunStatus.FINISHED
    assert trace.answer == "397,8"
    assert [s.kind for s in trace.steps] == ["mode", "tool", "answer"]
    assert sim.requests[1].tools == []  # asked again in the text protocol


async def test_a_guessed_observation_that_matches_ends_the_run_early(
    sim_server: StartSim, client: MakeClient
) -> None:
    reply = (
        'Thought: compute.\nAction: calculator\nAction Input: {"expression": "0.17*2340"}\n'
        "Observation: 397.8\nThought: done.\nFinal Answer: 397,8"
    )
    sim = SimulatedModel(script=[reply])
    trace = await ReActAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="text").run(
        "17% de 2340?"
    )
    assert (trace.status, trace.answer) == (RunStatus.FINISHED, "397,8")
    assert trace.usage.calls == 1


async def test_a_wrong_guessed_observation_is_not_trusted(
    sim_server: StartSim, client: MakeClient
) -> None:
    reply = (
        'Action: calculator\nAction Input: {"expression": "0.17*2340"}\n'
        "Observation: 405.8\nFinal Answer: 405,8"
    )
    sim = SimulatedModel(script=[reply, "Final Answer: 397,8"])
    trace = await ReActAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="text").run(
        "17% de 2340?"
    )
    assert trace.answer == "397,8"
    # the model's own guess never went back into the conversation
    assert "405.8" not in str(sim.requests[1].messages)


async def test_plan_and_solve_returns_its_best_answer_when_the_budget_runs_out(
    sim_server: StartSim, client: MakeClient
) -> None:
    plan = {"steps": [{"description": "Calcule 17% de 2340"}, {"description": "Some 10"}]}

    def model(req: SimRequest) -> Reply | str | dict[str, object]:
        if req.schema is not None:
            return plan
        if "stop before its end" in req.last_user_text:
            return "17% de 2340 é 397,8 (a soma não foi feita)."
        if req.tool_results:
            return "397,8"
        return call("calculator", {"expression": "0.17*2340"})

    sim = SimulatedModel(responder=model)
    agent = PlanAndSolveAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="native")
    trace = await agent.run("17% de 2340, mais 10", max_steps=1)
    assert trace.status is RunStatus.MAX_STEPS
    assert trace.answer == "17% de 2340 é 397,8 (a soma não foi feita)."


async def test_plan_and_solve_that_completes_no_step_still_answers(
    sim_server: StartSim, client: MakeClient
) -> None:
    # Seen on the 0.5B model: every step answered before calling its tool until the replans
    # ran out, and the run ended with an empty answer.
    plan = {"steps": [{"description": "Calcule 17% de 2340", "tool": "calculator"}]}

    def model(req: SimRequest) -> Reply | str | dict[str, object]:
        if req.schema is not None:
            return plan
        if "before any step was done" in req.last_user_text:
            return "Cerca de 398 (não verificado passo a passo)."
        return "Final Answer: 4.0"  # text mode: an answer, never the tool call

    sim = SimulatedModel(responder=model)
    agent = PlanAndSolveAgent(
        client(sim_server(sim)),
        [calculator_tool()],
        tool_mode="text",
        max_replans=0,
        max_steps_per_step=2,
    )
    trace = await agent.run("Quanto é 17% de 2340?")
    assert trace.status is RunStatus.MAX_STEPS, trace.error
    assert trace.answer == "Cerca de 398 (não verificado passo a passo)."
    assert trace.steps[-1].kind == "answer" and trace.steps[-1].meta == {"partial": True}


async def test_plan_and_solve_survives_a_planner_that_cannot_plan(
    sim_server: StartSim, client: MakeClient
) -> None:
    def model(req: SimRequest) -> Reply | str:
        if req.schema is not None or req.response_format is not None:
            return "Primeiro calculo, depois somo."  # prose, never a plan
        if "A plan was carried out" in req.last_user_text:
            return "397,8"
        if req.tool_results:
            return "O resultado é 397,8."
        return call("calculator", {"expression": "0.17*2340"})

    sim = SimulatedModel(responder=model)
    agent = PlanAndSolveAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="native")
    trace = await agent.run("Quanto é 17% de 2340?")
    assert trace.status is RunStatus.FINISHED
    assert trace.answer == "397,8"
    assert trace.steps[0].kind == "plan" and "fallback" in trace.steps[0].meta


async def test_a_plan_step_that_names_a_tool_must_call_it_before_answering(
    sim_server: StartSim, client: MakeClient
) -> None:
    # The 0.5B "did" a calculation step in its head (411.0), or answered REPLAN without trying.
    plan = {"steps": [{"description": "Calcule 17% de 2340", "tool": "calculator"}]}

    def model(req: SimRequest) -> Reply | str | dict[str, object]:
        if req.schema is not None:
            return plan
        if "A plan was carried out" in req.last_user_text:
            return "397,8"
        if req.tool_results:
            return "Thought: pronto.\nFinal Answer: 397,8"
        if "needs a tool" in req.last_user_text:
            return (
                'Thought: calculo.\nAction: calculator\nAction Input: {"expression": "0.17*2340"}'
            )
        return "Thought: de cabeça.\nFinal Answer: 411,0"

    sim = SimulatedModel(responder=model)
    agent = PlanAndSolveAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="text")
    trace = await agent.run("Quanto é 17% de 2340?")
    assert trace.status is RunStatus.FINISHED
    assert trace.answer == "397,8"
    kinds = [s.kind for s in trace.steps]
    assert kinds == ["plan", "format_error", "tool", "answer", "step_result", "answer"]
    assert "This step needs the tool calculator" in str(sim.requests[1].messages)


async def test_the_plan_schema_carries_the_step_limit(
    sim_server: StartSim, client: MakeClient
) -> None:
    # llama.cpp turns the schema into a grammar: with maxItems the list must close there (the
    # 0.5B wrote the same step until max_tokens cut it, then again when asked to repair).
    sim = SimulatedModel(
        script=[{"steps": [{"description": "Calcule 17% de 2340"}]}, "397,8", "397,8"]
    )
    agent = PlanAndSolveAgent(
        client(sim_server(sim)), [calculator_tool()], tool_mode="native", max_plan_steps=2
    )
    await agent.run("Quanto é 17% de 2340?")
    schema = sim.requests[0].schema
    assert schema is not None and schema["properties"]["steps"]["maxItems"] == 2


async def test_text_mode_keeps_a_required_first_tool_call(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[
            "Thought: sei de cabeça.\nFinal Answer: 411",
            "Thought: ainda sei.\nFinal Answer: 411",
            "Thought: de novo.\nFinal Answer: 411",
        ]
    )
    agent = ReActAgent(
        client(sim_server(sim)),
        [calculator_tool()],
        tool_mode="text",
        require_tool_first=True,
        max_format_errors=2,
    )
    trace = await agent.run("Quanto é 17% de 2340?")
    # asked twice to call the tool first; the third answer is taken (the run never hangs)
    assert [s.kind for s in trace.steps] == ["format_error", "format_error", "answer"]
    assert trace.status is RunStatus.FINISHED and trace.answer == "411"
    assert "Call it first, for example calculator(" in sim.requests[1].messages[-1]["content"]


async def test_reflection_does_not_pass_a_confident_wrong_number(
    sim_server: StartSim, client: MakeClient
) -> None:
    # The 1.5B critic scored "405,8" 1.0 although the calculator had said 397.8.
    def model(req: SimRequest) -> Reply | str | dict[str, object]:
        if req.schema is not None:
            return {"problems": [], "suggestions": [], "score": 1.0}
        if req.tool_results:
            return "Corrigido: 397,8." if "does not state" in req.text() else "São 405,8."
        return call("calculator", {"expression": "0.17*2340"})

    sim = SimulatedModel(responder=model)
    agent = ReflectionAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="native")
    trace = await agent.run("Quanto é 17% de 2340?")
    assert trace.status is RunStatus.FINISHED
    assert trace.answer == "Corrigido: 397,8."
    first = next(s for s in trace.steps if s.kind == "critique")
    assert "does not state the result of the last tool call (397.8)" in first.observation
    # the critic was shown the evidence
    critic_prompt = next(r for r in sim.requests if r.schema is not None).last_user_text
    assert 'calculator({"expression":"0.17*2340"}) → 397.8' in critic_prompt


def test_numbers_are_read_in_both_notations() -> None:
    assert states_result("O total é R$ 1.234,57.", "1234.5678")
    assert states_result("397,8", "397.8")
    assert states_result("397.80 reais", "397.8")
    assert not states_result("São 405,8.", "397.8")
    assert states_result("sem números", "não é número")


async def test_a_slow_endpoint_gets_shorter_turns_not_a_reply_cut_by_the_deadline(
    sim_server: StartSim, client: MakeClient
) -> None:
    # ~20 tokens/s, like the 1.5B on two cores: once measured, a turn asks for what fits in its
    # share of the time left instead of the configured 800 tokens.
    thought = "Vou calcular dezessete por cento de dois mil trezentos e quarenta com a calculadora."
    sim = SimulatedModel(
        script=[
            Reply(
                content=thought,
                tool_calls=[{"name": "calculator", "arguments": {"expression": "0.17*2340"}}],
            ),
            "397,8",
        ],
        latency=Latency(per_token_s=0.05),
    )
    model = client(sim_server(sim), timeout=30.0, deadline=60.0)
    agent = ReActAgent(
        model, [calculator_tool()], tool_mode="native", max_steps=4, deadline=30.0, max_tokens=800
    )
    trace = await agent.run("Quanto é 17% de 2340?")
    assert trace.status is RunStatus.FINISHED and trace.answer == "397,8"
    assert model.speed.gen_tps is not None and model.speed.gen_tps < 40
    first, second = (r.body["max_tokens"] for r in sim.requests)
    assert first == 800  # nothing measured yet
    assert MIN_TURN_TOKENS <= second < 800  # about (30 s left / 3 turns) x 20 tokens/s


async def test_without_a_deadline_a_slow_endpoint_gets_a_longer_run(
    sim_server: StartSim, client: MakeClient
) -> None:
    # "Deadlines tuned for fast servers fail on a laptop-class model": with no deadline given,
    # the run's grows to three times what max_steps measured turns take (here ~5 tokens/s).
    thought = "Vou calcular dezessete por cento de dois mil trezentos e quarenta."
    sim = SimulatedModel(
        script=[
            Reply(
                content=thought,
                tool_calls=[{"name": "calculator", "arguments": {"expression": "0.17*2340"}}],
            ),
            "397,8",
        ],
        latency=Latency(per_token_s=0.2),
    )
    model = client(sim_server(sim), timeout=60.0, deadline=120.0)
    agent = ReActAgent(model, [calculator_tool()], tool_mode="native", max_steps=2, max_tokens=800)
    assert agent.deadline_for(2) == DEFAULT_DEADLINE_S  # nothing measured yet
    trace = await agent.run("Quanto é 17% de 2340?")
    assert trace.status is RunStatus.FINISHED and trace.answer == "397,8"
    assert agent.deadline_for(2) > 3 * 2 * 800 / 6  # 800 tokens at under 6 tokens/s
    given = ReActAgent(model, [calculator_tool()], deadline=30.0)
    assert given.deadline_for(2) == 30.0  # a deadline given is a hard cap
