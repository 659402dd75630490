"""Turns the thirteenth and fourteenth blind sets (issue 31, development sets after their
frozen readings) found wrong, on a registry of this test's own:

* a pick from a list by the year of the accounts it names ("o das contas de 2023"), when
  another listed case's number is of that year: the reply's words say which; a year inside a
  number of the subject ("Pregão nº 14/2023") is no year the case is about;
* a question read unsure as a search, whose words the registry finds no case for, in a thread
  about a case, is about that case — not "Não encontrei…";
* a question that points at "the" case ("no processo") is about the thread's case, though its
  words name another case of the registry;
* of two cases typed in one message, the one asked of by its place ("como tá o primeiro?")
  is the thread's case after it ("e o outro?" is the second), and "desse segundo" counts the
  typed order;
* what a case's situation means is told with the case, not law passages;
* how a paper reaches the court ("pode ser protocolada eletronicamente ou só no balcão?") is
  answered from the court's file, though the thread's case has a defence in its movements.

Offline, the shipped laws and the Constitution, a real SQLite registry."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from assistant_helpers import AS_OF
from blind_registry_helpers import shown_cases

from colmeia.apps.assistant.registry_records import Movement, Party, Process, RegistryBatch
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.apps.assistant.session import Assistant, open_assistant
from colmeia.store import Store

MEALS = "TC/000377/2023"
ACCOUNTS = "TC/000512/2024"
BUS = "TC/000610/2025"


def _registry(path: Path) -> SQLiteCaseRegistry:
    reg = SQLiteCaseRegistry(path)
    reg.write(
        RegistryBatch(
            processes=[
                Process(
                    MEALS, "2023-03-02", "Diretoria de Contratações", "Denúncia",
                    "Licitação", "Cons. Helena Barros", "Em instrução",
                    "Diretoria de Contratações",
                    "Denúncia de sobrepreço na merenda escolar (Pregão nº 14/2023)",
                    "Prefeitura Municipal de Quixadá",
                ),
                Process(
                    ACCOUNTS, "2024-04-10", "Diretoria de Contas Municipais",
                    "Prestação de Contas Anual", "Contas de governo", "Cons. Otávio Lins",
                    "Aguardando parecer do MPC", "Ministério Público de Contas",
                    "Prestação de contas anual de governo do Município de Quixadá, exercício "
                    "de 2023",
                    "Prefeitura Municipal de Quixadá",
                ),
                Process(
                    BUS, "2025-06-02", "Diretoria de Contratações", "Denúncia",
                    "Transporte escolar", "Cons. Helena Barros", "Julgado",
                    "Secretaria das Sessões",
                    "Denúncia de superfaturamento no transporte escolar",
                    "Prefeitura Municipal de Russas",
                ),
            ],
            parties=[
                (MEALS, Party("Gervásio Tomé Aragão", "Responsável")),
                (ACCOUNTS, Party("Gervásio Tomé Aragão", "Responsável")),
                (BUS, Party("Viação Jaguaribe Ltda", "Responsável")),
            ],
            movements=[
                (MEALS, Movement(1, "2023-03-02", "Ouvidoria", "Diretoria de Contratações",
                                  "Autuação da denúncia", "Em instrução")),
                (ACCOUNTS, Movement(1, "2026-08-19", "Diretoria de Contas Municipais",
                                     "Ministério Público de Contas",
                                     "Remessa ao MPC para parecer", "Aguardando parecer do MPC")),
                (BUS, Movement(1, "2026-05-04", "Gabinete da Relatora", "Cartório",
                                "Citação do responsável para apresentação de defesa em 30 dias",
                                "Aguardando defesa")),
                (BUS, Movement(2, "2026-09-15", "Plenário", "Secretaria das Sessões",
                                "Julgado: contas irregulares e multa (Acórdão nº 731/2026)",
                                "Julgado")),
            ],
        )
    )  # fmt: skip
    return reg


@pytest.fixture
async def bot(blind_collection: Store, tmp_path: Path) -> AsyncIterator[Assistant]:
    registry = _registry(tmp_path / "registry.db")
    try:
        async with open_assistant(
            store=blind_collection, model=None, registry=registry, home=tmp_path, today=AS_OF
        ) as assistant:
            yield assistant
    finally:
        registry.close_sync()


async def test_the_accounts_of_a_year_are_picked_beside_a_case_numbered_that_year(
    bot: Assistant,
) -> None:
    listed = await bot.ask("t", "quais processos o prefeito gervasio tome aragao tem ai?")
    assert listed.status == "waiting_clarification"
    offered = {str(c["number"]) for f in listed.facts for c in f.get("cases") or []}
    assert offered == {MEALS, ACCOUNTS}
    picked = await bot.ask("t", "o das contas de 2023")
    assert shown_cases(picked) == [ACCOUNTS]


async def test_a_year_alone_still_picks_the_case_numbered_that_year(bot: Assistant) -> None:
    await bot.ask("t", "quais processos o prefeito gervasio tome aragao tem ai?")
    picked = await bot.ask("t", "o de 2023")
    assert shown_cases(picked) == [MEALS]


async def test_an_unsure_search_that_finds_nothing_is_the_threads_case(bot: Assistant) -> None:
    await bot.ask("t", "como esta o processo 610/2025?")
    asked = await bot.ask("t", "vc tem o numero do julgamento pra eu passar pros vizinhos?")
    assert shown_cases(asked) == [BUS]
    assert "731/2026" in asked.answer
    assert "Não encontrei" not in asked.answer


async def test_how_a_defence_is_filed_is_the_court_files_answer(bot: Assistant) -> None:
    await bot.ask("t", "processo 610/2025, ja teve defesa?")
    how = await bot.ask(
        "t", "por fim: a defesa pode ser protocolada eletronicamente ou somente no balcao?"
    )
    assert how.agent == "institutional"
    assert shown_cases(how) == []
    assert "peticionamento eletrônico" in how.answer


async def test_the_case_a_question_points_at_is_the_threads_though_another_is_named(
    bot: Assistant,
) -> None:
    # "no processo": the one the thread is about; the company named is asked about in it
    await bot.ask("t", "como estao as contas 512/2024?")
    asked = await bot.ask(
        "t",
        "e quem é o advogado q aparece no processo? nao lembro de ter contratado a viacao "
        "jaguaribe",
    )
    assert shown_cases(asked) == [ACCOUNTS]


async def test_what_a_cases_situation_means_is_told_with_the_case(bot: Assistant) -> None:
    # no article of the collection defines the court's situations: the case's answer says it
    await bot.ask("t", "como estao as contas 512/2024?")
    told = await bot.ask("t", "e o que quer dizer isso? ta esperando o que?")
    assert shown_cases(told) == [ACCOUNTS]
    assert told.citations == []
    assert "Ministério Público de Contas, que dá um parecer" in told.answer
    # a situation named is explained whatever the case's own (BUS is judged)
    named = await bot.ask("t", "e o que é diligencia? desde quando o 610/2025 ta assim?")
    assert shown_cases(named) == [BUS]
    assert "aguarda a resposta para continuar a análise" in named.answer
    assert named.citations == []


async def test_how_papers_reach_the_case_is_the_court_files_answer(bot: Assistant) -> None:
    await bot.ask("t", "como ta o processo 377/2023?")
    how = await bot.ask("t", "se eu tiver mais provas como eu anexo documento nesse processo?")
    assert how.agent == "institutional"
    assert shown_cases(how) == []
    assert "peticionamento eletrônico" in how.answer


async def test_of_two_cases_typed_the_one_asked_by_its_place_leads_the_thread(
    bot: Assistant,
) -> None:
    first = await bot.ask("t", "tenho dois processos: o 377/2023 e o 610/2025. como ta o primeiro?")
    assert MEALS in shown_cases(first)
    other = await bot.ask("t", "e o outro?")
    assert shown_cases(other) == [BUS]
    back = await bot.ask("t", "e do primeiro?")
    assert shown_cases(back) == [MEALS]
    # "desse segundo" counts the order they were typed in, not the one just talked about
    second = await bot.ask("t", "quem é o relator desse segundo?")
    assert shown_cases(second) == [BUS]
    assert "Helena Barros" in second.answer
