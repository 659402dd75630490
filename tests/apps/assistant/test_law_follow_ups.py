"""A law follow-up keeps the thread's norm: after a question the consumer code answered, "e se a
loja não devolver o dinheiro?" is still about the consumer code, not about whichever law shares
the most words with it. A follow-up that names another norm is about that one.
"""

from __future__ import annotations

from typing import Any

CDC = "Lei 8.078/1990"


async def test_a_follow_up_without_a_norm_is_searched_in_the_norm_just_cited(
    assistant: Any,
) -> None:
    bot = await assistant(None)
    first = await bot.ask(
        "t1", "posso desistir de um produto comprado pela internet segundo o CDC?"
    )
    assert first.citations and first.citations[0]["law"] == CDC
    follow = await bot.ask("t1", "e se a loja nao devolver o dinheiro?")
    assert follow.agent == "rag"
    assert follow.citations and {c["law"] for c in follow.citations} == {CDC}


async def test_the_same_question_in_a_new_thread_is_searched_in_the_whole_collection(
    assistant: Any,
) -> None:
    bot = await assistant(None)
    alone = await bot.ask("t2", "e se a loja nao devolver o dinheiro?")
    assert alone.citations and alone.citations[0]["law"] != CDC


async def test_a_follow_up_naming_another_norm_is_about_that_norm(assistant: Any) -> None:
    bot = await assistant(None)
    await bot.ask("t1", "posso desistir de um produto comprado pela internet segundo o CDC?")
    other = await bot.ask("t1", "e o que diz a LGPD sobre os meus dados?")
    assert other.citations and other.citations[0]["law"] == "Lei 13.709/2018"
