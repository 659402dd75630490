"""A case named by what it is about with the noun left out — "o da merenda", "e o da orla tá
parado aonde?" — as people answer and follow up, and cases asked for in the plural ("os
processos da conselheira…", "tem algum processo contra o prefeito…?"). The registries are
development sets': independent18's (two cases of rapporteur Lucinete, one on school meals in
Campina Grande, one on the Cabedelo seafront works) and independent12's (two cases whose
responsible is Parintins's mayor, his 2022 accounts and a bid)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from blind_registry_helpers import shown_cases

from colmeia.apps.assistant.session import Assistant

OnSet = Callable[[str], Awaitable[Assistant]]

MEALS, SEAFRONT = "TC/008842/2023", "TC/002048/2026"


ACCOUNTS, BID = "TC/003917/2023", "TC/011482/2024"


async def test_the_one_about_something_names_that_case_not_the_thread_s(on_set: OnSet) -> None:
    bot: Assistant = await on_set("independent18")
    first = await bot.ask("a", "como ta o tc 8842/2023?")
    assert shown_cases(first) == [MEALS]
    # a new case named by its subject wins over the case the thread was about
    other = await bot.ask("a", "e o da orla ta parado aonde?")
    assert shown_cases(other) == [SEAFRONT]
    assert "Departamento Especial de Auditoria" in other.answer


async def test_the_one_about_something_alone_is_a_case_not_a_law_question(on_set: OnSet) -> None:
    bot: Assistant = await on_set("independent18")
    # three words the classifier cannot place (out of scope? a law on school meals?): "o"
    # stands for the case, and the registry holds one about school meals
    told = await bot.ask("b", "o da merenda")
    assert shown_cases(told) == [MEALS]
    assert told.citations == []


async def test_the_cases_of_a_rapporteur_asked_in_the_plural_are_listed(on_set: OnSet) -> None:
    bot: Assistant = await on_set("independent18")
    # "grandes" is a word of Campina Grande: one word more for the school-meals case does not
    # make it the one asked about when the person asks for her cases
    told = await bot.ask(
        "c",
        "vcs sao uma vergonha, so multam pobre e deixam os grandes. quero ver os processos da "
        "conselheira lucinete, quais sao??",
    )
    assert told.status == "waiting_clarification"
    assert MEALS in told.answer and SEAFRONT in told.answer


async def test_any_case_against_someone_lists_them_all(on_set: OnSet) -> None:
    amazonas: Assistant = await on_set("independent12")
    # "prefeito" is a word of the accounts case only: one word more does not hide the other
    # case of the same mayor from someone asking whether there is any
    told = await amazonas.ask(
        "d", "tem algum processo contra o prefeito francisco lira de parintins?"
    )
    assert told.status == "waiting_clarification"
    assert ACCOUNTS in told.answer and BID in told.answer


async def test_the_one_about_something_is_the_thread_s_case_when_it_is_about_that(
    on_set: OnSet,
) -> None:
    amazonas: Assistant = await on_set("independent12")
    assert shown_cases(await amazonas.ask("e", "como esta o tc 3917/2023?")) == [ACCOUNTS]
    # other cases of the registry are about accounts too; the one the thread talked about is
    # the one meant
    told = await amazonas.ask("e", "o das contas")
    assert shown_cases(told) == [ACCOUNTS]
