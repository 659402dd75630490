"""The cases of a list the person picked from stay in the thread (issue 31, blind set 6): after
"tem processo do conselheiro X?" lists three cases and "o de 2022" picks one, "e o de 2021?"
and "e o outro?" are about the cases the list showed — they were asked back "de qual
processo?" before, as if the list had never been seen. The case picked stays the thread's own:
"e as partes?" is still about it. Offline, the small fictitious registry of
``data/registry_para`` imported from CSV into a real SQLite store."""

from __future__ import annotations

from typing import Any

PICKED = "TC/011165/2022"
OF_2021 = "TC/004506/2021"


def _shown(result: Any) -> list[str]:
    return [f["number"] for f in result.facts if f.get("status") == "found"]


async def _picked(bot: Any, thread: str) -> None:
    listed = await bot.ask(thread, "tem processo do conselheiro otavio brandao lima?")
    assert listed.status == "waiting_clarification"
    assert all(n in listed.answer for n in (PICKED, OF_2021, "TC/000777/2020"))
    picked = await bot.resume(thread, "o de 2022")
    assert _shown(picked) == [PICKED]


async def test_a_year_picks_another_case_of_the_list(para_bot: Any) -> None:
    await _picked(para_bot, "t1")
    other = await para_bot.ask("t1", "e o de 2021, ta onde?")
    assert other.status == "answered"
    assert _shown(other) == [OF_2021]
    assert "Secretaria de Controle Externo da Saúde" in other.answer


async def test_the_case_picked_stays_the_threads_own(para_bot: Any) -> None:
    await _picked(para_bot, "t2")
    parties = await para_bot.ask("t2", "e as partes?")
    assert _shown(parties) == [PICKED]
    assert "Antônio Carlos Guimarães" in parties.answer
