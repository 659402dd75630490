"""What people ask about one case — when it was judged or archived, which documents it has,
where it is and since when, who reports it, its deadlines — answered from the registry's
movements and documents, saying so when the registry holds no answer.

The registry is the small fictitious one in ``data/registry_para``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from registry_sets_helpers import PARA_AS_OF, para_registry

from colmeia.apps.assistant.case_aspects import ASPECTS, case_aspect, normalize_aspect
from colmeia.apps.assistant.ids import parse_case_id
from colmeia.apps.assistant.registry_records import CaseDocument, Movement, Process, RegistryBatch
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry


@pytest.fixture
def para(tmp_path: Path) -> Iterator[SQLiteCaseRegistry]:
    reg = para_registry(tmp_path)
    yield reg
    reg.close_sync()


async def ask(reg: SQLiteCaseRegistry, case: str, aspect: str) -> str:
    return (await case_aspect(reg, case, aspect, today=PARA_AS_OF)).text


async def test_when_a_case_was_judged_is_the_judgment_movement(para: SQLiteCaseRegistry) -> None:
    answer = await case_aspect(para, parse_case_id("TC 4506/2023"), "julgamento", today=PARA_AS_OF)
    assert answer.text == (
        "O processo TC/004506/2023 foi julgado em 11/06/2024 (Julgado em sessão plenária)."
    )
    assert (answer.found, answer.aspect, [r["seq"] for r in answer.rows]) == (
        True,
        "julgamento",
        [6],
    )
    # an appeal after the judgment is part of the answer
    assert await ask(para, "777/2020", "judgment") == (
        "O processo TC/000777/2020 foi julgado em 30/06/2021 (Julgado em sessão plenária). "
        "Depois disso: 09/08/2021 — Recurso interposto pelo responsável (Gabinete do Relator)."
    )


async def test_no_judgment_recorded_is_said_with_where_the_case_stands(
    para: SQLiteCaseRegistry,
) -> None:
    assert await ask(para, "4506/2021", "julgamento") == (
        "Não consta julgamento do processo TC/004506/2021 no cadastro. Situação atual do "
        "processo TC/004506/2021: Em instrução; última movimentação: 10/05/2021 — Encaminhado "
        "para instrução técnica (Secretaria de Controle Externo da Saúde)."
    )
    # "arquivamento após trânsito em julgado" is an archiving, not the judgment
    assert "foi julgado" not in await ask(para, "123/2019", "julgamento")


async def test_when_a_case_was_archived(para: SQLiteCaseRegistry) -> None:
    assert await ask(para, "11165/2022", "arquivamento") == (
        "O processo TC/011165/2022 foi arquivado em 18/03/2024 "
        "(Arquivamento após trânsito em julgado)."
    )
    assert (await ask(para, "2210/2024", "arquivado")).startswith(
        "Não consta arquivamento do processo TC/002210/2024 no cadastro."
    )


async def test_the_documents_are_listed_oldest_first_with_dates_and_pages(
    para: SQLiteCaseRegistry,
) -> None:
    assert await ask(para, "4506/2023", "documentos") == (
        "Documentos do processo TC/004506/2023 no cadastro (4):\n"
        "- 14/03/2023 — Representação: Representação sobre a merenda escolar, 8 p.\n"
        "- 30/08/2023 — Instrução técnica: Relatório de instrução, 22 p.\n"
        "- 10/02/2024 — Parecer do MPC: Parecer do Ministério Público de Contas, 6 p.\n"
        "- 11/06/2024 — Acórdão: Acórdão do julgamento, 5 p."
    )
    # none on file: what the registry holds instead — the situation and the latest movement
    empty = await ask(para, "2211/2024", "documents")
    assert empty.startswith("O cadastro não lista documentos do processo TC/002211/2024. ")
    assert "Situação atual do processo TC/002211/2024: " in empty
    assert "última movimentação: " in empty


async def test_every_movement_newest_first(para: SQLiteCaseRegistry) -> None:
    text = await ask(para, "11165/2022", "movimentacoes")
    lines = text.splitlines()
    assert lines[0] == "Movimentações do processo TC/011165/2022 (da mais recente):"
    assert len(lines) == 6 and lines[1].startswith("- 18/03/2024 — Arquivamento")
    assert lines[-1] == "- 09/08/2022 — Autuação do processo (Protocolo Geral)"


async def test_where_and_since_when_and_a_contradicting_movement_flagged(
    para: SQLiteCaseRegistry,
) -> None:
    assert await ask(para, "2210/2024", "desde quando") == (
        "O processo TC/002210/2024 está em Secretaria de Controle Externo da Educação, desde "
        "15/04/2024 (há 930 dias). Situação atual: Aguardando defesa."
    )
    flagged = await ask(para, "812/2024", "localização")
    assert (
        "atenção: a última movimentação (15/07/2025) registra envio para Gabinete do Relator"
        in flagged
    )
    assert "20/02/2024" not in flagged  # never the filing date as a guess


async def test_rapporteur_parties_deadlines_and_audited_body(para: SQLiteCaseRegistry) -> None:
    assert await ask(para, "812/2024", "relator") == (
        "Processo TC/000812/2024 — Relator: Conselheira Márcia Nogueira de Araújo."
    )
    assert await ask(para, "11165/2022", "partes") == (
        "Partes do processo TC/011165/2022: Transportes Rio Itacaiúnas Ltda. (Interessada); "
        "Antônio Carlos Guimarães (Responsável)."
    )
    assert await ask(para, "2210/2024", "prazos") == (
        "O cadastro não registra prazos do processo TC/002210/2024. Situação atual: "
        "Aguardando defesa, desde 03/02/2025 (Citação dos responsáveis)."
    )
    assert await ask(para, "812/2024", "orgao") == (
        "Processo TC/000812/2024 — Órgão fiscalizado: Câmara Municipal de Santarém."
    )


async def test_a_case_not_in_the_registry_and_an_unknown_aspect(para: SQLiteCaseRegistry) -> None:
    missing = await case_aspect(para, "999/2023", "relator", today=PARA_AS_OF)
    assert not missing.found and missing.text.startswith(
        "Não encontrei o processo TC/000999/2023 no cadastro."
    )
    card = await case_aspect(para, "812/2024", "cor favorita", today=PARA_AS_OF)
    assert card.found and card.text.startswith("Processo TC/000812/2024 — Prestação de Contas")


def test_aspect_names_in_portuguese_and_english() -> None:
    assert [normalize_aspect(a) for a in ("rapporteur", "Localização", "desde quando")] == [
        "relator",
        "localizacao",
        "desde_quando",
    ]
    assert all(normalize_aspect(a) == a for a in ASPECTS)
    assert normalize_aspect("cor favorita") is None


async def test_a_long_history_is_read_whole(tmp_path: Path) -> None:
    """Seven documents (a lookup's card shows five), a case put on the agenda but not yet
    judged, and one judged twice (the first judgment is when it was judged)."""
    reg = SQLiteCaseRegistry(tmp_path / "r.db")
    base = dict(unit="Secex", case_class="Denúncia", subclass="", rapporteur="Cons. Ana Lima")
    reg.write(
        RegistryBatch(
            processes=[
                Process(
                    "TC/000001/2024",
                    "2024-01-02",
                    status="Em pauta",
                    location="Secretaria das Sessões",
                    **base,
                ),
                Process(
                    "TC/000002/2024",
                    "2024-01-03",
                    status="Julgado",
                    location="Secretaria das Sessões",
                    **base,
                ),
            ],
            movements=[
                (
                    "TC/000001/2024",
                    Movement(
                        1,
                        "2024-01-02",
                        "—",
                        "Secretaria das Sessões",
                        "Incluído em pauta de julgamento",
                        "Em pauta",
                    ),
                ),
                (
                    "TC/000002/2024",
                    Movement(
                        1,
                        "2024-03-01",
                        "—",
                        "Secretaria das Sessões",
                        "Julgado em sessão plenária",
                        "Julgado",
                    ),
                ),
                (
                    "TC/000002/2024",
                    Movement(
                        2,
                        "2024-09-01",
                        "Secretaria das Sessões",
                        "Secretaria das Sessões",
                        "Julgado o recurso em sessão plenária",
                        "Julgado",
                    ),
                ),
            ],
            documents=[
                ("TC/000001/2024", CaseDocument(i, "Despacho", f"Despacho {i}", f"2024-02-0{i}", 1))
                for i in range(1, 8)
            ],
        )
    )
    try:
        agenda = await ask(reg, "TC 1/2024", "julgamento")
        assert agenda.startswith(
            "Não consta julgamento do processo TC/000001/2024 no cadastro; ele foi incluído em "
            "pauta de julgamento em 02/01/2024."
        )
        assert (await ask(reg, "TC 2/2024", "julgamento")).startswith(
            "O processo TC/000002/2024 foi julgado em 01/03/2024"
        )
        docs = (await ask(reg, "TC 1/2024", "documentos")).splitlines()
        assert docs[0].endswith("(7):") and len(docs) == 8
    finally:
        reg.close_sync()
