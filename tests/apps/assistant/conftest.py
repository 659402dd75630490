"""Fixtures for the assistant tests: the shipped laws ingested once, a synthetic registry per
test, a scripted simulated model that answers each agent by its role, and assistants."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
from assistant_helpers import AS_OF, LAWS, Roles

from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.apps.assistant.session import Assistant, open_assistant
from colmeia.apps.assistant.settings import AssistantSettings
from colmeia.apps.assistant.synthetic import generate_registry
from colmeia.llm import OpenAIChatModel
from colmeia.rag.pipeline import ingest
from colmeia.rag.retrieve import Retriever
from colmeia.sim.engine import SimulatedModel
from colmeia.sim.server import SimServer
from colmeia.store import Store, open_store


@pytest.fixture(scope="session")
def laws_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """The nine shipped federal laws, ingested once for the session (read-only)."""
    folder = tmp_path_factory.mktemp("laws")
    store = open_store(f"sqlite:///{folder / 'laws.db'}")
    ingest(store, "leis", [LAWS])
    Retriever(store, "leis").warm()
    yield store
    store.close()


@pytest.fixture(scope="session")
def registry_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("registry") / "registry.db"
    reg = SQLiteCaseRegistry(path)
    generate_registry(reg, processes=400, expedientes=100, as_of=AS_OF)
    reg.close_sync()
    return path


@pytest.fixture
def registry(registry_file: Path, tmp_path: Path) -> Iterator[SQLiteCaseRegistry]:
    """A fresh copy of the synthetic registry (tests may write subscriptions to it)."""
    path = tmp_path / "registry.db"
    shutil.copy(registry_file, path)
    reg = SQLiteCaseRegistry(path)
    yield reg
    reg.close_sync()


@pytest.fixture
async def scripted(
    sim_server: Callable[[SimulatedModel], SimServer],
) -> AsyncIterator[Callable[[Roles], OpenAIChatModel]]:
    """``scripted(Roles(...))``: a client of a simulated model answering by role."""
    made: list[OpenAIChatModel] = []

    def make(roles: Roles) -> OpenAIChatModel:
        srv = sim_server(SimulatedModel(responder=roles))
        model = OpenAIChatModel(
            base_url=srv.base_url,
            model="sim",
            max_retries=0,
            max_repairs=1,
            backoff_base=0.0,
            deadline=20.0,
            timeout=10.0,
        )
        made.append(model)
        return model

    yield make
    for model in made:
        await model.aclose()


@pytest.fixture
async def assistant(
    laws_store: Store, registry: SQLiteCaseRegistry, tmp_path: Path, request: Any
) -> AsyncIterator[Callable[..., Any]]:
    """``await assistant(model_or_None, **settings)``: an Assistant on the test's stores
    (a test marked ``agents_route`` routes its model turns by the agents)."""
    stack = AsyncExitStack()
    routing = "agents" if request.node.get_closest_marker("agents_route") else "frame"

    async def make(
        model: OpenAIChatModel | None = None,
        *,
        checkpoints: str = "memory://",
        web_search: Any = None,
        **settings: Any,
    ) -> Assistant:
        return await stack.enter_async_context(
            open_assistant(
                store=laws_store,
                model=model,
                registry=registry,
                checkpoints=checkpoints,
                web_search=web_search,
                settings=AssistantSettings(**{"routing": routing, **settings}),
                home=tmp_path,
                today=AS_OF,
            )
        )

    yield make
    await stack.aclose()


@pytest.fixture
async def para_bot(laws_store: Store, tmp_path: Path) -> AsyncIterator[Assistant]:
    """The assistant offline on the shipped laws and the small fictitious registry of
    ``data/registry_para`` (imported from its CSV files into a real SQLite store)."""
    from registry_sets_helpers import para_registry

    registry = para_registry(tmp_path)
    async with open_assistant(
        store=laws_store, model=None, registry=registry, home=tmp_path, today=AS_OF
    ) as bot:
        yield bot
    registry.close_sync()


@pytest.fixture(scope="session")
def blind_collection(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """The collection the README builds (the federal laws and the Constitution), lexical,
    for the blind-set rounds' tests (read-only)."""
    from blind_registry_helpers import readme_collection

    return readme_collection(tmp_path_factory.mktemp("readme-collection"))


@pytest.fixture
async def blind_bot(blind_collection: Store, tmp_path: Path) -> AsyncIterator[Assistant]:
    """The assistant offline on that collection and ``blind_registry_helpers``' registry."""
    from blind_registry_helpers import blind_assistant

    async with blind_assistant(blind_collection, tmp_path) as assistant:
        yield assistant


@pytest.fixture
async def on_set(blind_collection: Store, tmp_path: Path) -> AsyncIterator[Callable[[str], Any]]:
    """``await on_set("independent18")``: the assistant offline on the README's collection and
    that blind set's registry (a development set now), closed when the test ends."""
    from blind_registry_helpers import set_assistant

    async with AsyncExitStack() as stack:

        async def make(blind_set: str) -> Assistant:
            folder = tmp_path / blind_set
            folder.mkdir()
            return await stack.enter_async_context(
                set_assistant(blind_collection, folder, blind_set)
            )

        yield make
