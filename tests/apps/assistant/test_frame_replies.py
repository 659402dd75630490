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
