"""Finding a case in the registry from what a person types: the number, however sloppy, or a
description (a party, a subject) when the number is not known.

The registry is the synthetic one the assistant ships (seed 7, 400 processes and 100
expedientes as of 2026-11-01), read through its real SQLite store.
"""

from __future__ import annotations

from assistant_helpers import AS_OF

from colmeia.apps.assistant.case_cards import search_card
from colmeia.apps.assistant.case_lookup import lookup_case
from colmeia.apps.assistant.case_search import search_cases
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry

SUBJECT = (
    "Superfaturamento na aquisição de medicamentos — Prefeitura Municipal de Águas Claras do Sul"
)


async def test_a_found_case_brings_its_record_location_parties_movements_and_documents(
    registry: SQLiteCaseRegistry,
) -> None:
    found = await lookup_case(registry, "tc 68/2023", today=AS_OF)
    assert (found["status"], found["kind"], found["number"], found["typed"]) == (
        "found",
        "process",
        "TC/000068/2023",
        "tc 68/2023",
    )
    assert found["location"]["location"] == "Secretaria das Sessões"
    assert found["location"]["days"] == 931  # since 2024-04-14, counted to the date given
    assert found["location"]["last_movement"]["description"] == "Incluído em pauta de julgamento"
    assert len(found["movements"]) == 5 and len(found["documents"]) == 2
    assert found["record"]["number"] == "TC/000068/2023"
    assert [p["role"] for p in found["parties"]]  # the parties come with their roles
    one = await lookup_case(registry, "TC/000068/2023", today=AS_OF, movements=1)
    assert len(one["movements"]) == 1


async def test_a_bare_number_that_is_no_process_is_tried_as_an_expediente(
    registry: SQLiteCaseRegistry,
) -> None:
    found = await lookup_case(registry, "73/2026", today=AS_OF)
    assert (found["status"], found["kind"], found["number"]) == (
        "found",
        "expediente",
        "EXP-2026-00073",
    )
    assert found["record"]["number"] == "EXP-2026-00073"
    # written with its prefix, a process is only a process
    prefixed = await lookup_case(registry, "TC/000073/2026", today=AS_OF)
    assert (prefixed["status"], prefixed["number"]) == ("not_found", "TC/000073/2026")
    # and when the kind was asked for, only that kind is looked up
    asked = await lookup_case(registry, "73/2026", today=AS_OF, kind="process")
    assert (asked["status"], asked["number"]) == ("not_found", "TC/000073/2026")
    # neither exists: the answer names the number as typed, read as a process
    neither = await lookup_case(registry, "1/2024", today=AS_OF)
    assert neither == {
        "status": "not_found",
        "kind": "process",
        "number": "TC/000001/2024",
        "typed": "1/2024",
    }


async def test_an_invalid_number_is_refused_in_portuguese_before_any_lookup(
    registry: SQLiteCaseRegistry,
) -> None:
    invalid = await lookup_case(registry, "TC 12/2031", today=AS_OF)
    assert invalid == {
        "status": "invalid",
        "typed": "TC 12/2031",
        "message": "“TC 12/2031” não é um número válido de processo (formato TC/XXXXXX/AAAA): "
        "o ano deve estar entre 1990 e o ano corrente.",
    }


async def test_a_two_digit_year_is_completed_not_refused(registry: SQLiteCaseRegistry) -> None:
    found = await lookup_case(registry, "tc 68/23", today=AS_OF)
    assert (found["status"], found["number"], found["typed"]) == (
        "found",
        "TC/000068/2023",
        "tc 68/23",
    )
    missing = await lookup_case(registry, "TC 12/24", today=AS_OF)
    assert (missing["status"], missing["number"]) == ("not_found", "TC/000012/2024")


async def test_a_party_named_in_full_finds_its_one_case(registry: SQLiteCaseRegistry) -> None:
    found = await search_cases(registry, "Alimentos Cardoso Ltda.", today=AS_OF)
    assert (found["status"], found["number"]) == ("found", "TC/000068/2023")
    assert found["typed"] == found["searched"] == "Alimentos Cardoso Ltda."


async def test_a_description_matching_several_cases_lists_the_newest_first(
    registry: SQLiteCaseRegistry,
) -> None:
    found = await search_cases(registry, SUBJECT, today=AS_OF)
    assert (found["status"], found["query"], found["total"]) == ("search", SUBJECT, 4)
    assert [c["number"] for c in found["cases"]] == [
        "TC/000036/2025",
        "TC/001087/2025",
        "TC/000032/2023",
        "TC/000107/2022",
    ]


async def test_a_long_list_is_cut_to_five_and_says_how_many_there_were(
    registry: SQLiteCaseRegistry,
) -> None:
    found = await search_cases(registry, "Cardoso", today=AS_OF)
    assert (found["status"], found["total"], len(found["cases"])) == ("search", 67, 5)
    dates = [c["date"] for c in found["cases"]]
    assert dates == sorted(dates, reverse=True)


async def test_two_thirds_of_the_words_must_match(registry: SQLiteCaseRegistry) -> None:
    two_of_three = await search_cases(registry, "Alimentos Cardoso xyzzy", today=AS_OF)
    # two cases hold two of the three words; one holds them together, in its party's name
    # ("Alimentos Cardoso Ltda."), the other apart ("Alimentos Bezerra", "Helena … Cardoso")
    assert (two_of_three["status"], two_of_three["number"]) == ("found", "TC/000068/2023")
    two_of_four = await search_cases(registry, "Alimentos Cardoso xyzzy nada", today=AS_OF)
    assert two_of_four == {
        "status": "search",
        "query": "Alimentos Cardoso xyzzy nada",
        # the words looked for, as the card says them
        "words": "alimentos cardoso xyzzy nada",
        "total": 0,
        "cases": [],
    }
    # the card names the words looked for, not the sentence they were typed in
    said = search_card(
        await search_cases(registry, "tem algum processo sobre xyzzy ai? queria ver", today=AS_OF)
    )
    assert "“xyzzy”" in said and "queria" not in said
    nothing = await search_cases(registry, "o de em", today=AS_OF)
    assert (nothing["total"], nothing["cases"]) == (0, [])
