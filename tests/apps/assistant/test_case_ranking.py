"""The registry search finds what a person describes: one BM25 ranking over subject, audited
body, technical unit, class, rapporteur and parties, accents folded, Portuguese stems, the
person's filler dropped and no cut of common words; one clear winner is its card, several a
short list, none is said.

The registry is the small fictitious one in ``data/registry_para``: four cases about school
meals ("merenda escolar") in four towns, one of them Ananindeua.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from registry_sets_helpers import PARA_AS_OF, para_registry

from colmeia.apps.assistant.case_cards import case_card
from colmeia.apps.assistant.case_index import CaseIndex, query_terms, tokens
from colmeia.apps.assistant.case_search import search_cases
from colmeia.apps.assistant.registry_http import RegistryServer
from colmeia.apps.assistant.registry_records import Process, RegistryBatch
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.apps.assistant.registry_url import open_registry

MERENDA = ["TC/002211/2024", "TC/002210/2024", "TC/012345/2023", "TC/004506/2023"]


@pytest.fixture
def para(tmp_path: Path) -> Iterator[SQLiteCaseRegistry]:
    reg = para_registry(tmp_path)
    yield reg
    reg.close_sync()


def test_words_are_folded_and_stemmed_and_filler_is_dropped() -> None:
    assert tokens("Aposentadorias em MARABÁ") == tokens("aposentadoria maraba")
    assert query_terms("não sei o número mas é sobre a merenda, parte nele") == tokens("merenda")
    assert query_terms("processo 4506 de 2023") == []  # numbers are references, read apart


def test_what_is_asked_of_a_cases_state_is_not_part_of_its_description() -> None:
    # "julgado", "parado", "em tramitação" ask how the case stands; the index holds no status
    asked = "o processo da merenda de ananindeua ja foi julgado? ta parado? em tramitacao?"
    assert query_terms(asked) == tokens("merenda ananindeua")
    # matched as typed, not by stem: "Arquivo Público", an audited body, is a description
    assert query_terms("o caso do arquivo publico ja foi arquivado?") == tokens("arquivo publico")


async def test_a_description_asked_with_its_state_finds_its_one_case(
    para: SQLiteCaseRegistry,
) -> None:
    found = await search_cases(
        para, "a merenda escolar de ananindeua ja foi julgada?", today=PARA_AS_OF, loose=True
    )
    assert (found["status"], found.get("number")) == ("found", "TC/004506/2023")


def test_the_rarest_word_decides_and_no_common_word_is_cut() -> None:
    docs = [(f"c{i}", f"merenda escolar em Cidade{i}") for i in range(600)]
    docs.append(("ananindeua", "merenda escolar Prefeitura Municipal de Ananindeua"))
    hits = CaseIndex(docs).rank("merenda escolar em Ananindeua")
    assert hits[0].key == "ananindeua" and hits[0].matched == 3
    assert len(hits) == 601  # every case holding a word is ranked, not the first 500


async def test_a_three_word_description_finds_its_one_case(para: SQLiteCaseRegistry) -> None:
    found = await search_cases(para, "merenda escolar em Ananindeua", today=PARA_AS_OF)
    assert (found["status"], found["number"]) == ("found", "TC/004506/2023")
    # the expediente answering a diligence in that case is part of it, not a second pick
    assert "Órgão fiscalizado: Prefeitura Municipal de Ananindeua" in case_card(found)


async def test_filler_and_missing_accents_do_not_hide_the_case(para: SQLiteCaseRegistry) -> None:
    for typed in (
        "nao sei o numero mas e sobre a merenda de ananindeua",
        "processo da pavimentacao em sao joao do araguaia",
        "aposentadoria do jose conceicao sa",
    ):
        found = await search_cases(para, typed, today=PARA_AS_OF)
        assert found["status"] == "found", typed
    found = await search_cases(para, "pavimentacao em sao joao do araguaia", today=PARA_AS_OF)
    assert found["number"] == "TC/000777/2020"


async def test_the_audited_body_is_searched(para: SQLiteCaseRegistry) -> None:
    found = await search_cases(para, "camara de santarem", today=PARA_AS_OF)
    assert (found["status"], found["number"]) == ("found", "TC/000812/2024")


async def test_several_equally_good_cases_come_as_a_short_list_newest_first(
    para: SQLiteCaseRegistry,
) -> None:
    found = await search_cases(para, "merenda escolar", today=PARA_AS_OF)
    assert (found["status"], found["total"]) == ("search", 4)
    assert [c["number"] for c in found["cases"]] == MERENDA
    assert case_card(found).startswith("Encontrei 4 casos no cadastro sobre “merenda escolar”:")


async def test_a_description_the_registry_does_not_hold_is_said(
    para: SQLiteCaseRegistry,
) -> None:
    found = await search_cases(para, "restaurante japones em belem do para", today=PARA_AS_OF)
    assert (found["status"], found["total"], found["cases"]) == ("search", 0, [])
    assert case_card(found).startswith("Não encontrei no cadastro nenhum processo")


async def test_the_http_registry_ranks_as_the_sqlite_one(para: SQLiteCaseRegistry) -> None:
    with RegistryServer(para) as server:
        remote = open_registry(server.url)
        try:
            for typed in ("merenda escolar em Ananindeua", "merenda escolar", "futebol"):
                here = await search_cases(para, typed, today=PARA_AS_OF)
                there = await search_cases(remote, typed, today=PARA_AS_OF)
                assert there == here, typed
        finally:
            await remote.close()


async def test_the_ranking_follows_a_registry_written_after_it_was_built(
    para: SQLiteCaseRegistry,
) -> None:
    before = {c.number for c in (await para.find("Ananindeua"))[1]}
    assert before == {"TC/004506/2023", "EXP-2024-00123"}
    other = SQLiteCaseRegistry(para.path)  # another connection writes (an import elsewhere)
    other.write(
        RegistryBatch(
            processes=[
                Process(
                    "TC/000001/2025",
                    "2025-01-02",
                    "Secex",
                    "Denúncia",
                    "",
                    "Cons. X",
                    "Autuado",
                    "Protocolo Geral",
                    "Obra parada",
                    "Prefeitura Municipal de Ananindeua",
                )
            ]
        )
    )
    other.close_sync()
    total, cases = await para.find("Ananindeua")
    assert total == 3 and {c.number for c in cases} == {*before, "TC/000001/2025"}
