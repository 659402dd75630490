"""Which case a question without a number is about, and what a thread remembers between turns
(colmeia.apps.assistant.conversation), read as a person writes a thread: after "TC/000032/2023"
they ask "e as partes?", "dele", "e o outro processo?" and expect the case they mean.

The rules alone, without the graph: the end-to-end threads are in test_assistant_conversations.py.
"""

from __future__ import annotations

import pytest

from colmeia.apps.assistant.conversation import (
    aspect_of,
    cases_in_context,
    context_block,
    follow_up_target,
    leans_on_context,
    remember,
    resolve_follow_up,
)
from colmeia.llm.base import Message

CURRENT, EARLIER = "TC/000032/2023", "TC/000068/2023"
THREAD = [CURRENT, EARLIER]


@pytest.mark.parametrize(
    "question",
    [
        "e as partes?",
        "quem é o relator?",
        "e desde quando?",
        "onde ele está agora?",
        "e aí, mudou alguma coisa?",
        # ten words: still a short follow-up
        "e quais são as partes que aparecem lá no registro?",
        # a long question that points at the case with a pronoun
        "me explica com calma tudo o que aconteceu com esse processo desde que ele chegou ao "
        "tribunal no ano passado",
        "quero saber a situação dele",
        "E AS PARTES?",
        # a year after "e o de" picks a thread case: not another case named by its subject
        "e o de 2023?",
    ],
)
def test_a_follow_up_is_about_the_threads_current_case(question: str) -> None:
    assert follow_up_target(question, THREAD) == CURRENT
    assert resolve_follow_up(question, THREAD) == f"{question} (sobre {CURRENT})"


@pytest.mark.parametrize(
    "question", ["e o outro processo?", "qual a situação do outro?", "E SOBRE O OUTRO CASO?"]
)
def test_the_other_process_is_the_earlier_case(question: str) -> None:
    assert follow_up_target(question, THREAD) == EARLIER
    # with one case in the thread there is no other one to mean
    assert follow_up_target(question, [CURRENT]) is None


@pytest.mark.parametrize(
    "question",
    [
        # a number written out: that case, not the thread's
        "e as partes do TC/000100/2024?",
        # a norm named: a legal question
        "e o prazo da lei para recorrer?",
        "o que diz o artigo 5 sobre isso?",
        # processes in general
        "quais são as partes de um processo?",
        # a long question with an aspect word but nothing pointing at the thread's case
        "quais são as partes que costumam aparecer nos processos do tribunal?",  # 11 words
        "quais são as partes que costumam aparecer nos processos de licitação do tribunal estadual?",
        # a question about something else entirely
        "bom dia, tudo bem?",
        # another case, named by what it is about
        "E o do transporte escolar de Três Barras?",
        "e o processo da merenda?",
    ],
)
def test_a_question_that_stands_alone_is_not_a_follow_up(question: str) -> None:
    assert follow_up_target(question, THREAD) is None
    assert resolve_follow_up(question, THREAD) == question


def test_without_cases_in_the_thread_nothing_is_a_follow_up() -> None:
    assert follow_up_target("e as partes?", []) is None
    assert resolve_follow_up("e as partes?", []) == "e as partes?"


@pytest.mark.parametrize(
    ("question", "aspect"),
    [
        ("quem são as partes?", "parties"),
        ("desde quando está lá?", "since"),
        ("em que setor está?", "location"),
        ("quem é a relatora?", "rapporteur"),
        ("qual a última movimentação?", "movements"),
        ("qual a situação?", "status"),
        ("tem documentos?", "documents"),
        ("do que se trata?", "subject"),
        ("qual a classe?", "class"),
        ("bom dia", None),
    ],
)
def test_the_part_of_a_case_a_question_asks_about(question: str, aspect: str | None) -> None:
    assert aspect_of(question) == aspect


@pytest.mark.parametrize(
    ("text", "leans"),
    [
        ("E se o pedido for negado?", True),
        ("e disso, o que sai?", True),
        ("Qual o prazo para recorrer de uma multa?", False),
    ],
)
def test_a_question_that_continues_an_earlier_turn(text: str, leans: bool) -> None:
    assert leans_on_context(text) is leans


def _found(number: str) -> dict[str, object]:
    return {"number": number, "status": "found"}


def test_the_thread_remembers_the_found_cases_newest_lookup_first() -> None:
    cases = remember([EARLIER], [_found("TC/000001/2024"), _found("TC/000002/2024")])
    assert cases == ["TC/000002/2024", "TC/000001/2024", EARLIER]


def test_a_case_looked_up_again_becomes_the_current_one_without_a_second_copy() -> None:
    assert remember([CURRENT, EARLIER], [_found(EARLIER)]) == [EARLIER, CURRENT]


def test_a_case_the_registry_did_not_find_is_not_remembered() -> None:
    evidence = [{"number": "TC/000999/2024", "status": "not_found"}, {"status": "found"}]
    assert remember([CURRENT], evidence) == [CURRENT]


def test_the_thread_keeps_its_five_latest_cases() -> None:
    numbers = [f"TC/{n:06d}/2024" for n in range(1, 8)]
    assert remember([], [_found(n) for n in numbers]) == numbers[::-1][:5]


def test_every_agent_sees_the_current_case_the_other_one_and_their_last_facts() -> None:
    facts = {
        CURRENT: {
            "status": "found",
            "record": {"status": "Aguardando defesa", "rapporteur": "Cons. Ana Lima"},
            "location": {"location": "Gabinete 3", "since": "2024-02-01"},
            "parties": [{"name": "Município de Alfa", "role": "Interessado"}],
        },
        EARLIER: {"status": "not_found"},
    }
    facts[CURRENT]["parties"].append({"name": "Ana Souza", "role": "Responsável"})
    block = context_block(THREAD, facts)
    current = next(line for line in block.splitlines() if CURRENT in line)
    assert current == (
        f"- Caso atual: {CURRENT} — situação: Aguardando defesa; onde está: Gabinete 3, desde "
        "2024-02-01; relator: Cons. Ana Lima; partes: Município de Alfa (Interessado); Ana Souza "
        "(Responsável)"
    )
    other = next(line for line in block.splitlines() if EARLIER in line)
    # a case the registry did not find has no facts to state
    assert other.strip() == f"- Outro caso citado: {EARLIER}"
    # and the offline rules read the same cases back from the view's instructions
    view = [Message.system(block), Message.user("e as partes?")]
    assert cases_in_context(view) == THREAD


def test_a_thread_without_cases_adds_nothing_to_the_view() -> None:
    assert context_block([], {}) == ""
    assert cases_in_context([Message.user("e as partes?")]) == []
    assert cases_in_context([Message.system("Você é o assistente."), Message.user("oi")]) == []


def test_a_fact_the_registry_did_not_give_is_left_blank_not_made_up() -> None:
    facts = {CURRENT: {"status": "found", "record": {}, "location": {"location": "Gabinete 3"}}}
    current = next(line for line in context_block([CURRENT], facts).splitlines() if CURRENT in line)
    assert current == f"- Caso atual: {CURRENT} — situação: ; onde está: Gabinete 3, desde "
    facts = {CURRENT: {"status": "found", "record": {}, "location": {"since": "2024-02-01"}}}
    current = next(line for line in context_block([CURRENT], facts).splitlines() if CURRENT in line)
    assert current == f"- Caso atual: {CURRENT} — situação: ; onde está: , desde 2024-02-01"
