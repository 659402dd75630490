"""What a task's percentages do, said in the prompt as the operation they stand for.

Qwen2.5-Coder-1.5B wrote ``64 * (1 - 0.10) / 4`` for "pizza de R$ 64,00 paga com 10% de
gorjeta" (subtracting the tip its own plan said to add) and ``1000 * (1 + 0.01/12) ^ 12`` for
"juros compostos de 1% ao mês por 12 meses" (dividing a monthly rate by twelve). With the
operation named in the system prompt it solved both, and all 26 bench tasks (bench/agents_real.py).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from colmeia.agents import PlanAndSolveAgent, ReActAgent, RunStatus
from colmeia.agents.numbers import TaskNumbers
from colmeia.agents.rates import rate_notes
from colmeia.llm import OpenAIChatModel
from colmeia.sim.engine import Reply, SimulatedModel
from colmeia.sim.server import SimServer
from colmeia.tools.builtins.calculator import calculate, calculator_tool

StartSim = Callable[[SimulatedModel], SimServer]
MakeClient = Callable[..., OpenAIChatModel]


@pytest.mark.parametrize(
    ("task", "operation"),
    [
        ("Uma pizza de R$ 64,00 foi paga com 10% de gorjeta.", "amount * (1 + 10/100)"),
        ("Um salário teve aumento de 7,5%.", "amount * (1 + 7.5/100)"),
        ("Conta com taxa de serviço de 12%.", "amount * (1 + 12/100)"),
        ("Um produto está com 12% de desconto.", "amount * (1 - 12/100)"),
        ("Uma TV com desconto de 5,5% e frete.", "amount * (1 - 5.5/100)"),
        ("¿Cuánto pago con una propina del 15%?", "amount * (1 + 15/100)"),
        ("Un abrigo con un descuento del 20%.", "amount * (1 - 20/100)"),
        (
            "Aplico R$ 1.000,00 a juros compostos de 1% ao mês por 12 meses.",
            "amount * (1 + 1/100) ^ 12",
        ),
        (
            "Juros simples de 2% ao mês por 6 meses sobre R$ 500,00.",
            "amount * (1 + 2/100 * 6)",
        ),
        ("Interés compuesto del 3% anual durante 5 años.", "amount * (1 + 3/100) ^ 5"),
    ],
)
def test_each_percentage_is_said_as_its_operation(task: str, operation: str) -> None:
    (note,) = rate_notes(task)
    assert note.endswith(operation)


@pytest.mark.parametrize(
    "task",
    [
        "Numa turma de 40 alunos, 65% foram aprovados.",  # a share, not an operation
        "Quanto é 17% de 2340?",
        "Juros compostos de 12% ao ano por 3 meses.",  # periods differ: no guess
        "Aplico R$ 100 a 1% ao mês por 12 meses.",  # neither compound nor simple is said
    ],
)
def test_no_note_where_the_operation_is_not_certain(task: str) -> None:
    assert rate_notes(task) == []


def test_a_note_says_the_task_s_words_and_the_operation() -> None:
    assert rate_notes("Um casaco de R$ 200 com 15% de desconto e 10% de acréscimo.") == [
        "15% de desconto is taken off the amount: amount * (1 - 15/100)",
        "10% de acréscimo is added to the amount: amount * (1 + 10/100)",
    ]
    assert rate_notes("Aplico R$ 1.000,00 a juros compostos de 1% ao mês por 12 meses.") == [
        "1% ao mês for 12 months (compound): the rate is already per month, do not divide it; "
        "final amount = amount * (1 + 1/100) ^ 12"
    ]
    assert rate_notes("Juros simples de 2% ao mês por 6 meses sobre R$ 500,00.") == [
        "2% ao mês for 6 months (simple interest): the rate is already per month; "
        "final amount = amount * (1 + 2/100 * 6)"
    ]


@pytest.mark.parametrize(
    "task",
    [
        "Juros compostos de 1% ao mês sobre R$ 1.000,00.",  # a rate, no span
        "Juros compostos sobre R$ 1.000,00 por 12 meses.",  # a span, no rate
        "Juros compostos de 1% ao MÊS por 12 MESES.",  # capitals: same as lower case
    ],
)
def test_interest_needs_both_a_rate_and_its_span(task: str) -> None:
    notes = rate_notes(task)
    assert notes == ([] if "MÊS" not in task else [notes[0]])
    if notes:
        assert notes[0].endswith("amount * (1 + 1/100) ^ 12")


def test_the_noted_operation_gives_the_right_amount() -> None:
    # The notes' formulas, on the calculator the agents use, give the tasks' answers.
    assert round(float(calculate("1000 * (1 + 1/100) ^ 12")), 2) == 1126.83
    assert calculate("64 * (1 + 10/100) / 4") == pytest.approx(17.6)


def test_an_english_task_gets_no_rate_note() -> None:
    assert TaskNumbers.of("A 10% de gorjeta is added").rates == ()
    assert TaskNumbers.of("Um produto de R$ 80 com 10% de desconto").rates != ()


async def test_react_names_the_operation_in_the_system_prompt(
    sim_server: StartSim, client: MakeClient
) -> None:
    call = Reply(
        tool_calls=[{"name": "calculator", "arguments": {"expression": "64 * (1 + 10/100) / 4"}}]
    )
    sim = SimulatedModel(script=[call, "Cada um pagou R$ 17,60."])
    agent = ReActAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="native")
    trace = await agent.run(
        "Uma pizza de R$ 64,00 foi paga com 10% de gorjeta e dividida entre 4 amigos. "
        "Quanto pagou cada um?"
    )
    assert trace.status is RunStatus.FINISHED
    system = sim.requests[0].messages[0]["content"]
    assert (
        "What the task's percentages do: 10% de gorjeta is added to the amount: "
        "amount * (1 + 10/100)." in system
    )


async def test_the_planner_is_told_too(sim_server: StartSim, client: MakeClient) -> None:
    # The planner writes each step's expression: it is where "1 - 10/100" would be decided.
    sim = SimulatedModel(
        script=[
            {"steps": [{"description": "64 * (1 + 10/100) / 4", "tool": "calculator"}]},
            Reply(
                tool_calls=[
                    {"name": "calculator", "arguments": {"expression": "64 * (1 + 10/100) / 4"}}
                ]
            ),
            "17.6",
            "Cada um pagou R$ 17,60.",
        ]
    )
    agent = PlanAndSolveAgent(client(sim_server(sim)), [calculator_tool()], tool_mode="native")
    trace = await agent.run("Uma pizza de R$ 64,00 foi paga com 10% de gorjeta. Dividida por 4?")
    assert trace.status is RunStatus.FINISHED, trace.error
    planner = sim.requests[0].messages[0]["content"]
    assert "10% de gorjeta is added to the amount: amount * (1 + 10/100)" in planner
    assert "64,00 = 64.00" in planner


def test_the_operation_word_is_read_in_any_case() -> None:
    # a task typed with capitals (a title, an all-caps word) means the same operation
    assert rate_notes("Camisa com 20% de DESCONTO.") == [
        "20% de DESCONTO is taken off the amount: amount * (1 - 20/100)"
    ]
    assert rate_notes("Gorjeta de 10% sobre a conta.") == [
        "Gorjeta de 10% is added to the amount: amount * (1 + 10/100)"
    ]
