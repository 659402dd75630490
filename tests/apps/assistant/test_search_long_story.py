"""A case told in a long story: most of the person's words are no case's, so only the words the
registry knows can say which case it is. One case holding all of them, and no other, is found;
words that several cases hold, or a single word the registry knows, name none."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from blind_registry_helpers import CLINICS, COUNCIL, SCHOOL_BUS, blind_registry, shown_cases

from colmeia.apps.assistant.case_search import search_cases
from colmeia.apps.assistant.registry_io import import_registry
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.apps.assistant.session import Assistant, open_assistant
from colmeia.store import Store

TODAY = dt.date(2026, 11, 1)
SETS = Path(__file__).resolve().parents[3] / "src" / "colmeia" / "apps" / "assistant" / "data"

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


async def test_a_case_asked_of_in_a_story_without_the_word_processo_is_found(
    blind_bot: Assistant,
) -> None:
    # read as a question about a case, with no number: the story's words the registry knows
    # ("contas", "2023", "câmara", "tauá") are one case's — that case, not "de qual processo?"
    told = await blind_bot.ask(
        "a",
        "boa tarde, sou jornalista de um blog aqui da regiao e queria saber se as contas de 2023 "
        "da camara de taua ja foram julgadas ou se ainda ta rolando",
    )
    assert shown_cases(told) == [COUNCIL]
    # nothing that names a case: which one is asked
    bare = await blind_bot.ask("b", "meu processo ja foi julgado?")
    assert shown_cases(bare) == []
    assert bare.status == "waiting_clarification"


async def test_a_reporters_question_about_a_town_halls_accounts_finds_them(
    blind_collection: Store, tmp_path: Path
) -> None:
    # the registry of independent18 (a development set): Patos's 2023 accounts are one case;
    # the reporter's other words ("portal", "rolando") are none of the registry's, so only a
    # search by the words it knows finds it — "de qual processo?" did not help anyone
    registry = SQLiteCaseRegistry(tmp_path / "pb.db")
    assert not import_registry(registry, [SETS / "independent18" / "registry"]).problems
    try:
        async with open_assistant(
            store=blind_collection, model=None, registry=registry, home=tmp_path, today=TODAY
        ) as bot:
            told = await bot.ask(
                "a",
                "boa tarde. sou jornalista de um portal aqui de patos e queria saber se as "
                "contas de 2023 da prefeitura de patos ja foram julgadas pelo tce ou se ainda "
                "ta rolando",
            )
            assert shown_cases(told) == ["TC/003517/2024"]
            assert "Aguardando parecer do MPC" in told.answer
    finally:
        registry.close_sync()
