"""Issue 32: a question about the court's decisions — one named as decisions are cited ("o
Acórdão 1234/2019-Plenário", "a súmula 247"), its jurisprudence, decisions on a subject — is a
question for the documents, not a case to ask the number of. The classifier learnt "o acórdão
saiu?" of a case's events, and read "qual o acórdão 1234/2019 do plenário?" as one: the
assistant answered "De qual processo?". A message about the person's own matter ("o acórdão
do meu processo", "teve decisão sobre a minha defesa?") or a typed case stays a case."""

from __future__ import annotations

import pytest

from colmeia.apps.assistant.dispatch import Dispatcher
from colmeia.apps.assistant.frame import asks_decisions, read_frame
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry


@pytest.mark.parametrize(
    "question",
    [
        "qual o acordao 1234/2019 do plenario?",
        "O que decidiu o Acórdão 1234/2019-Plenário?",
        "acordao n 1.234 de 2019 primeira camara",
        "o que diz a sumula 247 do tcu?",
        "tem jurisprudencia sobre sobrepreco em obras?",
        "qual o entendimento do tcu sobre pregao eletronico?",
        "decisoes do relator benjamin zymler sobre dispensa de licitacao",
        "tem acordao do relator Otavio Ramos sobre dispensa?",
    ],
)
async def test_a_question_about_the_courts_decisions_goes_to_the_documents(
    registry: SQLiteCaseRegistry, question: str
) -> None:
    assert asks_decisions(question)
    frame = read_frame(question)
    assert frame.intent == "law", (frame.intent, frame.read_as)
    decision = await Dispatcher(registry, rag=None).decide(frame, [])
    assert decision.kind == "law" and not decision.question


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("o acordao do meu processo ja saiu?", "case"),
        ("teve decisao sobre a minha defesa?", "case"),
        ("o acórdão saiu?", "case"),
        ("o processo 4506/2023 tem acordao?", "case"),
    ],
)
def test_a_case_of_ones_own_or_a_typed_case_stays_a_case(question: str, intent: str) -> None:
    assert read_frame(question).intent == intent
