"""A reply to the dispatcher's list of cases: a year that several listed cases share narrows
the list and asks again; it is never read as a case number (offline, the synthetic registry)."""

from __future__ import annotations

import re
from typing import Any


def _found(result: Any) -> list[str]:
    return [str(f.get("number")) for f in result.facts if f.get("status") == "found"]


async def test_a_year_several_listed_cases_share_narrows_the_list(assistant: Any) -> None:
    bot = await assistant(None)
    listed = await bot.ask("t1", "procurar processo limpeza urbana Ouro Branco do Leste")
    assert listed.status == "waiting_clarification" and "/2025" in listed.answer
    again = await bot.resume("t1", "o de 2025")
    # Red when the year is read as a case number: "nenhum processo com o número 2025".
    numbers = re.findall(r"TC/\d{6}/\d{4}", again.answer)
    assert again.status == "waiting_clarification" and len(numbers) >= 2
    assert all(n.endswith("/2025") for n in numbers), again.answer
    done = await bot.resume("t1", numbers[1].split("/")[1].lstrip("0"))
    assert done.status == "answered" and _found(done) == [numbers[1]]


async def test_the_oldest_or_newest_of_a_list_is_read_off_the_numbers(assistant: Any) -> None:
    bot = await assistant(None)
    listed = await bot.ask("t2", "procurar processo limpeza urbana Ouro Branco do Leste")
    assert listed.status == "waiting_clarification"
    shown = re.findall(r"TC/(\d{6})/(\d{4})", listed.answer)
    by_age = sorted(shown, key=lambda n: (n[1], n[0]))
    oldest, newest = (f"TC/{n}/{y}" for n, y in (by_age[0], by_age[-1]))
    done = await bot.resume("t2", "e o mais antigo deles?")
    assert done.status == "answered" and _found(done) == [oldest]
    again = await bot.ask("t3", "procurar processo limpeza urbana Ouro Branco do Leste")
    assert again.status == "waiting_clarification"
    assert _found(await bot.resume("t3", "o mais recente")) == [newest]


async def test_the_list_the_assistant_asked_from_is_in_the_threads_history(
    assistant: Any,
) -> None:
    bot = await assistant(None)
    listed = await bot.ask("t4", "procurar processo limpeza urbana Ouro Branco do Leste")
    await bot.resume("t4", "o primeiro")
    said = [(m["role"], m["text"]) for m in await bot.history("t4")]
    # the person's question, the list they picked from, their pick, the case's card
    assert [role for role, _ in said] == ["user", "assistant", "user", "assistant"]
    assert said[1][1] == listed.answer and said[2][1] == "o primeiro"
