"""The assistant wired from settings: store, model (or offline rules), registry, web search,
checkpointer. What the CLI, the demo and the evaluation open.

:func:`offline_ask` answers one offline question without the graph when the turn allows it
(:mod:`.frame_turn`): the CLI's ``ask`` then starts without LangGraph. This module imports
the graph's session only when it opens the assistant.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from colmeia.apps.assistant.fast_threads import FastThreads
from colmeia.apps.assistant.frame_turn import FrameTurns, ask_without_graph
from colmeia.apps.assistant.parts import case_registry, graph_config, rag_pipeline
from colmeia.apps.assistant.sampling import FixedTemperature
from colmeia.apps.assistant.settings import AssistantSettings
from colmeia.apps.assistant.turn_result import TurnResult, check_thread
from colmeia.config import Settings, get_settings
from colmeia.errors import ConfigurationError
from colmeia.llm.base import ChatModel
from colmeia.rag.index.embedders import default_embedder
from colmeia.store.base import Store

if TYPE_CHECKING:
    from colmeia.apps.assistant.session import Assistant

__all__ = ["AssistantOptions", "assistant_from_settings", "offline_ask"]


@dataclass(slots=True)
class AssistantOptions:
    """Per-command overrides of the settings (``None`` = use the settings)."""

    store: str | None = None
    registry: str | None = None
    checkpoints: str | None = None
    collection: str | None = None
    offline: bool = False
    today: dt.date | None = None


@asynccontextmanager
async def assistant_from_settings(
    options: AssistantOptions | None = None, settings: Settings | None = None
) -> AsyncIterator[Assistant]:
    """Open everything the assistant needs; close it all afterwards.

    A model is used when ``COLMEIA_LLM_BASE_URL`` is set (and ``offline`` is not asked for);
    otherwise the assistant routes by rules and answers extractively. Web search is available
    when ``COLMEIA_SEARCH_URL`` is set.
    """
    from colmeia.apps.assistant.session import open_assistant

    opts = options or AssistantOptions()
    s = settings or get_settings()
    a = _assistant_settings(opts)
    store = _open_store(opts, s)
    model: ChatModel | None = None
    if s.llm.base_url and not opts.offline:
        from colmeia.llm import OpenAIChatModel

        model = OpenAIChatModel.from_settings(s.llm)
    web = None
    if s.search.url:
        from colmeia.tools.builtins.web_search import web_search_tool

        web = web_search_tool(s.search)
    reranker = _reranker(s, a, model)
    try:
        _check_collection(store, a)
        async with open_assistant(
            store=store,
            model=model,
            settings=a,
            home=Path(s.home),
            web_search=web,
            reranker=reranker,
            today=opts.today,
            embedder=default_embedder(s.embeddings),
        ) as assistant:
            yield assistant
    finally:
        if model is not None and hasattr(model, "aclose"):
            await model.aclose()
        store.close()


def _assistant_settings(opts: AssistantOptions) -> AssistantSettings:
    a = AssistantSettings()
    if opts.registry:
        a.registry = opts.registry
    if opts.checkpoints:
        a.checkpoints = opts.checkpoints
    if opts.collection:
        a.collection = opts.collection
    return a


def _open_store(opts: AssistantOptions, s: Settings) -> Store:
    from colmeia.store import open_store

    url = opts.store or s.store_url()
    if "://" not in url:
        url = f"sqlite:///{url}"
    return open_store(url, cache_dir=s.home)


def _reranker(s: Settings, a: AssistantSettings, model: ChatModel | None) -> Any:
    if s.rerank.kind == "none":
        return None
    from colmeia.rag.rerank import reranker_from_settings

    # a model reranker samples like the assistant's other calls (sampling.py)
    ranking_model = FixedTemperature(model, a.temperature) if model is not None else None
    return reranker_from_settings(s.rerank, ranking_model)


def _check_collection(store: Store, a: AssistantSettings) -> None:
    if store.collection(a.collection) is None:
        raise ConfigurationError(
            f"no collection named {a.collection!r} in {store.url}: ingest the official "
            f"documents first (`colmeia ingest data/laws/lexml data/laws/constituicao/lexml "
            f"--collection {a.collection}`) "
            "or set COLMEIA_ASSISTANT_COLLECTION"
        )


def _fast_threads(url: str) -> FastThreads | None:
    """The fast path's threads for a checkpoint URL: SQLite files only (a PostgreSQL or an
    in-memory thread is the graph's from its first turn)."""
    path = url.removeprefix("sqlite:///") if url.startswith("sqlite:///") else url
    return None if "://" in path else FastThreads(Path(path))


async def offline_ask(
    thread_id: str,
    text: str,
    flags: dict[str, bool] | None = None,
    options: AssistantOptions | None = None,
    settings: Settings | None = None,
) -> TurnResult | None:
    """Answer ``text`` in ``thread_id`` offline without the graph, or return ``None`` when the
    graph must take the turn: a model is configured, the thread is already the graph's, or
    the turn is not one the fast path gives exactly as the graph would (:mod:`.frame_turn`).
    The thread's state is kept for its next turn, on either path (:mod:`.fast_threads`)."""
    opts = options or AssistantOptions()
    s = settings or get_settings()
    if s.llm.base_url and not opts.offline:
        return None
    a = _assistant_settings(opts)
    home = Path(s.home)
    threads = _fast_threads(a.checkpoints_url(home))
    if threads is None or threads.on_graph(check_thread(thread_id)):
        return None
    store = _open_store(opts, s)
    registry = None
    try:
        _check_collection(store, a)
        registry = case_registry(a, home)
        rag = rag_pipeline(
            store, a, None, reranker=_reranker(s, a, None), embedder=default_embedder(s.embeddings)
        )
        config = graph_config(a, opts.today)
        turns = FrameTurns(registry, rag, config, web_search=bool(s.search.url))
        return await ask_without_graph(threads, turns, thread_id, text, flags)
    finally:
        if registry is not None:
            await registry.close()
        store.close()
