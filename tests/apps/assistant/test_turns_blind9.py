"""Turns the ninth and tenth blind sets (issue 31, development sets after their one frozen
reading) found wrong, on this folder's own small registry (``blind_registry_helpers``):

* the answer to "de qual processo?" given as a description ("o das contas da câmara de tauá")
  is looked up in the registry, not read as a new question for the laws;
* a pick from a list by the year its subject names ("o das contas de 2023" when no listed
  number is of 2023), or by a first clause followed by a question ("o das clínicas. tá em que
  situação?");
* beside a typed case, the story told before the question is no law question;
* a message read unsure as about the court or out of scope whose words the registry ties to
  one case clearly is that case;
* a person of the thread's case named by two words of their name is that case ("leitão"
  names no law: the law cue is a whole word);
* a doctor's question, a result foretold and "vcs são tudo comprado" are out of scope; a
  right asked about a medicine is not;
* a message read unsure as out of scope whose words are one of the court file's entries is
  answered from the file.

Offline, the shipped laws and the Constitution, a real SQLite registry."""

from __future__ import annotations

import pytest
from blind_registry_helpers import (
    CLINICS,
    COUNCIL,
    SCHOOL_BUS,
    TEACHERS,
    shown_cases,
)

from colmeia.apps.assistant.frame import read_frame
from colmeia.apps.assistant.scope import out_of_scope
from colmeia.apps.assistant.session import Assistant


async def test_a_described_answer_to_which_case_is_looked_up(blind_bot: Assistant) -> None:
    asked = await blind_bot.ask("t", "quem é o relator do processo?")
    assert asked.status == "waiting_clarification"
    told = await blind_bot.ask("t", "o das contas do presidente da camara de taua")
    assert shown_cases(told) == [COUNCIL]
    assert "Otávio Lins" in told.answer  # the aspect asked before the description
    assert told.citations == []


async def test_a_described_answer_that_fits_a_few_cases_offers_them(blind_bot: Assistant) -> None:
    await blind_bot.ask("t", "ja foi julgado?")
    offered = await blind_bot.ask("t", "é um processo de taua")
    assert offered.status == "waiting_clarification"
    listed = {str(c["number"]) for f in offered.facts for c in f.get("cases") or []}
    assert listed == {CLINICS, COUNCIL}


async def test_a_pick_by_the_year_its_subject_names(blind_bot: Assistant) -> None:
    listed = await blind_bot.ask("t", "quais processos vcs tem sobre taua?")
    assert listed.status == "waiting_clarification"
    # neither listed number is of 2023; the council's accounts are those of 2023
    picked = await blind_bot.ask("t", "o das contas de 2023")
    assert shown_cases(picked) == [COUNCIL]


async def test_a_pick_in_a_first_clause_then_a_question(blind_bot: Assistant) -> None:
    await blind_bot.ask("t", "qual a situacao do processo 955/2025?")  # the thread's case before
    await blind_bot.ask("t", "e quais processos vcs tem sobre taua?")
    picked = await blind_bot.ask("t", "o das unidades de saude. ta em que situacao e desde quando")
    assert shown_cases(picked) == [CLINICS]
    assert "Julgado" in picked.answer


async def test_the_story_before_a_typed_case_is_no_law_question(blind_bot: Assistant) -> None:
    frame = read_frame(
        "boa tarde, sou de sobral e fiz uma denuncia sobre o transporte das escolas em 2025, "
        "o numero que me deram foi 610/25. como ta isso?"
    )
    assert frame.intent == "case"
    told = await blind_bot.ask(
        "t",
        "boa tarde, sou de sobral e fiz uma denuncia sobre o transporte das escolas em 2025, "
        "o numero que me deram foi 610/25. como ta isso?",
    )
    assert shown_cases(told) == [SCHOOL_BUS]
    assert told.citations == []
    # a law part that asks keeps the message mixed
    both = read_frame("o processo 610/2025 ta parado, sou obrigado a esperar sem prazo?")
    assert both.intent == "mixed"


async def test_an_unsure_court_reading_the_registry_ties_to_one_case(blind_bot: Assistant) -> None:
    told = await blind_bot.ask(
        "t",
        "boa tarde. sou de caninde e ano passado fiz uma denuncia ai no tribunal sobre as "
        "contratacoes temporarias de professores. queria saber se andou alguma coisa",
    )
    assert shown_cases(told) == [TEACHERS]


async def test_how_to_file_a_complaint_is_no_case_whatever_its_words(blind_bot: Assistant) -> None:
    # "denúncia", "transporte", "escolas", "sobral" are all the school-bus case's words
    how = await blind_bot.ask(
        "t", "como faco pra denunciar o transporte das escolas da prefeitura de sobral"
    )
    assert shown_cases(how) == []
    assert how.agent == "institutional"


async def test_a_person_of_the_threads_case_named_is_that_case(blind_bot: Assistant) -> None:
    await blind_bot.ask("t", "qual a situacao do processo 955/2025?")
    named = await blind_bot.ask("t", "e a marta pinho ja foi chamada pra se defender ou nao")
    assert shown_cases(named) == [TEACHERS]
    assert named.citations == []


def test_leitao_and_leilao_name_no_law() -> None:
    assert not read_frame("e o ex prefeito genival leitao ja foi chamado?").names_a_law
    assert not read_frame("o leilão da prefeitura foi anulado?").names_a_law
    assert read_frame("o que a lei diz do leilão?").names_a_law


@pytest.mark.parametrize(
    "question",
    [
        "to com dor de cabeca faz 3 dias, que remedio eu tomo?",
        "kkkk ta. e quem ganha sport x nautico domingo?",
        "e o time, vai subir esse ano?",
        "vcs sao tudo comprado ne",
    ],
)
def test_out_of_scope_whatever_the_words(question: str) -> None:
    assert out_of_scope(question) is not None


def test_a_right_asked_about_a_medicine_is_no_doctors_question() -> None:
    assert out_of_scope("o plano de saude negou o remedio, a lei obriga?") is None
    assert out_of_scope("a farmacia pode vender remedio vencido?") is None


async def test_an_unsure_scope_reading_in_the_courts_file_is_answered_from_it(
    blind_bot: Assistant,
) -> None:
    filed = await blind_bot.ask(
        "t", "desculpa msg errada kkk. queria saber como tiro certidao negativa de debito no tce"
    )
    assert filed.agent == "institutional"
    assert "Certidões" in filed.answer


async def test_a_question_that_restates_the_courts_file_is_answered_from_it(
    blind_bot: Assistant,
) -> None:
    # read as the law's (a right: "dá pra…?"), it restates the file's "Posso fazer denúncia
    # anônima?" nearly word for word
    filed = await blind_bot.ask(
        "t",
        "quero denunciar o prefeito da minha cidade mas tenho medo de represalia, da pra fazer "
        "denuncia anonima?",
    )
    assert filed.agent == "institutional"
    assert "sigilo" in filed.answer


async def test_how_to_file_in_a_case_thread_is_the_courts_file(blind_bot: Assistant) -> None:
    await blind_bot.ask("t", "qual a situação do processo 610/2025?")
    how = await blind_bot.ask(
        "t", "como eu protocolo documentos novos nesse processo? tem peticionamento eletronico?"
    )
    assert how.agent == "institutional"
    assert "peticionamento eletrônico" in how.answer


async def test_a_party_asked_of_by_its_part_in_the_threads_case_is_that_case(
    blind_bot: Assistant,
) -> None:
    await blind_bot.ask("t", "qual a situacao do processo 733/2022?")
    # read as the law's (a company returning money), it asks of the case's construction firm
    firm = await blind_bot.ask("t", "e a construtora devolveu o dinheiro ou ficou por isso mesmo")
    assert shown_cases(firm) == [CLINICS]
    assert "Construtora Serra Grande" in firm.answer
    await blind_bot.ask("t", "e o 955/2025, como ta?")
    role = await blind_bot.ask(
        "t", "so pra confirmar, quem consta como responsavel nessa auditoria?"
    )
    assert shown_cases(role) == [TEACHERS]
    assert "Marta Sales Pinho" in role.answer
