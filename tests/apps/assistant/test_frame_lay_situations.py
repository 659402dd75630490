"""A situation of one's life asked as a right is a question about the law, even where the
turn classifier's templates read it as out of scope; requests nothing here answers stay out of
scope. And two questions in one message, one about the thread's case and one about the law,
are both asked."""

from __future__ import annotations

import pytest

from colmeia.apps.assistant.frame import read_frame
from colmeia.apps.assistant.intents import classifier


@pytest.mark.parametrize(
    "text",
    [
        # the intent head, learnt from templates, reads these as personal advice
        "a escola do meu filho cobrou taxa de material absurda, posso me recusar a pagar?",
        "minha conta de agua veio o triplo e a companhia nao quer rever, tenho como contestar?",
    ],
)
def test_a_right_asked_about_a_situation_is_a_law_question(text: str) -> None:
    assert classifier().predict(text).intent == "scope"
    assert read_frame(text).intent == "law"


@pytest.mark.parametrize(
    "text",
    [
        "meu namorado terminou comigo o que eu faço",
        "qual o melhor restaurante perto do tribunal?",
        "me indica um filme bom pra hoje",
        "quero saber se vai chover amanha",
        # asked in the forms of a question about the law, about anything else
        "qual a distancia da terra a lua?",
        "Como ficou conhecida a primeira universidade moderna?",
    ],
)
def test_requests_nothing_here_answers_stay_out_of_scope(text: str) -> None:
    assert read_frame(text).intent == "scope"


def test_a_case_question_and_a_law_question_in_one_message_are_both_asked() -> None:
    frame = read_frame(
        "ta faltando oq pra andar? e o presidente da camara responde pessoalmente se pagou "
        "gratificacao errada?"
    )
    assert frame.intent == "mixed"
    assert frame.case_part == "ta faltando oq pra andar?"
    assert frame.law_part is not None and "responde pessoalmente" in frame.law_part
