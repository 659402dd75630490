"""Case answers: the registry's fields rendered without a model, and a model's phrasing checked."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from colmeia.apps.assistant.case_cards import case_card
from colmeia.apps.assistant.case_lookup import lookup_case
from colmeia.apps.assistant.cases import check_case_answer
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.apps.assistant.synthetic import generate_registry

AS_OF = dt.date(2026, 11, 1)


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> SQLiteCaseRegistry:
    reg = SQLiteCaseRegistry(Path(tmp_path_factory.mktemp("cases")) / "r.db")
    generate_registry(reg, processes=400, expedientes=100, as_of=AS_OF)
    return reg


async def test_a_found_case_says_where_it_is_and_since_when(registry: SQLiteCaseRegistry) -> None:
    found = await lookup_case(registry, "TC-000032-2023", today=AS_OF)
    assert found["status"] == "found"
    card = case_card(found)
    loc = found["location"]
    since = dt.date.fromisoformat(loc["since"]).strftime("%d/%m/%Y")
    assert f"Onde está: {loc['location']}, desde {since}" in card
    assert found["record"]["rapporteur"] in card
    assert check_case_answer(card, [found]) == []


async def test_unknown_and_invalid_numbers_are_answered_without_invention(
    registry: SQLiteCaseRegistry,
) -> None:
    unknown = await lookup_case(registry, "tc 999999/2020", today=AS_OF)
    assert unknown == {
        "status": "not_found",
        "kind": "process",
        "number": "TC/999999/2020",
        "typed": "tc 999999/2020",
    }
    assert "Não encontrei o processo TC/999999/2020" in case_card(unknown)
    invalid = await lookup_case(registry, "TC 0/2024", today=AS_OF)
    assert invalid["status"] == "invalid"
    assert "o número não pode ser zero" in case_card(invalid)


async def test_invented_details_in_a_phrasing_are_caught(registry: SQLiteCaseRegistry) -> None:
    found = await lookup_case(registry, "TC/000032/2023", today=AS_OF)
    loc = found["location"]
    since = dt.date.fromisoformat(loc["since"]).strftime("%d/%m/%Y")
    honest = f"O processo TC/000032/2023 está em {loc['location']} desde {since}."
    assert check_case_answer(honest, [found]) == []
    invented = honest + " O relator é o Cons. Júlio Prates e o julgamento será em 12/03/2027."
    problems = check_case_answer(invented, [found])
    assert any("Júlio Prates" in p for p in problems)
    assert any("12/03/2027" in p for p in problems)
    other = check_case_answer("Veja também o TC/000033/2023.", [found])
    assert other == ["case TC/000033/2023 was not looked up"]
    unknown = await lookup_case(registry, "TC/999999/2020", today=AS_OF)
    assert check_case_answer("Está no gabinete desde 01/02/2024, há 300 dias.", [unknown])
