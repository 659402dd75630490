"""Where the markers of a ReAct reply cut it, as a user of the agent checks it: a Final Answer
keeps its bold only when it is all bold, an empty one is no answer, a call may span lines or be
followed by prose, a note after the tool's name does not replace its Action Input, and a broken
input is reported against the tool the model named."""

from __future__ import annotations

import pytest

from colmeia.agents.text_protocol import parse_reply

TOOLS = ("calculator", "search")


def test_a_final_answer_loses_bold_only_when_it_is_all_bold() -> None:
    assert parse_reply("Final Answer: **R$ 200,00**").final_answer == "R$ 200,00"
    partly = parse_reply("Final Answer: **R$ 200,00** por pedido")
    assert partly.final_answer == "**R$ 200,00** por pedido"
    assert parse_reply("Final Answer: 4").thought == ""


def test_an_empty_final_answer_is_no_answer() -> None:
    reply = parse_reply("Thought: pronto\nFinal Answer:   ")
    assert not reply.is_final and reply.final_answer is None
    assert reply.error == "the Final Answer was empty"


def test_a_call_written_over_several_lines_is_one_call() -> None:
    reply = parse_reply('Action: calculator(\n  expression="2+2"\n)', TOOLS)
    assert (reply.action, reply.arguments) == ("calculator", {"expression": "2+2"})
    json_below = parse_reply('Action: calculator\n{"expression":\n "2+2"}', TOOLS)
    assert (json_below.action, json_below.arguments) == ("calculator", {"expression": "2+2"})


def test_a_note_after_the_tool_name_does_not_replace_the_action_input() -> None:
    reply = parse_reply("Action: search\n(para achar a lei)\nAction Input: merenda", TOOLS)
    assert (reply.action, reply.raw_input) == ("search", "merenda")


@pytest.mark.parametrize(
    "call", ["calculator[2+2]", 'calculator(expression="2+2")', "calculator(2+2)"]
)
def test_a_call_on_its_own_line_followed_by_prose_is_the_call(call: str) -> None:
    reply = parse_reply(f"Vou calcular.\n{call} e depois respondo.", TOOLS)
    assert reply.action == "calculator" and reply.error is None
    assert reply.thought == "Vou calcular."
    assert reply.arguments == {"expression": "2+2"} or reply.raw_input == "2+2"


def test_a_broken_input_in_a_call_is_reported_against_the_named_tool() -> None:
    reply = parse_reply('Action: search[{"q": "merenda"]', TOOLS)
    assert reply.action == "search" and reply.raw_input == '{"q": "merenda"'
    assert reply.error is not None and "not valid JSON" in reply.error


def test_a_name_only_json_call_of_an_offered_tool_after_an_action_marker() -> None:
    for text in ('Action: {"name": "search"}', '{"function": {"name": "search"}}'):
        reply = parse_reply(text, TOOLS)
        assert (reply.action, reply.arguments) == ("search", {})


def test_string_arguments_that_are_no_object_are_kept_as_written() -> None:
    reply = parse_reply('{"name": "search", "arguments": "[1, 2]"}')
    assert (reply.arguments, reply.raw_input) == (None, "[1, 2]")


def test_an_observation_without_an_action_is_nothing_imagined() -> None:
    reply = parse_reply("Thought: vou pensar melhor\nObservation: nada ainda")
    assert reply.imagined is None and not reply.is_action


def test_the_thought_before_a_bare_call_is_the_prose_or_else_the_reasoning() -> None:
    glued = parse_reply("calculator[2+2]. Depois respondo.", TOOLS)
    assert (glued.action, glued.raw_input, glued.thought) == ("calculator", "2+2", "")
    thinking = parse_reply("<think>vou somar</think>calculator[2+2] e depois respondo.", TOOLS)
    assert (thinking.action, thinking.thought) == ("calculator", "vou somar")


def test_a_reply_without_markers_is_told_the_markers_as_the_model_must_write_them() -> None:
    reply = parse_reply("Acho que a resposta é quatro.", TOOLS)
    assert reply.error is not None
    assert "'Action:'" in reply.error and "'Final Answer:'" in reply.error
    assert reply.thought == "Acho que a resposta é quatro."
