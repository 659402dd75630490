"""A small registry of this folder's own for the blind-set rounds' tests (issue 31): four cases
of towns, parties and subjects no conversation set uses — a school-bus denúncia whose last
movement states a 30-day deadline, a judged special audit and a council's accounts of one
town, and an audit of temporary hires."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from assistant_helpers import AS_OF

from colmeia.apps.assistant.registry_records import Movement, Party, Process, RegistryBatch
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.apps.assistant.session import Assistant, TurnResult, open_assistant
from colmeia.rag.index.embedders import Embedder
from colmeia.rag.pipeline import ingest
from colmeia.store import Store, open_store
from shared_data import DATA_DIR

SCHOOL_BUS = "TC/000610/2025"
CLINICS = "TC/000733/2022"
COUNCIL = "TC/000812/2024"
TEACHERS = "TC/000955/2025"


def blind_registry(path: Path) -> SQLiteCaseRegistry:
    reg = SQLiteCaseRegistry(path)
    reg.write(
        RegistryBatch(
            processes=[
                Process(
                    SCHOOL_BUS, "2025-06-02", "Diretoria de Contratações", "Denúncia",
                    "Transporte escolar", "Cons. Helena Barros", "Aguardando defesa",
                    "Gerência de Comunicações",
                    "Denúncia de superfaturamento na contratação de transporte escolar por "
                    "locação de veículos",
                    "Prefeitura Municipal de Sobral",
                ),
                Process(
                    CLINICS, "2022-03-10", "Diretoria de Obras", "Tomada de Contas Especial",
                    "Convênio", "Cons. Otávio Lins", "Julgado", "Gerência de Decisões",
                    "Tomada de contas especial da reforma de unidades básicas de saúde",
                    "Prefeitura Municipal de Tauá",
                ),
                Process(
                    COUNCIL, "2024-04-15", "Diretoria de Contas Municipais",
                    "Prestação de Contas Anual", "Exercício 2023", "Cons. Otávio Lins",
                    "Em instrução", "Diretoria de Contas Municipais",
                    "Prestação de contas do Presidente da Câmara, exercício 2023",
                    "Câmara Municipal de Tauá",
                ),
                Process(
                    TEACHERS, "2025-02-20", "Diretoria de Pessoal", "Auditoria",
                    "Admissões", "Cons. Helena Barros", "Em instrução", "Diretoria de Pessoal",
                    "Auditoria das contratações temporárias de professores",
                    "Prefeitura Municipal de Canindé",
                ),
            ],
            parties=[
                (SCHOOL_BUS, Party("Viação Vale do Acaraú Ltda", "Responsável")),
                (SCHOOL_BUS, Party("Rui Teixeira Mota", "Denunciante")),
                (CLINICS, Party("Construtora Serra Grande Ltda", "Responsável")),
                (COUNCIL, Party("Câmara Municipal de Tauá", "Interessado")),
                (TEACHERS, Party("Marta Sales Pinho", "Responsável")),
            ],
            movements=[
                (SCHOOL_BUS, Movement(1, "2025-06-02", "Ouvidoria", "Diretoria de Contratações",
                                       "Autuação da denúncia recebida pela Ouvidoria",
                                       "Em instrução")),
                (SCHOOL_BUS, Movement(2, "2026-10-14", "Gabinete da Relatora",
                                       "Gerência de Comunicações",
                                       "Citação dos responsáveis com prazo de 30 dias para "
                                       "apresentação de defesa", "Aguardando defesa")),
                (CLINICS, Movement(1, "2024-09-03", "Plenário", "Gerência de Decisões",
                                    "Acórdão com imputação de débito", "Julgado")),
                (COUNCIL, Movement(1, "2025-05-27", "Gabinete do Relator",
                                    "Diretoria de Contas Municipais",
                                    "Retorno para instrução", "Em instrução")),
                (TEACHERS, Movement(1, "2025-02-20", "Protocolo", "Diretoria de Pessoal",
                                     "Autuação da auditoria", "Em instrução")),
            ],
        )
    )  # fmt: skip
    return reg


def readme_collection(folder: Path, embedder: Embedder | None = None) -> Store:
    """The collection the README builds — the federal laws and the Constitution — in
    ``folder`` (lexical, or with ``embedder``'s vectors)."""
    store = open_store(f"sqlite:///{folder / 'docs.db'}")
    laws = DATA_DIR / "laws"
    ingest(store, "leis", [laws / "lexml", laws / "constituicao" / "lexml"], embedder=embedder)
    return store


@asynccontextmanager
async def blind_assistant(
    store: Store, folder: Path, embedder: Embedder | None = None
) -> AsyncIterator[Assistant]:
    """The assistant offline on ``store`` and this module's registry (in ``folder``)."""
    registry = blind_registry(folder / "registry.db")
    try:
        async with open_assistant(
            store=store, model=None, registry=registry, home=folder, today=AS_OF, embedder=embedder
        ) as assistant:
            yield assistant
    finally:
        registry.close_sync()


def shown_cases(result: TurnResult) -> list[str]:
    """The cases whose facts a turn shows."""
    return [str(f["number"]) for f in result.facts if f.get("status") == "found"]


SETS = Path(__file__).resolve().parents[3] / "src" / "colmeia" / "apps" / "assistant" / "data"


@asynccontextmanager
async def set_assistant(store: Store, folder: Path, blind_set: str) -> AsyncIterator[Assistant]:
    """The assistant offline on ``store`` and the registry of a blind set that is a
    development set now (``independent18``…), imported whole into ``folder``."""
    from colmeia.apps.assistant.registry_io import import_registry

    registry = SQLiteCaseRegistry(folder / "registry.db")
    assert not import_registry(registry, [SETS / blind_set / "registry"]).problems
    try:
        async with open_assistant(
            store=store, model=None, registry=registry, home=folder, today=AS_OF
        ) as assistant:
            yield assistant
    finally:
        registry.close_sync()
