"""The first passage the RAG pipeline ranks for a question, on a words-only store of the
shipped laws without the articles' generated questions (:mod:`colmeia.rag.expansion`): the
probe of the tests that check which article a kind of question reaches by the law's drafting.

Imported by name (``from first_ranked import …``).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.rag.expansion import ENV as EXPANSION_ENV
from colmeia.rag.pipeline import ingest
from colmeia.store import Store, open_store

LAWS = Path(__file__).resolve().parents[3] / "data" / "laws" / "lexml"


def words_only_laws(folder: Path) -> Store:
    """The shipped laws in collection ``docs``, lexical only: a clause must be found by its
    drafting, not by vectors."""
    store = open_store(str(folder / "laws.db"))
    ingest(store, "docs", [LAWS])
    return store


def first_ranked(store: Store, question: str) -> tuple[str, dict[str, Any]]:
    """The citation path of the first graded passage, and the question's analysis."""

    async def run() -> tuple[str, dict[str, Any]]:
        rag = RagPipeline(store, "docs", None)
        state: dict[str, Any] = {"question": question, "query": question}
        state.update(await rag.analyze(state))  # type: ignore[arg-type]
        state.update(await rag.retrieve(state))  # type: ignore[arg-type]
        state.update(await rag.grade(state))  # type: ignore[arg-type]
        return state["ranked"][0].citation.path, state["analysis"]

    before = os.environ.get(EXPANSION_ENV)
    os.environ[EXPANSION_ENV] = "off"
    try:
        return asyncio.run(run())
    finally:
        if before is None:
            os.environ.pop(EXPANSION_ENV, None)
        else:
            os.environ[EXPANSION_ENV] = before
