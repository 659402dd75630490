"""``colmeia serve --simulated`` (the first thing ``make serve`` shows): the demo model answers a
question about one's case by asking for its number, never with an empty "search result"."""

from __future__ import annotations

from typing import Any

from colmeia.llm import OpenAIChatModel
from colmeia.service.simulated import demo_model
from colmeia.sim.server import SimServer


async def test_the_demo_model_asks_for_the_number_of_my_case(assistant: Any) -> None:
    with SimServer(demo_model()) as srv:
        async with OpenAIChatModel(base_url=srv.base_url, model="sim", max_retries=0) as model:
            bot = await assistant(model)
            first = await bot.ask("t1", "oi, preciso saber como anda meu processo")
            assert "Resultado da pesquisa" not in first.answer
            assert first.status == "waiting_clarification"
            assert "número" in first.answer
            done = await bot.resume("t1", "32/2023")
            assert [f.get("number") for f in done.facts if f.get("status") == "found"] == [
                "TC/000032/2023"
            ]
