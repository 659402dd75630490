"""ReAct over a scripted simulated model, through the real client and HTTP."""

from __future__ import annotations

from collections.abc import Callable

from colmeia.agents.react import ReActAgent
from colmeia.agents.trace import RunStatus, Step
from colmeia.llm import OpenAIChatModel
from colmeia.sim.engine import Reply, SimRequest, SimulatedModel
from colmeia.sim.server import SimServer
from colmeia.tools import ToolRegistry
from colmeia.tools.builtins.calculator import calculator_tool

StartSim = Callable[[SimulatedModel], SimServer]


MakeClient = Callable[..., OpenAIChatModel]


def calc(expression: str) -> Reply:
    return Reply(tool_calls=[{"name": "calculator", "arguments": {"expression": expression}}])


async def test_two_step_react_with_the_calculator(sim_server: StartSim, client: MakeClient) -> None:
    sim = SimulatedModel(
        script=[
            Reply(content="First the cost of the items.", tool_calls=calc("3 * 19.90").tool_calls),
            calc("59.7 + 15"),
            "The total is R$ 74,70.",
        ]
    )
    srv = sim_server(sim)
    seen: list[Step] = []
    agent = ReActAgent(client(srv), [calculator_tool()], tool_mode="native")
    trace = await agent.run(
        "Três camisetas de R$ 19,90 mais R$ 15 de frete: quanto pago?", on_step=seen.append
    )
    assert trace.status is RunStatus.FINISHED
    assert trace.answer == "The total is R$ 74,70."
    assert [(s.kind, s.tool, s.observation) for s in trace.steps] == [
        ("tool", "calculator", "59.7"),
        ("tool", "calculator", "74.7"),
        ("answer", None, "The total is R$ 74,70."),
    ]
    assert trace.steps[0].thought == "First the cost of the items."
    assert trace.steps[0].input == {"expression": "3 * 19.90"}
    assert all(s.prompt_tokens > 0 for s in trace.steps)
    assert seen == trace.steps  # the listener saw every step as it happened
    assert trace.usage.calls == 3
    # the model saw the tool results as tool messages with the calculator offered
    last = sim.requests[-1]
    assert [m["content"] for m in last.messages if m["role"] == "tool"] == ["59.7", "74.7"]
    assert last.tool_names == ["calculator"]


async def test_malformed_action_is_corrected_after_the_error_observation(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[
            Reply(tool_calls=[{"name": "calculator", "arguments": {"expr": "2**10"}}]),
            calc("2**10"),
            "1024",
        ]
    )
    srv = sim_server(sim)
    trace = await ReActAgent(client(srv), [calculator_tool()], tool_mode="native").run("2^10?")
    assert trace.status is RunStatus.FINISHED
    assert trace.answer == "1024"
    first, second = trace.steps[0], trace.steps[1]
    assert not first.ok
    assert "Invalid arguments for tool 'calculator'" in first.observation
    assert "expression: Field required" in first.observation
    assert second.ok
    assert second.observation == "1024"
    # the error was what the model read before correcting itself
    assert "Field required" in sim.requests[1].messages[-1]["content"]


async def test_malformed_text_action_is_corrected(sim_server: StartSim, client: MakeClient) -> None:
    sim = SimulatedModel(
        script=[
            'Thought: compute\nAction: calculator\nAction Input: {"expression": "2*(3+',
            'Thought: I cut the JSON, again\nAction: calculator\nAction Input: {"expression": "2*(3+4)"}',
            "Thought: done\nFinal Answer: 14",
        ]
    )
    srv = sim_server(sim)
    trace = await ReActAgent(client(srv), [calculator_tool()], tool_mode="text").run("2*(3+4)?")
    assert trace.status is RunStatus.FINISHED
    assert trace.answer == "14"
    assert "not valid JSON" in trace.steps[0].observation
    assert sim.requests[1].messages[-1]["content"].startswith("Observation: Error:")
    assert trace.steps[1].observation == "14"


async def test_repeated_identical_calls_end_as_a_loop(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(responder=lambda req: calc("1 + 1") if req.tools else "Provavelmente 2.")
    srv = sim_server(sim)
    trace = await ReActAgent(
        client(srv), [calculator_tool()], tool_mode="native", max_steps=10
    ).run("1+1?")
    assert trace.status is RunStatus.LOOP_DETECTED
    assert "called 3 times with the same input" in (trace.error or "")
    tool_steps = [s for s in trace.steps if s.kind == "tool"]
    assert len(tool_steps) == 3
    assert tool_steps[-1].meta["loop"] is True
    # the first repeat carried a warning the model could have heeded; the trace keeps the
    # tool's own result (a best-answer fallback may show it to the user)
    assert "already called calculator" in sim.requests[2].messages[-1]["content"]
    assert tool_steps[1].observation == "2"
    assert "already called calculator" in tool_steps[1].meta["note"]
    # after stopping, one call without tools still produced an answer
    assert trace.answer == "Provavelmente 2."
    assert sim.requests[-1].tools == []


async def test_text_protocol_with_think_noise(sim_server: StartSim, client: MakeClient) -> None:
    sim = SimulatedModel(
        script=[
            "<think>The user wants 15% of 240. Action: maybe I should guess? No.</think>\n"
            "Sure, let me work this out.\n"
            "Thought: I should use the calculator.\n"
            "Action: calculator[240 * 0.15]\n"
            "Observation: 36 (I imagine)",
            "<think>36, good.</think>Thought: the calculator said 36.\n**Final Answer:** 36",
        ]
    )
    srv = sim_server(sim)
    trace = await ReActAgent(client(srv), [calculator_tool()], tool_mode="text").run(
        "Quanto é 15% de 240?"
    )
    assert trace.status is RunStatus.FINISHED
    assert trace.answer == "36"
    step = trace.steps[0]
    assert (step.tool, step.input, step.observation) == (
        "calculator",
        {"expression": "240 * 0.15"},
        "36",
    )
    assert step.thought == "I should use the calculator."
    system = sim.requests[0].messages[0]["content"]
    assert "Action Input:" in system
    assert "calculator" in system
    assert sim.requests[0].tools == []  # text mode offers no native tools
    # the model's invented observation was not passed on as its own words
    assert "I imagine" not in sim.requests[1].messages[-1]["content"]


async def test_prose_without_markers_gets_one_reminder_then_counts_as_the_answer(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(script=["Acho que são 4.", "São 4, com certeza."])
    srv = sim_server(sim)
    agent = ReActAgent(client(srv), [calculator_tool()], tool_mode="text", max_format_errors=1)
    trace = await agent.run("2+2?")
    assert trace.status is RunStatus.FINISHED
    assert trace.stop_reason == "prose_answer"
    assert trace.answer == "São 4, com certeza."
    assert trace.steps[0].kind == "format_error"
    assert "Final Answer:" in sim.requests[1].messages[-1]["content"]


async def test_a_tool_that_keeps_failing_ends_with_tool_failures(
    sim_server: StartSim, client: MakeClient
) -> None:
    registry = ToolRegistry()

    @registry.tool
    def lookup_order(order_id: str) -> str:
        """Look up an order by number."""
        raise RuntimeError("database is down")

    counter = iter(range(100))
    sim = SimulatedModel(
        responder=lambda req: (
            Reply(
                tool_calls=[{"name": "lookup_order", "arguments": {"order_id": str(next(counter))}}]
            )
            if req.tools
            else "Não consegui consultar o pedido."
        )
    )
    srv = sim_server(sim)
    trace = await ReActAgent(client(srv), registry, max_tool_failures=2, tool_mode="native").run(
        "Status do pedido?"
    )
    assert trace.status is RunStatus.TOOL_FAILURES
    assert "2 tool calls failed in a row (tool 'lookup_order')" in (trace.error or "")
    assert "database is down" in (trace.error or "")
    assert trace.answer == "Não consegui consultar o pedido."


async def test_step_limit(sim_server: StartSim, client: MakeClient) -> None:
    counter = iter(range(100))
    sim = SimulatedModel(
        responder=lambda req: calc(f"{next(counter)} + 1") if req.tools else "Ainda não sei."
    )
    srv = sim_server(sim)
    trace = await ReActAgent(client(srv), [calculator_tool()], max_steps=3, tool_mode="native").run(
        "conte"
    )
    assert trace.status is RunStatus.MAX_STEPS
    assert len([s for s in trace.steps if s.kind == "tool"]) == 3
    assert trace.answer == "Ainda não sei."


async def test_model_errors_end_the_run_with_their_message(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(script=[Reply.http_error(401, "bad key")])
    srv = sim_server(sim)
    trace = await ReActAgent(client(srv), [calculator_tool()]).run("2+2?")
    assert trace.status is RunStatus.MODEL_ERROR
    assert "HTTP 401" in (trace.error or "")
    assert "COLMEIA_LLM_API_KEY" in (trace.error or "")
    assert trace.to_dict()["status"] == "model_error"


async def test_auto_mode_falls_back_to_text_when_tools_are_refused(
    sim_server: StartSim, client: MakeClient
) -> None:
    def no_tools(req: SimRequest) -> Reply | str:
        if req.tools:
            return Reply.http_error(400, "tools are not supported by this model")
        if req.tool_results or "Observation:" in req.last_user_text:
            return "Final Answer: 6"
        return "Action: calculator\nAction Input: 2*3"

    srv = sim_server(SimulatedModel(responder=no_tools))
    agent = ReActAgent(client(srv), [calculator_tool()], tool_mode="auto")
    trace = await agent.run("2*3?")
    assert trace.status is RunStatus.FINISHED
    assert trace.answer == "6"
    # the model layer may first offer the tools in the prompt (the server refused native ones)
    assert [s.observation for s in trace.steps if s.tool == "calculator"] == ["6"]


def test_sync_run_has_the_same_result(sim_server: StartSim, client: MakeClient) -> None:
    srv = sim_server(SimulatedModel(script=[calc("6*7"), "42"]))
    trace = ReActAgent(client(srv), [calculator_tool()], tool_mode="native").run_sync("6*7?")
    assert trace.status is RunStatus.FINISHED
    assert trace.answer == "42"


async def test_the_run_deadline_is_a_hard_cap(sim_server: StartSim, client: MakeClient) -> None:
    sim = SimulatedModel(script=[calc("1+1"), Reply.stall(30, "tarde demais")])
    srv = sim_server(sim)
    agent = ReActAgent(client(srv, timeout=60.0, deadline=60.0), [calculator_tool()], deadline=1.0)
    trace = await agent.run("1+1?")
    assert trace.status is RunStatus.MAX_STEPS
    assert trace.stop_reason == "deadline"
    assert "deadline of 1s passed while waiting for the model" in (trace.error or "")
    assert [s.kind for s in trace.steps] == ["tool"]  # no extra call after the deadline


async def test_a_first_tool_call_can_be_required(sim_server: StartSim, client: MakeClient) -> None:
    sim = SimulatedModel(
        script=["<think>hmm</think>Acho que são uns 70 reais.", calc("3*19.9+15"), "R$ 74,70"]
    )
    srv = sim_server(sim)
    agent = ReActAgent(
        client(srv), [calculator_tool()], tool_mode="native", require_tool_first=True
    )
    trace = await agent.run("Três camisetas de R$ 19,90 mais R$ 15 de frete?")
    assert trace.status is RunStatus.FINISHED
    assert trace.answer == "R$ 74,70"
    assert trace.steps[0].tool == "calculator"
    assert sim.requests[0].tool_choice == "required"
    assert trace.usage.repairs == 1  # the prose guess was sent back, not taken as the answer
    assert sim.requests[2].tool_choice == "auto"
