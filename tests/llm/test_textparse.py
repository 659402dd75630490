"""How colmeia reads what models write: reasoning, JSON inside prose, tool calls as text."""

from __future__ import annotations

from colmeia.llm.textparse import find_json, recover_tool_calls, split_reasoning


def test_think_blocks_are_split_from_the_answer() -> None:
    answer, reasoning = split_reasoning("<think>O usuário quer X.</think>\nResposta final.")
    assert answer == "Resposta final."
    assert reasoning == "O usuário quer X."


def test_an_unclosed_think_block_is_all_reasoning() -> None:
    answer, reasoning = split_reasoning("<think>ainda pensando quando o limite chegou")
    assert answer == ""
    assert reasoning == "ainda pensando quando o limite chegou"


def test_a_lone_closing_tag_ends_the_reasoning() -> None:
    answer, reasoning = split_reasoning('raciocínio do template</think>{"a": 1}')
    assert answer == '{"a": 1}'
    assert reasoning == "raciocínio do template"


def test_text_without_tags_is_untouched() -> None:
    assert split_reasoning("  Olá  ") == ("Olá", None)


def test_json_is_found_in_fences_and_in_prose() -> None:
    assert find_json('```json\n{"nota": 4}\n```').value == {"nota": 4}
    assert find_json('Claro! Aqui está: {"nota": 4, "obs": "ok {x}"} espero ajudar').value == {
        "nota": 4,
        "obs": "ok {x}",
    }


def test_cut_json_is_truncated_and_prose_is_none() -> None:
    assert find_json('{"nota": 4, "justificativa": "a resposta').kind == "truncated"
    assert find_json("Não sei responder isso.").kind == "none"
    assert find_json("").kind == "none"


def test_broken_but_closed_json_is_invalid() -> None:
    found = find_json("{'nota': 4}")
    assert found.kind == "invalid"


def test_tool_calls_written_as_text_are_recovered() -> None:
    text = 'Vou calcular.<tool_call>{"name": "calc", "arguments": {"expr": "2+2"}}</tool_call>'
    [call] = recover_tool_calls(text, {"calc"})
    assert call.name == "calc"
    assert call.arguments == {"expr": "2+2"}


def test_llama_style_function_tags_are_recovered() -> None:
    [call] = recover_tool_calls('<function=busca>{"q": "licitação"}</function>', {"busca"})
    assert (call.name, call.arguments) == ("busca", {"q": "licitação"})


def test_bare_json_naming_an_offered_tool_is_recovered() -> None:
    [call] = recover_tool_calls('{"name": "calc", "parameters": {"expr": "1"}}', {"calc"})
    assert call.arguments == {"expr": "1"}


def test_tools_that_were_not_offered_are_never_recovered() -> None:
    text = '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>'
    assert recover_tool_calls(text, {"calc"}) == []


def test_a_call_written_in_doubled_braces_is_recovered() -> None:
    # the 1.5B Qwen, verbatim: one brace too many on each side, one more closing at the end
    text = '{{"name": "search_cases", "arguments": {"query": "merenda de Fazenda Velha"}}}}'
    [call] = recover_tool_calls(text, {"search_cases", "ask_user"})
    assert (call.name, call.arguments) == ("search_cases", {"query": "merenda de Fazenda Velha"})
    asked = '{{"name": "ask_user", "arguments": {"question": "Qual é o número?"}}}'
    assert recover_tool_calls(asked, {"ask_user"})[0].arguments == {"question": "Qual é o número?"}
    # still only offered tools, and prose with braces is not a call
    assert recover_tool_calls(text, {"ask_user"}) == []
    assert recover_tool_calls("Use {{chaves}} duplas {{assim}}.", {"ask_user"}) == []
