"""Finding a case from a loose description (issue 31): words no case of the registry uses
("firma", "ônibus", "falam") do not count against the words that do, and a reply to a search's
short list may pick a case by what it is about ("o da reforma").

The registry is a small fictitious one, imported from CSV files written here into a real
SQLite store.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest

from colmeia.apps.assistant.case_search import search_cases
from colmeia.apps.assistant.dispatch import Dispatcher
from colmeia.apps.assistant.registry_io import import_registry
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry

TODAY = dt.date(2026, 11, 1)
PROCESSES = """number,filed_on,unit,case_class,subclass,rapporteur,status,location,subject,audited_body
TC/000101/2024,2024-02-01,Secex Educação,Representação,Contratação direta,Cons. Ana Prado,Em instrução,Secex Educação,Aquisição de uniformes escolares sem licitação,Prefeitura Municipal de Rio Claro
TC/000202/2023,2023-05-10,Secex Obras,Auditoria,Conformidade,Cons. Beto Lins,Aguardando defesa,Secex Obras,Reforma de escola estadual sem projeto básico,Prefeitura Municipal de Lagoa Seca
TC/000303/2022,2022-08-20,Secex Municípios,Denúncia,Contrato,Cons. Caio Reis,Arquivado,Arquivo Geral,Concessão do serviço de coleta de lixo,Câmara Municipal de Serra Alta
"""
PARTIES = """number,name,role
TC/000101/2024,Confecções Aurora Ltda.,Responsável
TC/000202/2023,Construtora Pedra Azul Ltda.,Responsável
TC/000303/2022,Limpamais Serviços Urbanos S.A.,Responsável
"""


def _imported(tmp_path: Path, processes: str) -> SQLiteCaseRegistry:
    folder = tmp_path / "csv"
    folder.mkdir()
    (folder / "processes.csv").write_text(processes, encoding="utf-8")
    (folder / "parties.csv").write_text(PARTIES, encoding="utf-8")
    registry = SQLiteCaseRegistry(tmp_path / "registry.db")
    assert import_registry(registry, [folder]).problems == []
    return registry


@pytest.fixture
def small(tmp_path: Path) -> Iterator[SQLiteCaseRegistry]:
    registry = _imported(tmp_path, PROCESSES)
    yield registry
    registry.close_sync()


def test_a_party_described_with_words_no_case_uses_is_found_by_the_word_that_is(
    small: SQLiteCaseRegistry,
) -> None:
    # "firma" and "roupa" are nowhere in the registry ("Confecções"): "aurora" decides
    found = asyncio.run(
        search_cases(
            small, "nao sei o numero, tem uma firma de roupa aurora que e parte nele", loose=True
        )
    )
    assert (found["status"], found["number"]) == ("found", "TC/000101/2024")
    # read strictly (not known to be a search for a case), two thirds of all words must match
    strict = asyncio.run(search_cases(small, "tem uma firma de roupa aurora que e parte nele"))
    assert (strict["status"], strict["cases"]) == ("search", [])


def test_a_subject_said_loosely_lists_the_cases_that_hold_it(small: SQLiteCaseRegistry) -> None:
    # "tratam" is another form of nothing the registry holds; "escola" is in two subjects
    found = asyncio.run(
        search_cases(small, "quais processos tratam de coisa de escola?", loose=True)
    )
    assert found["status"] == "search"
    assert [c["number"] for c in found["cases"]] == ["TC/000101/2024", "TC/000202/2023"]


def test_a_description_of_words_the_registry_never_uses_finds_nothing(
    small: SQLiteCaseRegistry,
) -> None:
    found = asyncio.run(search_cases(small, "o processo da ponte de xinguara", loose=True))
    assert (found["status"], found["total"], found["cases"]) == ("search", 0, [])
    # one known word among many unknown ones is too little to name a case
    weak = asyncio.run(
        search_cases(small, "a ponte velha do rio que caiu na enchente de 2020", loose=True)
    )
    assert weak["status"] == "search" and weak["cases"] == []


def test_a_reply_to_the_list_picks_the_case_it_describes(small: SQLiteCaseRegistry) -> None:
    dispatcher = Dispatcher(small, rag=None, today=TODAY)
    pending = {"options": ["TC/000101/2024", "TC/000202/2023"], "aspect": "status"}
    picked = asyncio.run(dispatcher.reply("o da reforma", pending, []))
    assert picked.kind == "answer" and picked.answer is not None
    assert [f["number"] for f in picked.answer["facts"]] == ["TC/000202/2023"]
    assert "Aguardando defesa" in picked.answer["text"]
    # words both listed cases hold do not pick one: the list is asked again or read anew
    both = asyncio.run(dispatcher.reply("o da escola", pending, []))
    assert not (both.kind == "answer" and both.answer and both.answer.get("facts"))


def test_a_common_word_left_alone_by_unknown_ones_names_no_case(tmp_path: Path) -> None:
    # six bridge cases: "a ponte de <a town the registry does not hold>" is none of them
    towns = ["Alfa", "Beta", "Gama", "Delta", "Épsilon", "Zeta"]
    rows = "".join(
        f"TC/00{500 + i}/2025,2025-01-0{i + 1},Secex Obras,Auditoria,Obra,Cons. Ana Prado,"
        f"Em instrução,Secex Obras,Reforma da ponte,Prefeitura Municipal de {town}\n"
        for i, town in enumerate(towns)
    )
    registry = _imported(tmp_path, PROCESSES + rows)
    try:
        found = asyncio.run(
            search_cases(registry, "é sobre a ponte de atlantida submersa", loose=True)
        )
        assert (found["status"], found["cases"]) == ("search", [])
        # the town it holds is found with it
        beta = asyncio.run(search_cases(registry, "é sobre a ponte de beta", loose=True))
        assert (beta["status"], beta["number"]) == ("found", "TC/000501/2025")
    finally:
        registry.close_sync()
