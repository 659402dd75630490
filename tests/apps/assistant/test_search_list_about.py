"""A case found by description (issue 31, round 3): the list offered holds the cases that are
about what was described, not those that share a word with it only through a party's name or
the technical unit — so "o de 2020" picks the one case of that year the person meant, and a
year still shared by two cases about the description is asked about."""

from __future__ import annotations

from pathlib import Path

from assistant_helpers import AS_OF

from colmeia.apps.assistant.case_search import search_cases
from colmeia.apps.assistant.dispatch import Dispatcher
from colmeia.apps.assistant.registry_records import Party, Process, RegistryBatch
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry

TOWN = "Prefeitura Municipal de Guaraciaba do Oeste"


def _process(number: str, subject: str, unit: str = "Secretaria de Controle Externo") -> Process:
    year = number.rsplit("/", 1)[1]
    return Process(
        number, f"{year}-03-01", unit, "Representação", "", "Cons. Ana Prado", "Em instrução",
        unit, f"{subject} — {TOWN}", TOWN,
    )  # fmt: skip


def _registry(path: Path) -> SQLiteCaseRegistry:
    reg = SQLiteCaseRegistry(path)
    batch = RegistryBatch(
        processes=[
            _process("TC/000923/2023", "Superfaturamento na aquisição de medicamentos"),
            _process("TC/000354/2020", "Superfaturamento na aquisição de medicamentos"),
            # school meals, whose party's name shares "médicos" with "medicamentos" (one stem)
            _process("TC/000053/2020", "Irregularidades no convênio de merenda escolar"),
            _process("TC/000777/2020", "Atraso na obra da creche municipal"),
        ],
        parties=[("TC/000053/2020", Party("Serviços Médicos Teixeira Ltda", "Responsável"))],
    )
    reg.write(batch)
    return reg


async def test_the_list_holds_the_cases_about_the_description(tmp_path: Path) -> None:
    reg = _registry(tmp_path / "r.db")
    try:
        found = await search_cases(reg, "compra de medicamentos em Guaraciaba do Oeste", loose=True)
        # Red before: the school-meals case held as many words (through its party) and was
        # listed beside the two about medicines.
        assert [c["number"] for c in found["cases"]] == ["TC/000923/2023", "TC/000354/2020"]
        pick = await Dispatcher(reg, rag=None, today=AS_OF).reply(
            "é o de 2020", {"options": [c["number"] for c in found["cases"]]}, []
        )
        assert pick.kind == "answer" and pick.answer is not None
        assert pick.answer["facts"][0]["number"] == "TC/000354/2020"
    finally:
        reg.close_sync()


async def test_a_year_shared_by_two_cases_about_the_description_is_asked(tmp_path: Path) -> None:
    reg = _registry(tmp_path / "r.db")
    try:
        found = await search_cases(reg, "processos de guaraciaba do oeste", loose=True)
        listed = [c["number"] for c in found["cases"]]
        assert len(listed) == 4  # the town is what every case is about
        ask = await Dispatcher(reg, rag=None, today=AS_OF).reply(
            "o de 2020", {"options": listed}, []
        )
        assert ask.kind == "ask"
        assert set(ask.options) == {"TC/000354/2020", "TC/000053/2020", "TC/000777/2020"}
    finally:
        reg.close_sync()
