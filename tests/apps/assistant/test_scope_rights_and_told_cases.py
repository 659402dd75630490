"""Eighteenth round of issue 31, on development sets' registries (independent12: Amazonas,
independent19: Maranhão):

- in a thread about a case, a question of what may or must be done ("a câmara pode rejeitar…?
  precisa de quantos votos?") is the law's, even when its words name an event of the case's
  record (its parecer);
- a first question that tells of a case by its class and its audited body's town and asks no
  right ("a tomada de contas especial da prefeitura de imperatriz… já terminou?") is that
  case, though the classifier reads it as the law's short of sure."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from blind_registry_helpers import shown_cases

from colmeia.apps.assistant.conversations import observed_kind
from colmeia.apps.assistant.session import Assistant

OnSet = Callable[[str], Awaitable[Assistant]]

TIMON_ACCOUNTS = "TC/002290/2025"  # independent19: at the MPC for its parecer
IMPERATRIZ_TCE = "TC/003418/2024"  # independent19: a convênio's asphalt, awaiting defence


async def test_a_right_asked_in_a_case_thread_is_the_law_s(on_set: OnSet) -> None:
    bot = await on_set("independent19")
    card = await bot.ask("t", "como ta o processo 2290/2025?")
    assert shown_cases(card) == [TIMON_ACCOUNTS]
    # "parecer" is an event of the case's record; what the câmara may do with it is the law's
    asked = await bot.ask(
        "t",
        "e quando o parecer sair, os vereadores ainda podem aprovar as contas mesmo se o parecer for contra?",
    )
    assert observed_kind(asked) == "law", asked.answer
    assert shown_cases(asked) == []


async def test_a_case_told_by_its_class_and_town_in_a_first_question_is_found(
    on_set: OnSet,
) -> None:
    bot = await on_set("independent19")
    told = await bot.ask(
        "c",
        "a tomada de contas especial da prefeitura de imperatriz sobre o convenio do asfalto ja terminou?",
    )
    assert shown_cases(told) == [IMPERATRIZ_TCE]
    assert "Aguardando defesa" in told.answer


async def test_a_story_told_from_a_town_s_office_names_no_case(on_set: OnSet) -> None:
    # independent12's registry holds a case of Itacoatiara's prefeitura: a servant of that
    # prefeitura asking the LGPD names its town, not the case (no class of case is spoken of)
    bot = await on_set("independent12")
    asked = await bot.ask(
        "r",
        "to no rh da prefeitura de itacoatiara, um servidor quer saber todos os dados dele q a "
        "gente tem guardado, oq eu respondo?",
    )
    assert shown_cases(asked) == []
    assert observed_kind(asked) == "law", asked.answer
