"""Tool calls a model writes as JSON instead of ``Action:`` lines, read as the model meant them:
OpenAI's ``{"function": {…}}`` envelope with the arguments as a JSON *string*, the name and
arguments under the keys other frameworks use, a finish call that carries no answer (an error,
never the answer "{}"), and objects that only look like calls. A call to a tool that is not
offered keeps its name and input, so the trace shows what the model tried."""

from __future__ import annotations

from typing import Any

import pytest

from colmeia.agents.text_protocol import answer_from, parse_reply

OFFERED = ("lookup_order", "search")
_OPENAI = (
    '{"type": "function", "function": {"name": "%s", '
    '"arguments": "{\\"order_id\\": \\"1001\\", \\"full\\": true}"}}'
)


@pytest.mark.parametrize("offered", [(), OFFERED])
@pytest.mark.parametrize("name", ["lookup_order", "consulta_pedido"])
def test_the_openai_function_envelope_with_string_arguments_is_a_call(
    name: str, offered: tuple[str, ...]
) -> None:
    reply = parse_reply(_OPENAI % name, offered)
    assert reply.action == name and reply.error is None
    assert reply.arguments == {"order_id": "1001", "full": True}
    assert reply.raw_input == '{"order_id":"1001","full":true}'


@pytest.mark.parametrize("name_key", ["name", "tool", "function", "action", "tool_name"])
@pytest.mark.parametrize(
    "args_key", ["arguments", "parameters", "args", "action_input", "input", "tool_input"]
)
def test_every_framework_spelling_of_name_and_arguments_is_read(
    name_key: str, args_key: str
) -> None:
    text = f'Vou procurar o pedido.\n{{"{name_key}": "lookup_order", "{args_key}": {{"id": 7}}}}'
    reply = parse_reply(text)
    assert (reply.action, reply.arguments, reply.raw_input) == (
        "lookup_order",
        {"id": 7},
        '{"id":7}',
    )
    assert reply.thought == "Vou procurar o pedido."


def test_arguments_that_are_no_json_object_are_kept_as_the_model_wrote_them() -> None:
    words = parse_reply('{"name": "search", "arguments": "merenda escolar"}')
    assert (words.action, words.arguments, words.raw_input) == ("search", None, "merenda escolar")
    listed = parse_reply('{"name": "search", "input": [1, 2]}')
    assert (listed.action, listed.arguments, listed.raw_input) == ("search", None, "[1,2]")
    # a JSON string holding an object is that object (the OpenAI wire form)
    nested = parse_reply('{"name": "search", "arguments": "{\\"q\\": \\"merenda\\"}"}')
    assert nested.arguments == {"q": "merenda"}


def test_an_object_that_only_has_a_name_is_a_call_only_of_an_offered_tool() -> None:
    offered = parse_reply('{"name": "search"}', OFFERED)
    assert (offered.action, offered.arguments, offered.raw_input) == ("search", {}, "{}")
    # a city's record, not a call: no arguments and no offered tool of that name
    record = parse_reply('{"name": "Recife", "population": 1600000}', OFFERED)
    assert record.action is None and record.final_answer is None and record.error
    assert answer_from('{"name": "Recife", "population": 1600000}', OFFERED) is not None


@pytest.mark.parametrize("name", ["two words", "1search", "search!"])
def test_a_name_that_cannot_be_a_tool_name_makes_no_call(name: str) -> None:
    reply = parse_reply(f'{{"name": "{name}", "arguments": {{"q": "x"}}}}')
    assert reply.action is None and reply.error


def test_a_json_finish_call_gives_its_answer_and_an_empty_one_is_an_error() -> None:
    given = parse_reply('{"name": "final_answer", "arguments": {"answer": "42"}}')
    assert given.final_answer == "42" and given.action is None
    for text in ('{"name": "Final_Answer"}', '{"name": "finish", "arguments": {}}'):
        empty = parse_reply(text)
        assert empty.final_answer is None and empty.action is None
        assert empty.error is not None and "no answer" in empty.error


def test_a_tool_named_like_finish_is_called_not_answered() -> None:
    reply = parse_reply('{"name": "answer", "arguments": {"text": "oi"}}', ("answer",))
    assert reply.action == "answer" and reply.arguments == {"text": "oi"}
    assert reply.final_answer is None


def _fields(text: str, offered: tuple[str, ...] = OFFERED) -> tuple[Any, ...]:
    r = parse_reply(text, offered)
    return r.action, r.arguments, r.final_answer


def test_a_json_call_after_an_action_marker_is_read_like_one_without() -> None:
    bare = _fields('{"tool": "search", "args": {"q": "x"}}')
    assert bare == ("search", {"q": "x"}, None)
    assert _fields('Action: {"tool": "search", "args": {"q": "x"}}') == bare
    assert _fields('Action: ```json\n{"tool": "search", "args": {"q": "x"}}\n```') == bare
