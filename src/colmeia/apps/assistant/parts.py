"""The assistant's parts built from its settings — the case registry, the RAG pipeline and the
graph's caps — shared by the graph's session (:mod:`.session`) and the offline fast path
(:mod:`.runtime`), so that both answer from the same parts. Nothing here imports LangGraph."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from colmeia.apps.assistant.article_choice import ModelArticleReranker
from colmeia.apps.assistant.graph_state import GraphConfig
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.rag_state import RagConfig
from colmeia.apps.assistant.registry import CaseRegistry
from colmeia.apps.assistant.registry_url import UnconfiguredRegistry, open_registry
from colmeia.apps.assistant.settings import AssistantSettings
from colmeia.llm.base import ChatModel
from colmeia.rag.index.embedders import Embedder
from colmeia.store.base import Store

__all__ = ["case_registry", "graph_config", "rag_pipeline"]


def case_registry(s: AssistantSettings, home: Path) -> CaseRegistry:
    """The registry the settings name (the caller closes it)."""
    if s.registry is None and not (home / "registry.db").exists():
        # no registry at all: law questions still work, case questions say so
        return UnconfiguredRegistry()
    return open_registry(s.registry_url(home))


def graph_config(s: AssistantSettings, today: dt.date | None) -> GraphConfig:
    """The turn's caps, the tools that need approval and the routing, from the settings."""
    tools = frozenset(t.strip() for t in s.approval_tools.split(",") if t.strip())
    return GraphConfig(
        max_handoffs_per_turn=s.max_handoffs_per_turn,
        max_steps_per_turn=s.max_steps_per_turn,
        history_tokens=s.history_tokens,
        approval_tools=tools,
        max_answer_tokens=s.max_answer_tokens,
        frame_by_model_below=s.frame_by_model_below,
        routing=s.routing,
        today=today,
    )


def rag_pipeline(
    store: Store,
    s: AssistantSettings,
    model: ChatModel | None,
    *,
    reranker: Any = None,
    rag_config: RagConfig | None = None,
    rag_sources: Sequence[Path] = (),
    embedder: Embedder | None = None,
) -> RagPipeline:
    """The RAG agent's pipeline over the settings' collections."""
    return RagPipeline(
        store,
        s.collection,
        model,
        reranker=reranker,
        config=rag_config or RagConfig(sources=list(rag_sources)),
        embedder=embedder,
        article_ranker="shipped" if s.ranker == "learned" else None,
        model_reranker=ModelArticleReranker(model) if model and s.model_rerank else None,
        court_collection=s.court_collection,
        jurisprudence_collection=s.jurisprudence_collection,
    )
