"""A turn without a number that names something of one case — a party, the audited body, what
the case is about — is answered with that case, read against the registry (issue 31): people
describe their case by who is in it, not by its number, and often without the word
"processo". The registry decides: one clear case → its card; none → the turn goes on as read.

The registry is the small fictitious one of ``data/registry_para``, imported from its CSV
files into a real SQLite store; the laws are the shipped ones; no model (offline).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from registry_sets_helpers import para_registry

from colmeia.apps.assistant.dispatch import Dispatcher
from colmeia.apps.assistant.frame import CONFIDENT, read_frame
from colmeia.apps.assistant.frame_steps import frame_routes
from colmeia.apps.assistant.graph_state import Flags
from colmeia.apps.assistant.intents import Prediction
from colmeia.apps.assistant.session import Assistant


@pytest.fixture
def bot(para_bot: Assistant) -> Assistant:
    return para_bot


def _found(result: Any) -> list[str]:
    return [str(f.get("number")) for f in result.facts if f.get("status") == "found"]


async def test_a_persons_name_typed_without_accents_finds_their_case(bot: Assistant) -> None:
    # Red before: a case question without a number or a thread asked "De qual processo?"
    result = await bot.ask(
        "t1", "sou sobrinho da benedita sousa correa, ela ta respondendo um processo ai, qual e?"
    )
    assert _found(result) == ["TC/000812/2024"]
    # a follow-up then is about that case
    assert _found(await bot.ask("t1", "e quem e o relator?")) == ["TC/000812/2024"]


async def test_a_body_named_without_the_word_processo_is_looked_up_in_the_registry(
    bot: Assistant,
) -> None:
    # Red before: a sure search reading without case words went to the laws (CF/88 Art.
    # 29-A, the câmaras' payroll limit) instead of the registry
    result = await bot.ask("t2", "a camara municipal de santarem ta sendo investigada por vcs?")
    assert _found(result) == ["TC/000812/2024"]


async def test_a_party_asked_about_in_the_thread_is_found_not_searched_in_the_laws(
    bot: Assistant,
) -> None:
    await bot.ask("t3", "processo 4506/2021 ta em que fase?")
    # read as an unsure search (no case word): red before, answered from the laws
    result = await bot.ask("t3", "a construtora ipe amarelo ta como parte?")
    assert _found(result) == ["TC/000777/2020"]
    assert "Construtora Ipê Amarelo" in result.answer


async def test_what_names_no_case_is_not_taken_for_one(bot: Assistant) -> None:
    # an aspect without a case still asks which; a law question stays with the laws
    asked = await bot.ask("t4", "e quem e o relator?")
    assert asked.waiting and _found(asked) == []
    law = await bot.ask("t5", "a prefeitura pode negar copia de um contrato publico?")
    assert _found(law) == [] and law.citations


def test_only_a_request_to_follow_a_named_case_leaves_the_frame_route() -> None:
    # Red before: any "avisar"/"acompanhar" sent the turn to the agents' old rules, which
    # searched the registry with the filler ("transporte queria acompanhar": no case)
    on = Flags()
    for text in [
        "cortaram minha luz sem avisar, pode isso?",
        "tem algum processo sobre transporte escolar? queria acompanhar",
    ]:
        assert frame_routes(on, [], text, web_search=False), text
    for text in [
        "quero acompanhar o processo 4506/2023",
        "me avisa por email quando andar: maria@exemplo.com.br",
        "avise-me quando o 4506/2023 mudar",
        "pode me avisar quando o processo 812/2024 andar?",
        "quero receber notificações do 4506/2023",
        "acompanha o 4506/2023 pra mim",
    ]:
        assert not frame_routes(on, [], text, web_search=False), text
    # the duty to have told someone is a law question beside the case, not a request to
    # follow it: red before, the turn left the frame and its case part was dropped
    for text in [
        "qual a fase do 4506/2023 e a empresa q vazou meus dados tinha q ter me avisado?",
        "o 812/2024 ta parado e ninguem me avisou, pode isso?",
        "no processo 4506/2023 o orgao tinha que me notificar da decisao?",
        "o 4506/2023 é um processo q eu acompanho, ta em q fase?",
    ]:
        assert frame_routes(on, [], text, web_search=False), text


async def test_a_case_asked_beside_a_duty_to_have_warned_gets_both_parts(bot: Assistant) -> None:
    result = await bot.ask(
        "t7", "qual a fase do 4506/2023 e a empresa q vazou meus dados tinha q ter me avisado?"
    )
    # red before: only the law part was answered (the turn was taken for a request to follow)
    assert _found(result) == ["TC/004506/2023"]
    assert result.citations and result.citations[0]["law"] == "Lei 13.709/2018"


async def test_one_of_the_threads_cases_described_is_that_one_not_the_last(
    bot: Assistant,
) -> None:
    await bot.ask("t6", "processo 4506/2023 ta onde?")
    await bot.ask("t6", "e o 812/2024?")
    # Red before: four cases of the registry are about school meals, so a search listed
    # them; the thread talked about one of them
    result = await bot.ask("t6", "e aquele da merenda, quem relata?")
    assert _found(result) == ["TC/004506/2023"]
    # ...while a description that fits a case beyond the thread better is a new search
    other = await bot.ask("t6", "e o processo da merenda de castanhal?")
    assert _found(other) == ["TC/002210/2024"]


async def test_two_questions_one_on_a_described_case_one_on_the_law_get_both(
    bot: Assistant,
) -> None:
    # Red before: read as one law question (the case half dropped); the case is described,
    # not numbered, and found in the registry
    result = await bot.ask(
        "t7",
        "o processo da camara de santarem ja andou? e pela lai eu posso pedir copia das "
        "contas da camara?",
    )
    assert _found(result) == ["TC/000812/2024"]
    assert "Lei 12.527/2011" in {c["law"] for c in result.citations}


async def test_a_short_follow_up_the_classifier_is_torn_on_stays_with_the_threads_case(
    tmp_path: Path,
) -> None:
    # The reading is given (as a model's would be) so that the rule, not one sentence, is
    # what is tested: torn between the law and a case, a few words, no norm named
    registry = para_registry(tmp_path)
    try:
        torn = Prediction("law", "status", {"law": 0.55, "case": 0.45})
        frame = read_frame("e q orgao foi fiscalizado", predicted=torn)
        assert frame.intent == "law" and frame.confidence < CONFIDENT
        dispatcher = Dispatcher(registry, rag=None)
        # Red before: sent to the laws (Decision "law") in a thread about a case
        decision = await dispatcher.decide(frame, ["TC/000812/2024"])
        assert decision.kind == "answer" and decision.answer is not None
        assert [f["number"] for f in decision.answer["facts"]] == ["TC/000812/2024"]
        # after a law answer (its norms), or said surely, it is the law's
        after_law = read_frame("e q orgao foi fiscalizado", predicted=torn)
        decision = await dispatcher.decide(after_law, ["TC/000812/2024"], ["Lei 12.527/2011"])
        assert decision.kind == "law"
        sure = Prediction("law", "status", {"law": 0.9, "case": 0.1})
        decision = await dispatcher.decide(
            read_frame("e q orgao foi fiscalizado", predicted=sure), ["TC/000812/2024"]
        )
        assert decision.kind == "law"
    finally:
        registry.close_sync()


async def test_a_few_words_after_a_cases_card_are_read_as_going_on_about_it(
    bot: Assistant,
) -> None:
    await bot.ask("t8", "processo 812/2024 ta onde?")
    # Red before: the court's file on how to file a denúncia (institutional) answered
    who = await bot.ask("t8", "quem fez a denuncia disso")
    assert _found(who) == ["TC/000812/2024"] and who.citations == []
    # Red before: read as a law question (0.8), Lei 12.527 answered
    body = await bot.ask("t8", "e q orgao foi fiscalizado")
    assert _found(body) == ["TC/000812/2024"]
    assert "Câmara Municipal de Santarém" in body.answer
    # a law question sure of itself, or naming a norm, stays the law's
    law = await bot.ask("t8", "e qual o prazo pra recorrer?")
    assert law.citations and _found(law) == []
    lai = await bot.ask("t8", "e a lai?")
    assert _found(lai) == []
