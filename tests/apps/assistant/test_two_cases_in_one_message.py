"""Two cases typed in one message are both answered, each in the order typed, and the thread
goes on from them as if they had come one by one ("e o primeiro?" is the first typed). Before,
only the first was answered and the second number was silently dropped. A number the
registry does not hold says so in its place. Offline (no model), the frame's route, on the
synthetic registry."""

from __future__ import annotations

from typing import Any

CASE = "TC/000032/2023"  # Aguardando defesa
OTHER = "TC/000823/2023"  # merenda escolar, Fazenda Velha


async def test_each_case_typed_is_answered_in_the_order_typed(assistant: Any) -> None:
    bot = await assistant(None)
    both = await bot.ask("t1", "qual a situacao do tc 32/2023 e do 823/2023?")
    assert both.status == "answered"
    found = [f["number"] for f in both.facts if f.get("status") == "found"]
    assert found == [CASE, OTHER]
    assert both.answer.index(f"Processo {CASE}") < both.answer.index(f"Processo {OTHER}")
    first = await bot.ask("t1", "e o primeiro, quem e o relator?")
    assert [f["number"] for f in first.facts] == [CASE], first.facts
    latest = await bot.ask("t1", "e dele, quais as partes?")  # the one just talked about
    assert [f["number"] for f in latest.facts] == [CASE], latest.facts


async def test_a_number_the_registry_lacks_is_said_in_its_place(assistant: Any) -> None:
    bot = await assistant(None)
    result = await bot.ask("t2", "onde estao os processos 32/2023 e 999999/2019?")
    assert f"Processo {CASE}" in result.answer
    assert "Não encontrei o processo TC/999999/2019 no cadastro." in result.answer
