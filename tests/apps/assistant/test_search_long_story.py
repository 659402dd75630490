"""A case told in a long story: most of the person's words are no case's, so only the words the
registry knows can say which case it is. One case holding all of them, and no other, is found;
words that several cases hold, or a single word the registry knows, name none."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from blind_registry_helpers import CLINICS, SCHOOL_BUS, blind_registry, shown_cases

from colmeia.apps.assistant.case_search import search_cases
from colmeia.apps.assistant.session import Assistant

TODAY = dt.date(2026, 11, 1)

VENTING = (
    "vcs do tribunal nao fazem NADA!!! a prefeitura de sobral paga um onibus escolar q nem "
    "passa na minha estrada, as crianca ficam sem aula e ninguem faz nada. tem processo disso?"
)


async def test_a_story_around_the_words_of_one_case_finds_that_case(tmp_path: Path) -> None:
    reg = blind_registry(tmp_path / "r.db")
    try:
        found = await search_cases(reg, VENTING, today=TODAY, loose=True, story=True)
        assert found["status"] == "found"
        assert found["number"] == SCHOOL_BUS
    finally:
        reg.close_sync()


async def test_the_story_is_no_search_for_a_case_unless_the_turn_was_read_as_one(
    tmp_path: Path,
) -> None:
    # a probe of the registry ("does this unsure message name a case?") is no search: a
    # story of how to file a denúncia about a town hall names none
    reg = blind_registry(tmp_path / "r.db")
    try:
        for loose in (False, True):
            found = await search_cases(reg, VENTING, today=TODAY, loose=loose)
            assert found["status"] == "search"
            assert found["cases"] == []
    finally:
        reg.close_sync()


async def test_words_every_town_hall_case_holds_name_no_case(tmp_path: Path) -> None:
    # "prefeitura" is in three cases: the story's other words cannot choose among them
    story = (
        "olha, a prefeitura daqui vive gastando mal, ninguem fiscaliza, o povo sofre, as ruas "
        "cheias de buraco, a gente paga imposto e nada muda. vcs tem algum processo?"
    )
    reg = blind_registry(tmp_path / "r.db")
    try:
        found = await search_cases(reg, story, today=TODAY, loose=True, story=True)
        assert found.get("number") is None
    finally:
        reg.close_sync()


async def test_a_lone_word_the_registry_knows_names_no_case(tmp_path: Path) -> None:
    # "saúde" alone among a story's words (CLINICS is about "unidades básicas de saúde")
    story = (
        "meu pai ficou tres dias esperando atendimento, a fila nao anda, ninguem explica nada, "
        "a saude aqui ta um caos. tem processo disso?"
    )
    reg = blind_registry(tmp_path / "r.db")
    try:
        found = await search_cases(reg, story, today=TODAY, loose=True, story=True)
        assert found.get("number") != CLINICS
    finally:
        reg.close_sync()


async def test_a_story_about_a_process_finds_it_and_how_to_file_one_does_not(
    blind_bot: Assistant,
) -> None:
    # read unsure (as the law's), the registry probed: a story about "um processo" is that
    # process; how to file a denúncia, or a right asked, tells no story about a case
    told = await blind_bot.ask(
        "a",
        "boa noite meu filho, eu nao entendo nada dessas coisa, minha vizinha falou que tem um "
        "processo ai no tribunal sobre o transporte das criança la de sobral, aqueles carro "
        "alugado. ta andando ou parou?",
    )
    assert shown_cases(told) == [SCHOOL_BUS]
    how = await blind_bot.ask(
        "b",
        "como faço pra denunciar a prefeitura da minha cidade, to vendo o prefeito gastar "
        "dinheiro com onibus escolar e as criança sem aula em sobral",
    )
    assert shown_cases(how) == []
    right = await blind_bot.ask(
        "c",
        "sou motorista de uma prefeitura aqui do interior. se eu dirigir o onibus escolar e a "
        "prefeitura nao pagar, eu posso cobrar?",
    )
    assert shown_cases(right) == []
