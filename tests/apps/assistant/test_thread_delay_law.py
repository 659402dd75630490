"""A question of law about how long the thread's case has stood still ("tá no ministério público
desde julho?? a lei deixa o parecer ficar parado assim?") is answered with that case's situation
— where it is and since when — beside the law; a general question of law in the same thread
stays the law's. The registry is independent16's (a development set)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from blind_registry_helpers import shown_cases

from colmeia.apps.assistant.session import Assistant

OnSet = Callable[[str], Awaitable[Assistant]]

WASTE = "TC/011052/2023"  # a denúncia on rubbish collection, at the MPC since 08/07/2026


def _cited(result: object) -> set[tuple[str, str]]:
    return {(str(c.get("law")), str(c.get("article"))) for c in result.citations}  # type: ignore[attr-defined]


async def test_a_delay_asked_of_the_law_shows_the_case_beside_the_law(on_set: OnSet) -> None:
    bot: Assistant = await on_set("independent16")
    assert shown_cases(await bot.ask("a", "como ta o tc 11052/2023?")) == [WASTE]
    asked = await bot.ask(
        "a",
        "pera, ta no ministerio publico desde julho?? isso nao tem prazo nao? a lei deixa o "
        "parecer ficar parado assim?",
    )
    assert shown_cases(asked) == [WASTE]
    assert "desde 08/07/2026" in asked.answer  # where it stands and since when
    assert ("Lei 9.784/1999", "42") in _cited(asked)  # the deadline for an opinion


async def test_a_general_question_of_law_in_the_same_thread_stays_the_law_s(
    on_set: OnSet,
) -> None:
    bot: Assistant = await on_set("independent16")
    assert shown_cases(await bot.ask("b", "como ta o tc 11052/2023?")) == [WASTE]
    asked = await bot.ask(
        "b",
        "de modo geral, a camara de vereadores pode derrubar o parecer do tribunal sobre as "
        "contas do prefeito? precisa de quantos votos?",
    )
    assert shown_cases(asked) == []
    assert asked.citations
