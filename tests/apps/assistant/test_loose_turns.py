"""What people type, read as what they mean (issue 31): a typo in the word that decides the
turn is read as that word, and the kinds said loosely — a case asked about without its number,
personal advice, when to come to the court in person, a case described by what it is about —
are read as their kind, whatever their words. None of these sentences is in the training
corpus or in a development set."""

from __future__ import annotations

import pytest

from colmeia.apps.assistant.frame import RESTRICTED, _fold, read_frame
from colmeia.apps.assistant.intents import classifier


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("quem é o reltaor", "relator"),  # two letters swapped
        ("foi arqiuvado", "arquivado"),
        ("desde qaundo", "quando"),
        ("quais docuemntos", "documentos"),
    ],
)
def test_a_slip_in_a_word_that_decides_the_turn_is_read_as_that_word(
    typed: str, meant: str
) -> None:
    assert meant in classifier().spelled(typed).split()


def test_real_words_and_other_forms_of_a_word_are_left_as_typed() -> None:
    # "causa" is not "casa", "mesma" is "mesmo" said of a feminine word, and short words
    # have too many neighbours to be guessed at
    text = "por causa do muro, ela mesma disse, ta"
    assert classifier().spelled(text) == "por causa do muro, ela mesma disse, ta"


@pytest.mark.parametrize(
    ("text", "aspect"),
    [
        ("oi, quem é o reltaor obrigdao", "rapporteur"),
        ("olá! nome do reletor do proresso 519", "rapporteur"),
        ("o 1017 de 2021 foi arqiuvado", "archive"),
    ],
)
def test_a_case_question_typed_with_slips_asks_its_aspect(text: str, aspect: str) -> None:
    got = classifier().predict(text)
    assert (got.intent, got.aspect) == ("case", aspect)


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # a case without its number: the assistant asks which, never searches the laws
        ("bom dia, gostaria de uma informação sobre o processo da minha mae", "case"),
        ("queria uma posicao do meu porcesso", "case"),
        # personal trouble and advice asked: out of scope
        ("minha namorada terminou comigo, o que eu faço agora", "scope"),
        ("meu cunhado fala alto no almoço de domingo, me ajuda a lidar com isso", "scope"),
        # when to come in person: the court's own file
        ("voces abrem cedo? queria passar ai antes do trabalho", "institutional"),
        ("ate que horas funciona o atendimento ai? preciso levar um papel", "institutional"),
        # a case described by what it is about
        ("tem algum processo falando de merenda?", "find"),
        ("procuro os processos de obra de creche", "find"),
    ],
)
def test_kinds_said_loosely_are_read_as_their_kind(text: str, intent: str) -> None:
    assert read_frame(text).intent == intent


def test_an_unsure_search_about_cases_stays_a_search() -> None:
    # the registry finds the case or says it has none; the laws would answer a question
    # nobody asked
    got = read_frame("quais processos a conselheira ana prado relata")
    assert got.intent == "find"
    # a case described, not numbered: a search (unsure), or a case question whose description
    # the dispatcher looks for (sure) — never the laws
    described = "o processo da aposentadoria do seu jose ribamar ja saiu?"
    got = read_frame(described)
    assert got.intent in ("find", "case") and not got.cases and got.thread is None
    assert RESTRICTED.search(_fold(described))
    # a law question that says "processo" is still the laws'
    assert read_frame("qual o prazo do processo administrativo?").intent == "law"
