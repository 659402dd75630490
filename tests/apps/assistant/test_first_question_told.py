"""A first question the classifier reads, unsure, as the law's, whose words name one case of
the registry clearly (the town, the year, the mayor's name: "queria saber das contas de governo
de 2023 do prefeito lindomar, em q fase ta no tribunal?"), is that case; a question that asks for
a legal provision ("qual dispositivo…") stays the law's. The registries are development sets':
independent17's (Jataí's 2023 accounts, at the MPC), independent7's (a former mayor's cases,
whose words a question of the LINDB shares), independent9's (a case whose responsible is
"Construtora Sertão Vivo") and independent19's (a consulta of Açailândia on school transport)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from blind_registry_helpers import shown_cases

from colmeia.apps.assistant.session import Assistant

OnSet = Callable[[str], Awaitable[Assistant]]

ACCOUNTS = "TC/005530/2024"


async def test_a_case_told_in_a_first_question_is_found(on_set: OnSet) -> None:
    bot: Assistant = await on_set("independent17")
    told = await bot.ask(
        "a",
        "oi, sou servidor da controladoria de jatai. queria saber das contas de governo de 2023 "
        "do prefeito lindomar, em q fase ta no tribunal?",
    )
    assert shown_cases(told) == [ACCOUNTS]
    assert "Aguardando parecer do MPC" in told.answer
    # and the thread goes on about it
    assert shown_cases(await bot.ask("a", "ta no mpc desde qnd?")) == [ACCOUNTS]


async def test_a_legal_provision_asked_stays_the_law_s(on_set: OnSet) -> None:
    ceara: Assistant = await on_set("independent7")
    asked = await ceara.ask(
        "b",
        "Prezados, na defesa de um ex-prefeito, qual dispositivo diz que o agente público só "
        "responde pessoalmente por suas decisões em caso de dolo ou erro grosseiro?",
    )
    assert shown_cases(asked) == []
    assert any(str(c.get("article")) == "28" for c in asked.citations)


async def test_words_every_case_shares_name_no_case_in_a_question_of_law(on_set: OnSet) -> None:
    sertao: Assistant = await on_set("independent9")
    # "prefeitura", "parecer", "técnico" are every case's words, and "sertão" is one word of a
    # company's name: the question is the LINDB's, not the case of Construtora Sertão Vivo
    asked = await sertao.ask(
        "c",
        "sou controlador interno de uma prefeitura aqui do sertao. se eu der um parecer tecnico "
        "e depois o tribunal achar que ta errado, eu respondo pessoalmente com meu cpf?",
    )
    assert shown_cases(asked) == []
    assert "Sertão Vivo" not in asked.answer


async def test_waiting_for_a_case_s_answer_asks_the_case_not_the_law(on_set: OnSet) -> None:
    maranhao: Assistant = await on_set("independent19")
    assert shown_cases(await maranhao.ask("e", "como ta o tc 4012/2026?")) == ["TC/004012/2026"]
    # "esperando" tells a delay, but the message looks for news of the case: its card alone
    asked = await maranhao.ask(
        "e",
        "ok. la na secretaria de educacao ta todo mundo esperando a resposta daquela consulta do "
        "transporte escolar com dinheiro do fundeb. tem novidade?",
    )
    assert shown_cases(asked) == ["TC/004012/2026"]
    assert asked.citations == []
