"""Case references read in every form people type and resolved against the registry: one
match is the case, several are the candidates to ask about, none is said clearly — and a
reference the registry can match is never called invalid.

The registry is the small fictitious one in ``data/registry_para`` (imported from CSV), where
two processes share the number 4506 (2021 and 2023) and an expediente is EXP-2025-04506.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from registry_sets_helpers import PARA_AS_OF, para_registry

from colmeia.apps.assistant.case_refs import full_year, read_case_refs, resolve_case_refs
from colmeia.apps.assistant.registry_http import RegistryServer
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.apps.assistant.registry_url import open_registry


@pytest.fixture
def para(tmp_path: Path) -> Iterator[SQLiteCaseRegistry]:
    reg = para_registry(tmp_path)
    yield reg
    reg.close_sync()


def numbers(text: str) -> list[tuple[int, int | None, str | None]]:
    return [(r.number, r.year, r.kind) for r in read_case_refs(text, today=PARA_AS_OF)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("TC 012.345/2023-1", [(12345, 2023, "process")]),
        ("012345/2023", [(12345, 2023, None)]),
        ("e o 812/24?", [(812, 2024, None)]),
        ("processo 4506 de 2023 ta com quem?", [(4506, 2023, "process")]),
        ("4506/23", [(4506, 2023, None)]),
        ("meu processo é 11165/22", [(11165, 2022, "process")]),
        ("11165 barra 22", [(11165, 2022, None)]),
        ("meu processo é o 4506", [(4506, None, "process")]),
        ("expediente 123/2024", [(123, 2024, "expediente")]),
        ("EXP-2024-00123", [(123, 2024, "expediente")]),
        ("quatro mil quinhentos e seis de dois mil e vinte e três", [(4506, 2023, None)]),
        # a pause typed as a comma before the year, in words or in figures
        ("onze mil cento e sessenta e cinco, de 2022", [(11165, 2022, None)]),
        ("processo 4506, de 2023", [(4506, 2023, "process")]),
        ("4506/2023 e 11165/2022", [(4506, 2023, None), (11165, 2022, None)]),
    ],
)
def test_every_form_people_type_is_read(
    text: str, expected: list[tuple[int, int | None, str | None]]
) -> None:
    assert numbers(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "o que diz a Lei 9.784/99?",
        "o art. 23 da Lei 8.666 de 1993",
        "Acórdão 1.234/2023 do plenário",
        "desde 05/03/2024",
        "a LC 101/2000 e a IN 12/2019",
        "quero saber sobre licitação",
    ],
)
def test_norms_decisions_and_dates_are_not_cases(text: str) -> None:
    assert numbers(text) == []


def test_a_two_digit_year_is_the_latest_such_year_not_after_today() -> None:
    assert full_year("24", PARA_AS_OF) == 2024
    assert full_year("26", PARA_AS_OF) == 2026
    assert full_year("27", PARA_AS_OF) == 1927  # out of range later, never 2027
    assert full_year("99", PARA_AS_OF) == 1999
    assert full_year("2023", PARA_AS_OF) == 2023


async def test_a_short_year_finds_the_one_case_the_registry_holds(
    para: SQLiteCaseRegistry,
) -> None:
    [found] = await resolve_case_refs("e o 812/24?", para, today=PARA_AS_OF)
    assert (found.status, str(found.case), found.message) == ("found", "TC/000812/2024", "")


async def test_a_number_without_its_year_lists_the_cases_that_share_it(
    para: SQLiteCaseRegistry,
) -> None:
    [asked] = await resolve_case_refs("meu processo é o 4506", para, today=PARA_AS_OF)
    assert asked.status == "ambiguous"
    # "processo" says which kind: the expediente EXP-2025-04506 is not offered
    assert [c.canonical for c in asked.candidates] == ["TC/004506/2021", "TC/004506/2023"]
    assert asked.message == (
        "Há mais de um caso com o número 4506: TC/004506/2021 e TC/004506/2023. Qual deles?"
    )
    [one] = await resolve_case_refs("processo 777", para, today=PARA_AS_OF)
    assert (one.status, str(one.case)) == ("found", "TC/000777/2020")


async def test_a_number_the_registry_lacks_is_said_with_its_neighbours(
    para: SQLiteCaseRegistry,
) -> None:
    [missing] = await resolve_case_refs("processo 4506/2022", para, today=PARA_AS_OF)
    assert missing.status == "not_found"
    assert missing.message == (
        "Não encontrei o processo TC/004506/2022 no cadastro. Com o número 4506 há: "
        "TC/004506/2021 e TC/004506/2023. É algum deles?"
    )
    [nothing] = await resolve_case_refs("processo 55555", para, today=PARA_AS_OF)
    assert (nothing.status, nothing.candidates) == ("not_found", ())
    assert "nenhum processo com o número 55555" in nothing.message


async def test_a_year_no_case_can_have_is_invalid_only_when_nothing_matches(
    para: SQLiteCaseRegistry,
) -> None:
    [close] = await resolve_case_refs("4506/2031", para, today=PARA_AS_OF)
    assert close.status == "ambiguous"  # never "não é um número válido" with matches
    assert [c.canonical for c in close.candidates] == [
        "TC/004506/2021",
        "TC/004506/2023",
        "EXP-2025-04506",
    ]
    [bad] = await resolve_case_refs("tc 12/2031", para, today=PARA_AS_OF)
    assert bad.status == "invalid" and "entre 1990 e 2026" in bad.message


async def test_two_cases_in_one_message_resolve_in_order(para: SQLiteCaseRegistry) -> None:
    found = await resolve_case_refs("compare o 4506/2023 com o 11165/22", para, today=PARA_AS_OF)
    assert [(r.status, str(r.case)) for r in found] == [
        ("found", "TC/004506/2023"),
        ("found", "TC/011165/2022"),
    ]


async def test_the_http_registry_resolves_the_same_way(para: SQLiteCaseRegistry) -> None:
    with RegistryServer(para) as server:
        remote = open_registry(server.url)
        try:
            for text in ("processo 4506", "812/24", "processo 4506/2022", "4506/2031"):
                here = [r.as_dict() for r in await resolve_case_refs(text, para, today=PARA_AS_OF)]
                there = [
                    r.as_dict() for r in await resolve_case_refs(text, remote, today=PARA_AS_OF)
                ]
                assert there == here, text
        finally:
            await remote.close()


async def test_a_registry_that_does_not_answer_is_unavailable_not_an_error(
    tmp_path: Path,
) -> None:
    reg = SQLiteCaseRegistry(tmp_path / "r.db")
    reg.close_sync()
    [down] = await resolve_case_refs("processo 4506/2023", reg, today=PARA_AS_OF)
    assert down.status == "unavailable" and "closed" in down.message
