"""Portuguese/Spanish number notation spelled out for tool arguments.

Qwen2.5-Coder-1.5B copied "Divida 7.893 por 9" into the calculator as ``7.893 / 9`` (0.877
instead of 877), in colmeia's ReAct and in LangGraph's and smolagents' agents alike. The agents
now name the task's own numbers in the system prompt: "7.893 = 7893".
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from colmeia.agents import PlanAndSolveAgent, ReActAgent, RunStatus
from colmeia.agents.numbers import TaskNumbers, looks_portuguese_or_spanish, read_numbers
from colmeia.llm import OpenAIChatModel
from colmeia.sim.engine import Reply, SimulatedModel
from colmeia.sim.server import SimServer
from colmeia.tools.builtins.calculator import calculator_tool

StartSim = Callable[[SimulatedModel], SimServer]
MakeClient = Callable[..., OpenAIChatModel]


@pytest.mark.parametrize(
    ("task", "notes"),
    [
        ("Divida 7.893 por 9. Qual é o resultado?", ["7.893 = 7893"]),
        ("Quanto dá 1.247 + 3.896 + 508?", ["1.247 = 1247", "3.896 = 3896"]),
        ("Um pacote de café custa R$ 18,75. Quanto custam 8?", ["18,75 = 18.75"]),
        ("Aplico R$ 1.000,00 a juros de 1% ao mês", ["1.000,00 = 1000.00"]),
        ("¿Cuánto es el 15% de 1.250.000,5 pesos?", ["1.250.000,5 = 1250000.5"]),
        ("Qual é a média de 7,5; 8,0 e 7,5?", ["7,5 = 7.5", "8,0 = 8.0"]),
        # nothing to misread: plain integers, percentages, times
        ("Quanto é 17% de 2340?", []),
        ("Um filme começa às 19h40 e dura 135 minutos.", []),
        # English: "7.893" is a decimal there, and stays as written
        ("What is 7.893 divided by 9?", []),
        ("How much is 1.5 times 2,5 in the end?", []),
    ],
)
def test_the_task_s_own_numbers_are_spelled_out(task: str, notes: list[str]) -> None:
    assert TaskNumbers.of(task).notes == notes


def test_the_language_test_reads_function_words() -> None:
    assert looks_portuguese_or_spanish("Quanto custam 8 pacotes de café?")
    assert looks_portuguese_or_spanish("¿Cuánto cuesta el envío a Madrid?")
    assert not looks_portuguese_or_spanish("How much is the shipping to Lisbon?")


def _calc(expression: str) -> Reply:
    return Reply(tool_calls=[{"name": "calculator", "arguments": {"expression": expression}}])


@pytest.mark.parametrize("mode", ["native", "text"])
async def test_react_tells_the_model_how_to_write_the_numbers(
    sim_server: StartSim, client: MakeClient, mode: str
) -> None:
    call = (
        _calc("7893 / 9")
        if mode == "native"
        else 'Action: calculator\nAction Input: {"expression": "7893 / 9"}'
    )
    sim = SimulatedModel(script=[call, "Final Answer: 877" if mode == "text" else "877"])
    agent = ReActAgent(client(sim_server(sim)), [calculator_tool()], tool_mode=mode)  # type: ignore[arg-type]
    trace = await agent.run("Divida 7.893 por 9. Qual é o resultado?")
    assert trace.status is RunStatus.FINISHED
    system = sim.requests[0].messages[0]["content"]
    assert "In tool arguments write them as plain numbers: 7.893 = 7893." in system


async def test_an_english_task_gets_no_note(sim_server: StartSim, client: MakeClient) -> None:
    sim = SimulatedModel(script=[_calc("7.893 / 9"), "0.877"])
    agent = ReActAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="native")
    await agent.run("What is 7.893 divided by 9?")
    assert "plain numbers" not in sim.requests[0].messages[0]["content"]


async def test_plan_steps_get_the_notes_of_the_user_s_task(
    sim_server: StartSim, client: MakeClient
) -> None:
    # The step worker's task is a prompt in English built around the user's task: the notes
    # come from the user's task, not from that prompt.
    sim = SimulatedModel(
        script=[
            {"steps": [{"description": "Divide the amount by 9", "tool": "calculator"}]},
            _calc("7893 / 9"),
            "877",
            "O resultado é 877.",
        ]
    )
    agent = PlanAndSolveAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="native")
    trace = await agent.run("Divida 7.893 por 9. Qual é o resultado?")
    assert trace.status is RunStatus.FINISHED, trace.error
    step_system = sim.requests[1].messages[0]["content"]
    assert "7.893 = 7893" in step_system


def test_a_copied_grouped_number_is_caught_before_the_tool_runs() -> None:
    task = "Quanto dá 1.247 + 3.896 + 508?"
    assert TaskNumbers.of(task).copied_in({"expression": "1.247 + 3.896 + 508"}) == [
        "1.247 = 1247",
        "3.896 = 3896",
    ]
    assert TaskNumbers.of(task).copied_in({"expression": "1247 + 3896 + 508"}) == []
    assert TaskNumbers.of(task).copied_in({"expression": "11.247 + 1"}) == []  # another number
    assert TaskNumbers.of("What is 1.247 plus 3?").copied_in({"expression": "1.247"}) == []


async def test_react_asks_once_for_the_plain_numbers(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(
        script=[_calc("1.247 + 3.896 + 508"), _calc("1247 + 3896 + 508"), "Dá 5651."]
    )
    agent = ReActAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="native")
    trace = await agent.run("Quanto dá 1.247 + 3.896 + 508?")
    assert trace.status is RunStatus.FINISHED
    first, second = trace.tool_calls
    assert not first.ok and first.observation.startswith("Not run:")
    assert "1.247 = 1247; 3.896 = 3896" in first.observation
    assert second.ok and second.observation == "5651"
    assert trace.answer == "Dá 5651."


async def test_a_model_that_insists_is_taken_at_its_word(
    sim_server: StartSim, client: MakeClient
) -> None:
    sim = SimulatedModel(script=[_calc("1.247 * 2"), _calc("1.247 * 2"), "2.494"])
    agent = ReActAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="native")
    trace = await agent.run("Quanto é o dobro de 1.247?")
    assert [s.ok for s in trace.tool_calls] == [False, True]
    assert trace.tool_calls[1].observation.startswith("2.494")


def test_numbers_in_an_answer_are_read_in_both_notations_but_only_where_valid() -> None:
    # One reading for Reflection's "does the answer state the tool's result" and the bench's
    # "is the expected number in the answer"
    assert read_numbers("O total é R$ 1.126,83.") == {1126.83}
    assert read_numbers("64,6 ou 64.6") == {64.6}
    assert read_numbers("1,234.5") == {1234.5}
    assert read_numbers("4.085") == {4.085, 4085.0}  # ambiguous: both
    assert read_numbers("0.877") == {0.877}  # never 877: grouping does not start with 0
    assert read_numbers("12.5 m") == {12.5}  # never 125: a group has three digits
