"""The text protocol parser reads what real models write, not only the textbook format."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from colmeia.agents.text_protocol import coerce_arguments, parse_reply
from colmeia.tools import Tool
from colmeia.tools.builtins.calculator import calculator_tool

TOOLS = ["calculator", "lookup_order"]


@pytest.mark.parametrize(
    ("text", "action", "arguments", "raw"),
    [
        (
            'Thought: add\nAction: calculator\nAction Input: {"expression": "2+2"}',
            "calculator",
            {"expression": "2+2"},
            None,
        ),
        ("Action: calculator[2+2]", "calculator", None, "2+2"),
        ('Action: calculator("3*3")', "calculator", None, "3*3"),
        ("**Action:** `calculator`\n**Action Input:** 7*6", "calculator", None, "7*6"),
        (
            'Action: calculator\nAction Input:\n```json\n{"expression": "1"}\n```',
            "calculator",
            {"expression": "1"},
            None,
        ),
        ('Ação: lookup_order\nEntrada: "1001"', "lookup_order", None, "1001"),
        (
            'Acción: lookup_order\nEntrada de la acción: {"order_id": "9"}',
            "lookup_order",
            {"order_id": "9"},
            None,
        ),
        (
            '<tool_call>{"name": "calculator", "arguments": {"expression": "5"}}</tool_call>',
            "calculator",
            {"expression": "5"},
            None,
        ),
        (
            '{"name": "lookup_order", "arguments": {"order_id": "1"}}',
            "lookup_order",
            {"order_id": "1"},
            None,
        ),
        (
            "Action: calculator\nAction Input: 2+2\nObservation: 4\nThought: done\nFinal Answer: 4",
            "calculator",
            None,
            "2+2",
        ),
    ],
)
def test_actions_in_many_shapes(
    text: str, action: str, arguments: dict[str, str] | None, raw: str | None
) -> None:
    parsed = parse_reply(text, TOOLS)
    assert parsed.error is None
    assert parsed.action == action
    assert parsed.final_answer is None
    if arguments is not None:
        assert parsed.arguments == arguments
    if raw is not None:
        assert parsed.raw_input == raw


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Thought: I know it.\nFinal Answer: 42", "42"),
        ("**Final Answer:** **42**", "42"),
        ("<think>Action: calculator[1]? no.</think>\nFinal Answer: quatro", "quatro"),
        ("Pensamento: pronto.\nResposta final: São 4 reais.", "São 4 reais."),
        ("Respuesta final: cuatro", "cuatro"),
        ("Final Answer: line one\nline two", "line one\nline two"),
    ],
)
def test_final_answers(text: str, answer: str) -> None:
    parsed = parse_reply(text, TOOLS)
    assert parsed.final_answer == answer
    assert parsed.action is None


def test_thoughts_come_from_the_text_or_the_reasoning_block() -> None:
    assert (
        parse_reply("Sure!\nThought: need a tool\nAction: calculator[1]").thought == "need a tool"
    )
    assert parse_reply("<think>private plan</think>Action: calculator[1]").thought == "private plan"


def test_whatever_comes_first_wins() -> None:
    early_final = parse_reply("Final Answer: 4\nAction: calculator[2+2]", TOOLS)
    assert early_final.final_answer == "4"
    early_action = parse_reply("Action: calculator[2+2]\nFinal Answer: 4", TOOLS)
    assert early_action.action == "calculator"


def test_problems_are_reported_not_raised() -> None:
    assert "neither" in (parse_reply("Acho que é 4.", TOOLS).error or "")
    assert "not valid JSON" in (
        parse_reply('Action: calculator\nAction Input: {"expression": "2*', TOOLS).error or ""
    )
    assert "not a tool name" in (
        parse_reply("Action: use the calculator please", TOOLS).error or ""
    )
    assert parse_reply("Final Answer:", TOOLS).error == "the Final Answer was empty"
    assert parse_reply("", TOOLS).error is not None


def test_bare_values_go_to_the_single_parameter() -> None:
    calc = calculator_tool()
    assert coerce_arguments(calc, parse_reply("Action: calculator[2 + 2]")) == {
        "expression": "2 + 2"
    }
    # a number for a string parameter stays text
    assert coerce_arguments(calc, parse_reply("Action: calculator\nAction Input: 42")) == {
        "expression": "42"
    }

    def lookup(order_id: int) -> str:
        """Look up."""
        return str(order_id)

    typed = Tool.from_function(lookup)
    assert coerce_arguments(typed, parse_reply("Action: lookup[1001]")) == {"order_id": 1001}

    def two(a: str, b: str) -> str:
        """Two."""
        return a + b

    both = Tool.from_function(two)
    assert coerce_arguments(both, parse_reply("Action: two[x]")) is None  # cannot guess


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_never_raises_on_any_text(text: str) -> None:
    parsed = parse_reply(text, TOOLS)
    assert parsed.is_final or parsed.is_action or parsed.error is not None


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "Thought:",
                "Action:",
                "Action Input:",
                "Final Answer:",
                "<think>",
                "</think>",
                "{",
                "}",
                "[",
                "]",
                "calculator",
                "\n",
                " ",
                "2+2",
                '"x"',
                "Observation:",
            ]
        ),
        max_size=30,
    ).map("".join)
)
def test_never_raises_on_protocol_soup(text: str) -> None:
    parsed = parse_reply(text, TOOLS)
    assert parsed.is_final or parsed.is_action or parsed.error is not None
