"""Fixtures for the assistant tests: the shipped laws ingested once, a synthetic registry per
test, a scripted simulated model that answers each agent by its role, and assistants."""

from __future__ import annotations

import datetime as dt
import re
import shutil
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest

from colmeia.apps.assistant.registry import SQLiteCaseRegistry
from colmeia.apps.assistant.session import Assistant, open_assistant
from colmeia.apps.assistant.settings import AssistantSettings
from colmeia.apps.assistant.synthetic import generate_registry
from colmeia.llm import OpenAIChatModel
from colmeia.rag.pipeline import ingest
from colmeia.rag.retrieve import Retriever
from colmeia.sim.engine import Reply, SimRequest, SimulatedModel
from colmeia.sim.server import SimServer
from colmeia.store import Store, open_store
from shared_data import DATA_DIR

AS_OF = dt.date(2026, 11, 1)
LAWS = DATA_DIR / "laws" / "lexml"


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


def role_of(req: SimRequest) -> str:
    """Which agent (or RAG step) a request to the model comes from."""
    names = set(req.tool_names)
    if "transfer_to_main" in names:
        return "search"
    if "ask_user" in names:
        return "main"
    props = (req.schema or {}).get("properties", {})
    if "citations" in props:
        return "answer"
    if "query" in props:
        return "rewrite"
    return "other"


def call(name: str, **arguments: Any) -> Reply:
    """A reply calling one tool."""
    return Reply(tool_calls=[{"name": name, "arguments": arguments}])


def calls(*items: tuple[str, dict[str, Any]]) -> Reply:
    """A reply calling several tools in parallel."""
    return Reply(tool_calls=[{"name": n, "arguments": a} for n, a in items])


_PASSAGE = re.compile(r"^\[(P\d+)\] (.+?)\n(.+?)(?=\n\n\[P\d+\]|\n*\Z)", re.S | re.M)


def passages(req: SimRequest) -> dict[str, tuple[str, str]]:
    """The numbered passages of a RAG generation request: id → (source, text)."""
    system = req.messages[0]["content"]
    return {m.group(1): (m.group(2), m.group(3).strip()) for m in _PASSAGE.finditer(system)}


def cited_answer(req: SimRequest) -> dict[str, Any]:
    """A faithful RAG answer: one sentence per passage, each quoting its passage."""
    found = passages(req)
    sentences, cites = [], []
    for pid, (_, text) in list(found.items())[:2]:
        quote = " ".join(text.split()[:8])
        sentences.append(f"Segundo o texto, {quote} [{pid}].")
        cites.append({"passage": pid, "quote": quote})
    return {"answer": " ".join(sentences), "citations": cites}


class Roles:
    """A responder that answers each role from its own queue and records what it saw."""

    def __init__(self, **scripts: list[Any]) -> None:
        self.scripts = {k: list(v) for k, v in scripts.items()}
        self.seen: dict[str, list[SimRequest]] = defaultdict(list)

    def __call__(self, req: SimRequest) -> Any:
        role = role_of(req)
        self.seen[role].append(req)
        queue = self.scripts.get(role)
        if not queue:
            raise AssertionError(f"no scripted answer left for {role}: {req.last_user_text!r}")
        item = queue.pop(0) if len(queue) > 1 or not callable(queue[0]) else queue[0]
        return item(req) if callable(item) else item


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
    laws_store: Store, registry: SQLiteCaseRegistry, tmp_path: Path
) -> AsyncIterator[Callable[..., Any]]:
    """``await assistant(model_or_None, **settings)``: an Assistant on the test's stores."""
    stack = AsyncExitStack()

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
                settings=AssistantSettings(**settings),
                home=tmp_path,
                today=AS_OF,
            )
        )

    yield make
    await stack.aclose()
