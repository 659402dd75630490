"""What a small model's reply gives a tool and a user, read as written: a plain Action Input is
kept word for word (quotes inside it too), keyword arguments may start with a capital, a call
described in prose is a call only when its required (or first) parameter is given, a bare value
becomes the one parameter with its JSON type when it has one, and an empty reply or a reply that
only speaks the protocol is no answer."""

from __future__ import annotations

import pytest

from colmeia.agents.text_protocol import (
    announced_call,
    answer_from,
    coerce_arguments,
    parse_reply,
    thought_before_call,
)
from colmeia.tools import Tool


@pytest.mark.parametrize(
    "raw",
    ['o livro "Dom Casmurro"', '"Dom Casmurro" de Machado', "Xingu", "XPTO-X", "2 + 2 = 4", "true"],
)
def test_a_plain_action_input_is_kept_as_written(raw: str) -> None:
    reply = parse_reply(f"Action: search\nAction Input: {raw}")
    assert (reply.action, reply.arguments, reply.raw_input, reply.error) == (
        "search",
        None,
        raw,
        None,
    )


def test_keyword_arguments_may_start_with_a_capital() -> None:
    reply = parse_reply('Action: search(Query="merenda", Page=2)')
    assert reply.arguments == {"Query": "merenda", "Page": 2}


def _search(*, page: int = 1, query: str = "") -> str:
    """Search the documents.

    Args:
        page: Which page of results.
        query: What to look for.
    """
    return query


def _lookup(*, page: int = 1, order_id: str) -> str:
    """Look up an order.

    Args:
        page: Which page of its history.
        order_id: The order number.
    """
    return order_id


SEARCH = Tool.from_function(_search, name="search")
LOOKUP = Tool.from_function(_lookup, name="lookup")


def test_a_call_described_in_prose_needs_its_required_parameter_on_a_line() -> None:
    text = "Vou usar a ferramenta lookup com os argumentos:\n- page: 2\n- order_id: `A-7`,"
    assert announced_call(text, [LOOKUP]) == ("lookup", {"page": "2", "order_id": "A-7"})
    assert announced_call("Vou usar lookup com:\npage: 2", [LOOKUP]) is None
    # an empty value is no value
    assert announced_call('Vou usar lookup com:\norder_id: ""', [LOOKUP]) is None
    assert announced_call("Vou usar lookup com:\norder_id: 'A-7'", [LOOKUP]) == (
        "lookup",
        {"order_id": "A-7"},
    )


def test_without_required_parameters_the_first_one_must_be_given() -> None:
    # search's parameters are all optional: its first one (page) is what a call must give
    assert announced_call("Vou chamar search:\nquery: merenda", [SEARCH]) is None
    assert announced_call("Vou chamar search:\npage: 3", [SEARCH]) == ("search", {"page": "3"})


def test_a_bare_value_goes_to_the_one_parameter_with_its_json_type() -> None:
    def flag(on: bool) -> str:
        """Switch.

        Args:
            on: Whether it is on.
        """
        return str(on)

    def order(order_id: int) -> str:
        """Order.

        Args:
            order_id: Its number.
        """
        return str(order_id)

    assert coerce_arguments(Tool.from_function(flag), parse_reply("Action: flag[true]")) == {
        "on": True
    }
    assert coerce_arguments(Tool.from_function(order), parse_reply("Action: order[-7]")) == {
        "order_id": -7
    }
    # not a number: kept as written, so the tool's own check tells the model what is wrong
    assert coerce_arguments(Tool.from_function(order), parse_reply("Action: order[A-7]")) == {
        "order_id": "A-7"
    }


def test_an_empty_reply_or_protocol_text_is_no_answer() -> None:
    assert answer_from("") is None
    empty = parse_reply("")
    assert (empty.thought, empty.action, empty.final_answer) == ("", None, None)
    assert empty.error
    assert answer_from("Action: a calculadora, por favor") is None
    assert answer_from("Action Input: 2+2") is None
    assert answer_from("A resposta é 4.") == "A resposta é 4."


def test_the_thought_before_several_tagged_calls_ends_at_the_first() -> None:
    text = (
        "Vou consultar os dois pedidos.\n"
        '<tool_call>{"name": "lookup", "arguments": {"order_id": "A-7"}}</tool_call>\n'
        '<tool_call>{"name": "lookup", "arguments": {"order_id": "B-9"}}</tool_call>'
    )
    assert thought_before_call(text) == "Vou consultar os dois pedidos."
