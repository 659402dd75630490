"""How a small model names things in the text protocol, and what the agent reads from it:
a final answer "called" as a tool in any letter case, a real tool that happens to be called
"answer", and a tool name wrapped in brackets or quotes."""

from __future__ import annotations

import pytest

from colmeia.agents.text_protocol import parse_reply

TOOLS = ["calculator", "lookup_order"]


@pytest.mark.parametrize(
    "text", ["Finish[42]", "FINISH[42]", "Final_Answer(42)", "Resposta_Final[42]"]
)
def test_a_final_answer_written_as_a_bare_call_in_any_case_is_the_answer(text: str) -> None:
    parsed = parse_reply(f"Thought: done\n{text}", TOOLS)
    assert (parsed.final_answer, parsed.action, parsed.error) == ("42", None, None)


@pytest.mark.parametrize("text", ["Action: Finish[42]", "Action: FINISH\nAction Input: 42"])
def test_a_final_answer_written_as_an_action_in_any_case_is_the_answer(text: str) -> None:
    parsed = parse_reply(text, TOOLS)
    assert (parsed.final_answer, parsed.action) == ("42", None)


def test_a_real_tool_named_like_a_final_answer_is_called() -> None:
    parsed = parse_reply('Action: answer\nAction Input: {"question": "prazo?"}', ["answer"])
    assert (parsed.action, parsed.arguments, parsed.final_answer) == (
        "answer",
        {"question": "prazo?"},
        None,
    )


@pytest.mark.parametrize("name", ["[calculator]", "`calculator`", "**calculator**", "'calculator'"])
def test_a_tool_name_in_brackets_or_quotes_is_the_tool(name: str) -> None:
    parsed = parse_reply(f'Action: {name}\nAction Input: {{"expression": "2+2"}}', TOOLS)
    assert (parsed.action, parsed.arguments, parsed.error) == (
        "calculator",
        {"expression": "2+2"},
        None,
    )


@pytest.mark.parametrize(
    ("key", "name"),
    [
        ("answer", "finish"),
        ("final_answer", "final_answer"),
        ("resposta", "resposta_final"),
        ("respuesta", "respuesta_final"),
        ("text", "respond"),
        ("result", "finish"),
        ("output", "finish"),
    ],
)
def test_the_answer_field_of_a_final_answer_with_other_fields_is_the_answer(
    key: str, name: str
) -> None:
    # small models add fields beside the answer (a confidence, a source): the answer is the
    # field that names it, in English, Portuguese or Spanish
    call = f'{{"name": "{name}", "arguments": {{"{key}": "42", "confianza": "alta"}}}}'
    parsed = parse_reply(f"Thought: done\nAction: {call}", TOOLS)
    assert (parsed.final_answer, parsed.action) == ("42", None)
