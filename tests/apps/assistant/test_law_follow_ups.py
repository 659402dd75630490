"""A law follow-up keeps the thread's norm: after a question the consumer code answered, "e se a
loja não devolver o dinheiro?" is still about the consumer code, not about whichever law shares
the most words with it. A follow-up that names another norm is about that one.
"""

from __future__ import annotations

from typing import Any

from colmeia.apps.assistant.conversation import thread_norms
from colmeia.apps.assistant.frame import read_frame

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
    # the consumer code may well answer it (it does), but found among the whole collection's
    # passages: the passages weighed come from other laws too
    searched = {s["label"].split(",")[0] for s in alone.sources}
    assert alone.citations and searched - {CDC}, searched


async def test_a_follow_up_naming_another_norm_is_about_that_norm(assistant: Any) -> None:
    bot = await assistant(None)
    await bot.ask("t1", "posso desistir de um produto comprado pela internet segundo o CDC?")
    other = await bot.ask("t1", "e o que diz a LGPD sobre os meus dados?")
    assert other.citations and other.citations[0]["law"] == "Lei 13.709/2018"


def test_continuations_are_marked_and_questions_that_stand_alone_are_not() -> None:
    for text in (
        "e se a loja nao devolver o dinheiro?",
        "E no caso de compra em loja física?",
        "mas e se o produto vier com defeito?",
        "e quanto tempo eu tenho?",
    ):
        assert read_frame(text).continues, text
    for text in (
        "posso devolver um produto comprado pela internet?",
        "qual o prazo para recorrer de uma decisão administrativa?",
    ):
        assert not read_frame(text).continues, text


def test_the_threads_norms_are_those_the_previous_answer_cited_lead_first() -> None:
    answer = {
        "citations": [
            {"law": CDC, "article": "49"},
            {"law": "Lei 13.709/2018", "article": "18"},
            {"law": CDC, "article": "18"},
        ]
    }
    assert thread_norms(answer) == [CDC, "Lei 13.709/2018"]
    # a case card or a greeting cites nothing: no norm to keep
    assert thread_norms({"text": "Processo TC/000032/2023", "citations": []}) == []
    assert thread_norms(None) == []
