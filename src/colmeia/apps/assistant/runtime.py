"""The assistant wired from settings: store, model (or offline rules), registry, web search,
checkpointer. What the CLI, the demo and the evaluation open."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from colmeia.apps.assistant.sampling import FixedTemperature
from colmeia.apps.assistant.session import Assistant, open_assistant
from colmeia.apps.assistant.settings import AssistantSettings
from colmeia.config import Settings, get_settings
from colmeia.errors import ConfigurationError
from colmeia.llm.base import ChatModel
from colmeia.rag.index.embedders import default_embedder

__all__ = ["AssistantOptions", "assistant_from_settings"]


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
    from colmeia.store import open_store

    opts = options or AssistantOptions()
    s = settings or get_settings()
    a = AssistantSettings()
    if opts.registry:
        a.registry = opts.registry
    if opts.checkpoints:
        a.checkpoints = opts.checkpoints
    if opts.collection:
        a.collection = opts.collection
    url = opts.store or s.store_url()
    if "://" not in url:
        url = f"sqlite:///{url}"
    store = open_store(url, cache_dir=s.home)
    model: ChatModel | None = None
    if s.llm.base_url and not opts.offline:
        from colmeia.llm import OpenAIChatModel

        model = OpenAIChatModel.from_settings(s.llm)
    web = None
    if s.search.url:
        from colmeia.tools.builtins.web_search import web_search_tool

        web = web_search_tool(s.search)
    reranker = None
    if s.rerank.kind != "none":
        from colmeia.rag.rerank import reranker_from_settings

        # a model reranker samples like the assistant's other calls (sampling.py)
        ranking_model = FixedTemperature(model, a.temperature) if model is not None else None
        reranker = reranker_from_settings(s.rerank, ranking_model)
    try:
        if store.collection(a.collection) is None:
            raise ConfigurationError(
                f"no collection named {a.collection!r} in {store.url}: ingest the official "
                f"documents first (`colmeia ingest data/laws/lexml data/laws/constituicao/lexml "
                f"--collection {a.collection}`) "
                "or set COLMEIA_ASSISTANT_COLLECTION"
            )
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
