"""A question of law about how long the thread's case has stood still ("tá no ministério público
desde julho?? a lei deixa o parecer ficar parado assim?") is answered with that case's situation
— where it is and since when — beside the law; a general question of law in the same thread
stays the law's. The registry is independent16's (a development set)."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from blind_registry_helpers import shown_cases

from colmeia.apps.assistant.registry_io import import_registry
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.apps.assistant.session import Assistant, open_assistant
from colmeia.store import Store

TODAY = dt.date(2026, 11, 1)
SETS = Path(__file__).resolve().parents[3] / "src" / "colmeia" / "apps" / "assistant" / "data"
WASTE = "TC/011052/2023"  # a denúncia on rubbish collection, at the MPC since 08/07/2026


@pytest.fixture
async def bot(blind_collection: Store, tmp_path: Path) -> AsyncIterator[Assistant]:
    registry = SQLiteCaseRegistry(tmp_path / "rs.db")
    assert not import_registry(registry, [SETS / "independent16" / "registry"]).problems
    try:
        async with open_assistant(
            store=blind_collection, model=None, registry=registry, home=tmp_path, today=TODAY
        ) as assistant:
            yield assistant
    finally:
        registry.close_sync()


def _cited(result: object) -> set[tuple[str, str]]:
    return {(str(c.get("law")), str(c.get("article"))) for c in result.citations}  # type: ignore[attr-defined]


async def test_a_delay_asked_of_the_law_shows_the_case_beside_the_law(bot: Assistant) -> None:
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
    bot: Assistant,
) -> None:
    assert shown_cases(await bot.ask("b", "como ta o tc 11052/2023?")) == [WASTE]
    asked = await bot.ask(
        "b",
        "de modo geral, a camara de vereadores pode derrubar o parecer do tribunal sobre as "
        "contas do prefeito? precisa de quantos votos?",
    )
    assert shown_cases(asked) == []
    assert asked.citations
