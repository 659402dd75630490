"""Case turns the eighth blind set (issue 31) found wrong:

* a case described without its number ("e o parecer das contas de 2021 de cachoeira do sul já
  saiu?") that fits a few cases is offered as a list to pick from, not answered "de qual
  processo?" as if nothing had been said of it;
* a year the person described the case by picks the one listed case whose description holds
  it;
* an unsure law reading whose words name an event of the thread's case is the case's;
* cases asked for in the plural are listed, and a reply picks the one it says what it is about;
* two cases typed in one message each get what their own clause asks.

Offline, the small fictitious registry of ``data/registry_para`` imported from CSV into a real
SQLite store."""

from __future__ import annotations

from pathlib import Path

from assistant_helpers import AS_OF
from registry_sets_helpers import para_registry

from colmeia.apps.assistant.dispatch import Dispatcher
from colmeia.apps.assistant.frame import TurnFrame, read_frame
from colmeia.apps.assistant.registry_records import Party, Process, RegistryBatch
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry


def _frame(text: str) -> TurnFrame:
    # read as a case question about the documents, as the classifier read the blind set's
    frame = TurnFrame(text, "case", "status", 0.84, about_a_case=True)
    frame.read_as = "case"
    return frame


async def test_a_description_that_fits_a_few_cases_offers_them(tmp_path: Path) -> None:
    registry = para_registry(tmp_path)
    try:
        dispatcher = Dispatcher(registry, rag=None, today=AS_OF)
        asked = await dispatcher.decide(
            _frame("e as contas do conselheiro otavio brandao ja saiu?"), []
        )
        assert asked.kind == "ask"
        assert set(asked.options) >= {"TC/004506/2021", "TC/011165/2022"}
        assert "Qual deles?" in asked.question
    finally:
        registry.close_sync()


def _two_years(path: Path) -> SQLiteCaseRegistry:
    town = "Prefeitura Municipal de Cachoeira do Sul"
    reg = SQLiteCaseRegistry(path)
    reg.write(
        RegistryBatch(
            processes=[
                Process(
                    f"TC/00{n}/{year + 1}", f"{year + 1}-03-01", "Serviço de Auditoria",
                    "Prestação de Contas", "", "Cons. Ana Prado", status, "Serviço de Auditoria",
                    f"Contas de governo do exercício de {year} — Cachoeira do Sul", town,
                )
                for n, year, status in (("1742", 2021, "Julgado"), ("2950", 2022, "Em instrução"))
            ]
        )
    )  # fmt: skip
    return reg


async def test_the_year_described_picks_the_listed_case_it_belongs_to(tmp_path: Path) -> None:
    registry = _two_years(tmp_path / "r.db")
    try:
        dispatcher = Dispatcher(registry, rag=None, today=AS_OF)
        picked = await dispatcher.decide(
            _frame("e o parecer das contas de 2021 de cachoeira do sul ja saiu?"), []
        )
        # both cases are about Cachoeira do Sul's accounts; the year said which
        assert picked.answer is not None, picked
        assert [f["number"] for f in picked.answer["facts"]] == ["TC/001742/2022"]
    finally:
        registry.close_sync()


async def test_an_unsure_law_reading_that_names_the_threads_case_event_is_the_case(
    tmp_path: Path,
) -> None:
    """ "e o parecer do ministério público de contas, qual número?" after a case (and a law
    article) was searched in the laws; its words name an event the case's rows record."""
    registry = para_registry(tmp_path)
    try:
        dispatcher = Dispatcher(registry, rag=None, today=AS_OF)
        thread = ["TC/004506/2023"]
        text = "e o parecer do ministerio publico, qual a data?"
        asked = await dispatcher.decide(TurnFrame(text, "law", "status", 0.43), thread, ["CF/88"])
        assert asked.answer is not None, asked
        assert [f["number"] for f in asked.answer["facts"]] == thread
        assert "Parecer do Ministério Público de Contas" in asked.answer["text"]
        # a law question whose words name none of the case's events stays the law's
        law = await dispatcher.decide(
            TurnFrame("e quem pode recorrer?", "law", "status", 0.5), thread, ["CF/88"]
        )
        assert law.kind == "law"
    finally:
        registry.close_sync()


def _town(path: Path) -> SQLiteCaseRegistry:
    """Two cases of one town: the town hall's accounts (the council an interested party) and
    the council's own per-diem case."""
    hall, council = (
        "Prefeitura Municipal de Cachoeira do Sul",
        "Câmara Municipal de Cachoeira do Sul",
    )
    reg = SQLiteCaseRegistry(path)
    reg.write(
        RegistryBatch(
            processes=[
                Process("TC/001742/2022", "2022-03-14", "Auditoria", "Prestação de Contas", "",
                        "Cons. Ana Prado", "Julgado", "Auditoria",
                        "Contas de governo do Município de Cachoeira do Sul", hall),
                Process("TC/002210/2019", "2019-06-11", "Auditoria", "Tomada de Contas Especial",
                        "", "Cons. Beto Lins", "Arquivado", "Arquivo Geral",
                        "Diárias pagas a vereadores sem comprovação", council),
            ],
            parties=[("TC/001742/2022", Party(council, "Interessado"))],
        )
    )  # fmt: skip
    return reg


async def test_cases_asked_in_the_plural_are_listed_and_one_is_picked_by_what_it_is_about(
    tmp_path: Path,
) -> None:
    """ "quais processos vcs tem sobre o municipio?" named the town hall's case alone (it holds
    "municipal" too); the person asked for cases: both are listed. "o da camara" then picks
    the case about the câmara, not the one where the câmara is an interested party."""
    registry = _town(tmp_path / "r.db")
    try:
        dispatcher = Dispatcher(registry, rag=None, today=AS_OF)
        text = "sou jornalista de cachoeira do sul. quais processos vcs tem sobre o municipio?"
        listed = await dispatcher.decide(TurnFrame(text, "find", "status", 0.98), [])
        assert listed.kind == "ask", listed
        assert set(listed.options) == {"TC/001742/2022", "TC/002210/2019"}
        picked = await dispatcher.reply("o da camara", {"options": listed.options}, [])
        assert picked.answer is not None, picked
        assert [f["number"] for f in picked.answer["facts"]] == ["TC/002210/2019"]
    finally:
        registry.close_sync()


async def test_two_cases_in_one_message_each_get_what_their_clause_asks(tmp_path: Path) -> None:
    registry = para_registry(tmp_path)
    try:
        dispatcher = Dispatcher(registry, rag=None, today=AS_OF)
        text = "quem é o relator do 4506/2023 e quais as partes do 11165/2022?"
        both = await dispatcher.decide(read_frame(text), [])
        assert both.answer is not None, both
        answer = both.answer["text"]
        # the rapporteur of the first, the parties of the second — not both of one kind
        assert "TC/004506/2023 — Relator: Conselheira Márcia Nogueira de Araújo" in answer
        assert "Partes do processo TC/011165/2022" in answer
    finally:
        registry.close_sync()
