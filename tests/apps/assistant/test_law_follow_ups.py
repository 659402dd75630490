"""A law follow-up keeps the thread's norm: after a question the consumer code answered, "e se a
loja não devolver o dinheiro?" is still about the consumer code, not about whichever law shares
the most words with it. A follow-up that names another norm is about that one. A follow-up that
says little of its own and points back with a pronoun ("e tem algum prazo pra eles me
avisarem?") is about what the message before asked; one that brings its own subject ("E
fornecedor, o que é?") is searched as typed, within the norm.
"""

from __future__ import annotations

from typing import Any

from colmeia.apps.assistant.conversation import previous_question, thread_norms
from colmeia.apps.assistant.dispatch import Dispatcher
from colmeia.apps.assistant.frame import read_frame
from colmeia.graphs.messages import ChatMessage

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


async def test_an_elliptical_follow_up_is_searched_with_the_subject_of_the_message_before(
    assistant: Any,
) -> None:
    bot = await assistant(None)
    first = await bot.ask("t1", "a empresa q vazou meus dados tinha q ter me avisado?")
    assert first.citations and first.citations[0]["law"] == "Lei 13.709/2018"
    follow = await bot.ask("t1", "e tem algum prazo pra eles me avisarem?")
    # LGPD Art. 48: the controller tells of a security incident "em prazo razoável"
    assert [c["article"] for c in follow.citations][:1] == ["48"], follow.citations


def test_only_a_follow_up_that_leans_on_the_message_before_takes_its_subject() -> None:
    dispatcher = Dispatcher(None, None)  # type: ignore[arg-type]
    before = "a empresa q vazou meus dados tinha q ter me avisado?"
    leaning = read_frame("e tem algum prazo pra eles me avisarem?")
    searched = dispatcher._in_thread(leaning, ["Lei 13.709/2018"], before)
    assert searched.endswith(f"(Lei 13.709/2018; {before})")
    for own in ("E fornecedor, o que é?", "e a escolinha pode pegar dado do meu filho?"):
        frame = read_frame(own)
        assert dispatcher._in_thread(frame, ["Lei 8.078/1990"], before) == (
            f"{own} (Lei 8.078/1990)"
        )


def test_the_message_before_is_the_persons_last_one_of_an_earlier_turn() -> None:
    messages = [
        ChatMessage.user("primeira", turn=1),
        ChatMessage.assistant("resposta", agent="rag", turn=1),
        ChatMessage.user("segunda", turn=2),
        ChatMessage.user("esta", turn=0),  # the turn being read, not stamped yet
    ]
    assert previous_question(messages, 3) == "segunda"
    assert previous_question(messages, 2) == "primeira"
    assert previous_question(messages, 1) == ""


async def test_a_demonstrative_in_a_law_thread_points_at_the_law_not_at_a_case(
    assistant: Any,
) -> None:
    """Blind set 6: "e esse prazo conta como? exclui o primeiro dia?" after Lei 9.784 answered
    how long the administration has to decide was asked "de qual processo?" ("esse" and "o
    primeiro" read as pointing at a case of a thread that has none). It counts the law's
    deadline: Art. 66."""
    bot = await assistant(None)
    first = await bot.ask(
        "t5", "depois que acabar a instrucao em quanto tempo eles tem que decidir"
    )
    assert first.citations and first.citations[0]["law"] == "Lei 9.784/1999"
    follow = await bot.ask("t5", "e esse prazo conta como? exclui o primeiro dia?")
    assert follow.status == "answered" and follow.agent == "rag"
    assert follow.citations[0]["law"] == "Lei 9.784/1999"
    assert follow.citations[0]["article"].rstrip("º") == "66"


def test_an_article_named_without_its_norm_is_the_threads_norms() -> None:
    # "e o art 37 caput" names an article: the norm it leaves unsaid is the thread's
    frame = read_frame("e o art 37 caput")
    assert frame.continues and not frame.norms
    assert Dispatcher(None, None)._in_thread(frame, ["CF/88"]) == "e o art 37 caput (CF/88)"
