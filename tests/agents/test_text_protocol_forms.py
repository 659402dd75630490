"""The call forms small models write beyond the textbook ReAct reply, read as the model meant
them: keyword arguments inside parentheses, quoted inputs, a finish call under any key, the
prose before a JSON call, and inputs that fit one parameter of the tool."""

from __future__ import annotations

from typing import Any

import pytest

from colmeia.agents.text_protocol import (
    announced_call,
    answer_from,
    coerce_arguments,
    mentioned_tools,
    parse_reply,
    thought_before_call,
)
from colmeia.tools import Tool
from colmeia.tools.builtins.calculator import calculator_tool

TOOLS = ["calculator", "lookup_order", "search"]


@pytest.mark.parametrize(
    ("text", "arguments"),
    [
        ('Action: calculator(expression="2+2", digits=2)', {"expression": "2+2", "digits": 2}),
        ("Action: lookup_order(order_id='1001')", {"order_id": "1001"}),
        ("Action: lookup_order(order_id=1001)", {"order_id": 1001}),
        (
            'Action: search(query="merenda, escola", limit=25, exact=true)',
            {"query": "merenda, escola", "limit": 25, "exact": True},
        ),
        ("Action: search(query=merenda escolar, page=2)", {"query": "merenda escolar", "page": 2}),
        ("Action: search(query = 2.5 , tags=[1])", {"query": 2.5, "tags": [1]}),
        ("Action: search(query='', page=1)", {"query": "", "page": 1}),
    ],
)
def test_keyword_arguments_in_a_call_are_read_with_their_json_types(
    text: str, arguments: dict[str, Any]
) -> None:
    parsed = parse_reply(text, TOOLS)
    assert (parsed.action, parsed.arguments, parsed.error) == (
        text.split(": ", 1)[1].split("(", 1)[0],
        arguments,
        None,
    )


@pytest.mark.parametrize(
    ("given", "raw"),
    [
        ("'2+2'", "2+2"),
        ("`2+2`", "2+2"),
        ('"2+2"', "2+2"),
        ("''", ""),
        # quotes inside the input are part of it
        ('artigo 5 da "Constituição"', 'artigo 5 da "Constituição"'),
        ('a lei "Maria da Penha"', 'a lei "Maria da Penha"'),
        ("'a' e 'b'", "a' e 'b"),
    ],
)
def test_a_quoted_action_input_is_the_text_inside_its_quotes(given: str, raw: str) -> None:
    parsed = parse_reply(f"Action: search\nAction Input: {given}", TOOLS)
    assert (parsed.action, parsed.arguments, parsed.raw_input) == ("search", None, raw)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ('finish(valor="42")', "42"),
        ('finish(result="sete", unit="kg")', "sete"),
        (
            'Action: finish\nAction Input: {"valor": "42", "unidade": "kg"}',
            '{"valor":"42","unidade":"kg"}',
        ),
        ('{"name": "final_answer", "arguments": 42}', "42"),
        ('{"name": "final_answer", "arguments": ["a", "b"]}', '["a","b"]'),
    ],
)
def test_a_finish_call_gives_its_answer_under_any_key(text: str, answer: str) -> None:
    parsed = parse_reply(text, TOOLS)
    assert (parsed.final_answer, parsed.action, parsed.error) == (answer, None, None)


@pytest.mark.parametrize("text", ["finish()", "Action: finish", "Finish[]"])
def test_an_empty_finish_call_is_an_error_not_an_answer(text: str) -> None:
    parsed = parse_reply(text, TOOLS)
    assert parsed.final_answer is None
    assert parsed.error is not None and "carried no answer" in parsed.error


CALL = '{"name": "calculator", "arguments": {"expression": "2+2"}}'


@pytest.mark.parametrize(
    ("text", "thought"),
    [
        (f"Vou somar os dois valores.\n{CALL}", "Vou somar os dois valores."),
        (f"Vou somar.\n<tool_call>{CALL}</tool_call>", "Vou somar."),
        (f"Vou somar.\n```json\n{CALL}\n```", "Vou somar."),
        (CALL, ""),
    ],
)
def test_the_thought_of_a_json_call_is_the_prose_before_it(text: str, thought: str) -> None:
    parsed = parse_reply(text, TOOLS)
    assert (parsed.action, parsed.arguments) == ("calculator", {"expression": "2+2"})
    assert parsed.thought == thought
    assert thought_before_call(text) == thought


def test_prose_without_any_call_is_all_thought() -> None:
    assert thought_before_call("Vou calcular a soma.") == "Vou calcular a soma."


def search(query: str = "", limit: int = 10) -> str:
    """Search the documents."""
    return query


def lookup(number: str) -> str:
    """Look a case up."""
    return number


def compute(expression: str, digits: int = 2) -> str:
    """Compute."""
    return expression


def test_a_bare_input_goes_to_the_one_parameter_it_can_be() -> None:
    # the one required parameter among optional ones
    assert coerce_arguments(Tool.from_function(compute), parse_reply("Action: compute[2+2]")) == {
        "expression": "2+2"
    }

    def find(query: str = "") -> str:
        """Find."""
        return query

    # the only parameter, though optional
    assert coerce_arguments(Tool.from_function(find), parse_reply("Action: find[merenda]")) == {
        "query": "merenda"
    }
    # two optional parameters and none required: no guess
    assert coerce_arguments(Tool.from_function(search), parse_reply("Action: search[x]")) is None


def test_an_empty_object_calls_a_tool_whose_parameters_are_optional_with_its_defaults() -> None:
    def find(query: str = "") -> str:
        """Find."""
        return query

    parsed = parse_reply("Action: find\nAction Input: {}")
    assert coerce_arguments(Tool.from_function(find), parsed) == {}


@pytest.mark.parametrize("text", ["Action: calculator", "Action: calculator\nAction Input:"])
def test_an_action_without_input_is_not_called_with_an_empty_expression(text: str) -> None:
    # the call fails its schema ("expression" is required) and the model is told so
    assert coerce_arguments(calculator_tool(), parse_reply(text, TOOLS)) == {}
    assert coerce_arguments(Tool.from_function(lookup), parse_reply(text, TOOLS)) == {}


def lookup_order(order_id: str, channel: str = "web") -> str:
    """Look an order up."""
    return order_id


OFFERED = [calculator_tool(), Tool.from_function(lookup_order)]


@pytest.mark.parametrize(
    ("text", "call"),
    [
        (
            'I will use the calculator with the arguments:\nexpression: "17/100 * 2340"',
            ("calculator", {"expression": "17/100 * 2340"}),
        ),
        (
            "Vou usar a CALCULATOR com:\n- **expression**: `17/100*2340`,",
            ("calculator", {"expression": "17/100*2340"}),
        ),
        (
            "I will use lookup_order:\nchannel: app\norder_id = 1001",
            ("lookup_order", {"order_id": "1001", "channel": "app"}),
        ),
        ("I will use lookup_order:\norder_id: '1001'", ("lookup_order", {"order_id": "1001"})),
        # not complete: a required parameter is missing, or no value is given
        ("I will use lookup_order:\nchannel: app", None),
        ("I will use the calculator.", None),
        ("I will use the calculator:\nexpression: ``", None),
        # two tools named, or none: which one is meant is not known
        ("I will use the calculator and lookup_order:\nexpression: 2+2", None),
        ("I will use my_calculator:\nexpression: 2+2", None),
    ],
)
def test_a_call_announced_in_prose_is_the_call_when_its_prose_is_complete(
    text: str, call: tuple[str, dict[str, Any]] | None
) -> None:
    assert announced_call(text, OFFERED) == call


def test_the_tools_a_reply_names_are_the_offered_ones_it_names_as_words() -> None:
    text = "Usei a Calculator; a lookup_order_v2 não existe, nem my-calculator."
    assert [t.name for t in mentioned_tools(text, OFFERED)] == ["calculator"]
    text = "lookup_order e depois calculator"
    assert [t.name for t in mentioned_tools(text, OFFERED)] == ["calculator", "lookup_order"]


def test_a_bare_json_value_as_a_calls_arguments_goes_to_the_single_parameter() -> None:
    parsed = parse_reply('{"name": "lookup_order", "arguments": 1001}', TOOLS)
    assert (parsed.action, parsed.arguments, parsed.raw_input) == ("lookup_order", None, "1001")
    parsed = parse_reply('{"name": "search", "arguments": ["a", "b"]}', TOOLS)
    assert (parsed.arguments, parsed.raw_input) == (None, '["a","b"]')


def test_a_call_in_backticks_and_a_finish_call_are_noted_in_the_reply() -> None:
    parsed = parse_reply("Action: `calculator[2+2]`", TOOLS)
    assert (parsed.action, parsed.raw_input) == ("calculator", "2+2")
    parsed = parse_reply('finish(answer="42")', TOOLS)
    assert parsed.notes == ["answer given as a finish call"]


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Final Answer: 4", "4"),
        ("O resultado é 4.", "O resultado é 4."),
        # a model that imagined the tool's result and its answer: the answer it imagined
        ("Action: calculator[2+2]\nObservation: 4\nFinal Answer: 4", "4"),
        # a call is not an answer, bare or not, nor is a thought
        ("Action: calculator[2+2]", None),
        ("calculator[2+2]", None),
        ("Thought: pensando", None),
        ("<think>hmm</think>", None),
    ],
)
def test_the_answer_of_a_reply_is_never_its_protocol(text: str, answer: str | None) -> None:
    assert answer_from(text, ["calculator"]) == answer
