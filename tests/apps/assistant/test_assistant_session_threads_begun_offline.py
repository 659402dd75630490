"""A thread begun on the offline fast path (``colmeia assistant ask`` without the graph) becomes
the assistant's own the first time the assistant opens it (:meth:`Assistant._adopt`, reached
through its public calls): it is listed, its conversation read and continued; opening one
thread leaves the others on the fast path; and a fast copy left behind by a crash between the
two writes never overwrites the thread the graph already keeps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from assistant_helpers import AS_OF

from colmeia.apps.assistant.fast_threads import FastThreads, encode_state
from colmeia.apps.assistant.frame_turn import FrameTurns, ask_without_graph
from colmeia.apps.assistant.graph_state import GraphConfig
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.store import Store

Offline = tuple[Path, FastThreads, FrameTurns]


@pytest.fixture
def offline(laws_store: Store, registry: SQLiteCaseRegistry, tmp_path: Path) -> Offline:
    """The threads file the assistant checkpoints in, and the turns asked without the graph."""
    db = tmp_path / "threads.db"
    turns = FrameTurns(registry, RagPipeline(laws_store, "leis"), GraphConfig(today=AS_OF))
    return db, FastThreads(db), turns


SUPPLIER = "O que é fornecedor segundo o CDC?"
CONSUMER = "O que é consumidor segundo o CDC?"


async def test_a_thread_begun_without_the_graph_is_listed_read_and_continued(
    assistant: Any, offline: Offline
) -> None:
    db, fast, turns = offline
    assert await ask_without_graph(fast, turns, "f1", SUPPLIER) is not None
    assert await ask_without_graph(fast, turns, "f2", SUPPLIER) is not None
    bot = await assistant(checkpoints=f"sqlite:///{db}")
    history = await bot.history("f1")
    assert [(m["turn"], m["role"], m["text"]) for m in history][:1] == [(1, "user", SUPPLIER)]
    assert [m["role"] for m in history] == ["user", "assistant"]
    # the graph keeps f1 now; f2, not opened, still goes on without the graph
    assert fast.load("f1") is None and fast.on_graph("f1")
    assert fast.load("f2") is not None
    assert await ask_without_graph(fast, turns, "f2", CONSUMER) is not None
    # the next turn of f1 is the graph's, and follows the first
    again = await bot.ask("f1", CONSUMER)
    assert (again.status, again.turn) == ("answered", 2)
    # listing the threads takes over every thread begun without the graph
    assert {t.thread_id for t in await bot.threads()} == {"f1", "f2"}
    assert fast.load("f2") is None
    assert [m["turn"] for m in await bot.history("f2")] == [1, 1, 2, 2]


async def test_a_fast_copy_left_by_a_crash_does_not_overwrite_the_graphs_thread(
    assistant: Any, offline: Offline
) -> None:
    db, fast, turns = offline
    assert await ask_without_graph(fast, turns, "f1", SUPPLIER) is not None
    kept = fast.load("f1")
    assert kept is not None
    stale = encode_state(kept)
    assert stale is not None
    bot = await assistant(checkpoints=f"sqlite:///{db}")
    await bot.ask("f1", CONSUMER)  # adopted, then a second turn on the graph
    # a crash after the checkpoint was written but before the fast copy was dropped
    fast.save("f1", stale, "2026-11-01T00:00:00+00:00")
    assert [m["turn"] for m in await bot.history("f1")] == [1, 1, 2, 2]
    assert fast.load("f1") is None
    # the thread goes on from its second turn, not from the copy's first
    third = await bot.ask("f1", "O que é produto segundo o CDC?")
    assert third.turn == 3


async def test_a_thread_begun_offline_is_deleted_or_streamed_without_taking_over_the_others(
    assistant: Any, offline: Offline
) -> None:
    db, fast, turns = offline
    for thread in ("gone", "streamed", "other"):
        assert await ask_without_graph(fast, turns, thread, SUPPLIER) is not None
    bot = await assistant(checkpoints=f"sqlite:///{db}")
    # deleted for good: not left behind on the fast path to come back later
    assert await bot.delete("gone") is True
    assert fast.load("gone") is None and await bot.delete("gone") is False
    events = [e async for e in bot.events("streamed", bot.make_input(CONSUMER))]
    assert events[-1]["result"].turn == 2  # the stream went on from the offline turn
    # the thread neither deleted nor streamed still goes on without the graph
    assert fast.load("other") is not None
    assert {t.thread_id for t in await bot.threads()} == {"streamed", "other"}
