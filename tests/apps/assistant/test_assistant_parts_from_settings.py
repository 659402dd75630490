"""The assistant's parts as its settings (``COLMEIA_ASSISTANT_*``) make them
(colmeia.apps.assistant.parts), the same for the graph's session and the offline fast path:
the registry named (or none at all, so law questions still work), the turn's caps and the tools
that need approval, and the RAG pipeline over the collections named with the rankers chosen."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import Any

import pytest

from colmeia.apps.assistant.parts import case_registry, graph_config, rag_pipeline
from colmeia.apps.assistant.rag_state import RagConfig
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.apps.assistant.registry_url import UnconfiguredRegistry
from colmeia.apps.assistant.settings import AssistantSettings
from colmeia.store import Store, open_store


@pytest.fixture(autouse=True)
def _clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in list(os.environ):
        if var.startswith("COLMEIA_ASSISTANT_"):
            monkeypatch.delenv(var)
    monkeypatch.chdir(tmp_path)  # no stray .env


@pytest.fixture
def store(tmp_path: Path) -> Any:
    opened: Store = open_store(str(tmp_path / "colmeia.db"))
    yield opened
    opened.close()


def test_without_a_registry_case_questions_get_the_unconfigured_one(tmp_path: Path) -> None:
    assert isinstance(case_registry(AssistantSettings(), tmp_path), UnconfiguredRegistry)


def test_the_data_folders_registry_is_used_when_none_is_named(tmp_path: Path) -> None:
    SQLiteCaseRegistry(tmp_path / "registry.db").close_sync()
    registry = case_registry(AssistantSettings(), tmp_path)
    assert registry.url == f"sqlite:///{tmp_path / 'registry.db'}"
    registry.close_sync()


def test_a_named_registry_is_used_even_without_one_in_the_data_folder(tmp_path: Path) -> None:
    other = tmp_path / "elsewhere.db"
    SQLiteCaseRegistry(other).close_sync()
    registry = case_registry(AssistantSettings(registry=str(other)), tmp_path / "home")
    assert registry.url == f"sqlite:///{other}"
    registry.close_sync()


def test_the_turns_caps_and_approval_tools_come_from_the_settings() -> None:
    settings = AssistantSettings(
        max_handoffs_per_turn=2,
        max_steps_per_turn=7,
        history_tokens=900,
        approval_tools=" web_search , , lookup_case,",
        max_answer_tokens=333,
        frame_by_model_below=0.4,
        routing="agents",
    )
    day = dt.date(2024, 6, 1)
    config = graph_config(settings, day)
    assert (
        config.max_handoffs_per_turn,
        config.max_steps_per_turn,
        config.history_tokens,
        config.max_answer_tokens,
        config.frame_by_model_below,
        config.routing,
        config.today,
    ) == (2, 7, 900, 333, 0.4, "agents", day)
    assert config.approval_tools == frozenset({"web_search", "lookup_case"})
    assert graph_config(AssistantSettings(approval_tools=""), None).approval_tools == frozenset()


def test_the_pipeline_reads_the_collections_and_rankers_named(store: Any) -> None:
    model: Any = object()
    reranker, embedder = object(), object()
    settings = AssistantSettings(
        collection="minhas-leis",
        ranker="learned",
        model_rerank=True,
        court_collection="normas-tce",
        jurisprudence_collection="acordaos",
    )
    pipeline = rag_pipeline(
        store, settings, model, reranker=reranker, rag_sources=[Path("leis")], embedder=embedder
    )
    assert pipeline.store is store
    assert pipeline.collection == "minhas-leis"
    assert pipeline.retriever.collections == ["minhas-leis"]
    assert pipeline.retriever.embedder is embedder
    assert (pipeline.court_collection, pipeline.jurisprudence_collection) == (
        "normas-tce",
        "acordaos",
    )
    assert pipeline.model is model and pipeline.reranker is reranker
    assert pipeline.config.sources == [Path("leis")]
    assert pipeline.article_ranker is not None  # the shipped, learned weights
    assert pipeline.model_reranker is not None and pipeline.model_reranker.model is model


def test_by_default_the_hand_ranker_and_no_model_reranking(store: Any) -> None:
    model: Any = object()
    plain = rag_pipeline(store, AssistantSettings(), model)
    assert (plain.collection, plain.article_ranker, plain.model_reranker) == ("leis", None, None)
    assert plain.config == RagConfig()
    asked = AssistantSettings(model_rerank=True)
    assert rag_pipeline(store, asked, None).model_reranker is None  # no model to ask
    given = RagConfig(k=3)
    assert rag_pipeline(store, asked, None, rag_config=given).config is given
