"""An offline turn without the graph gives the person what the graph gives, and its thread goes
on in the graph as if the graph had begun it.

The fast path (colmeia.apps.assistant.frame_turn) runs the frame route's steps without
LangGraph; it declines the turns it cannot take exactly as the graph would (a clarification,
a subscription). Here every conversation of the shipped ``conversations`` set is played twice
on the same laws and registry: once all on the graph, once as ``colmeia assistant ask`` plays
it (each turn on the fast path when it takes it, on the graph otherwise, the thread kept in
one SQLite checkpoint file). Each turn's result, and at the end each thread's conversation
and state, must be the same.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from assistant_helpers import AS_OF

from colmeia.apps.assistant.conversations import load_conversations
from colmeia.apps.assistant.fast_threads import FastThreads
from colmeia.apps.assistant.frame_turn import FrameTurns, ask_without_graph
from colmeia.apps.assistant.graph_state import GraphConfig
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.apps.assistant.session import Assistant, TurnResult
from colmeia.graphs.messages import ChatMessage
from colmeia.store import Store


def _without_ids(value: Any) -> Any:
    """Message ids are random per run; everything else must match."""
    if isinstance(value, ChatMessage):
        return dataclasses.replace(value, id="")
    if isinstance(value, list):
        return [_without_ids(v) for v in value]
    if isinstance(value, dict):
        return {k: _without_ids(v) for k, v in value.items()}
    return value


def _shown(result: TurnResult) -> dict[str, Any]:
    out = result.as_dict()
    out.pop("thread_id")
    return out


class AsTheCliPlays:
    """Each turn on the fast path when it takes it, on the graph otherwise (as runtime's
    offline_ask and the CLI do), over one SQLite checkpoint file."""

    def __init__(self, graph: Assistant, registry: SQLiteCaseRegistry, store: Store, db: Path):
        self.graph = graph
        self.threads = FastThreads(db)
        self.turns = FrameTurns(registry, RagPipeline(store, "leis"), GraphConfig(today=AS_OF))
        self.fast = 0

    async def ask(self, thread: str, text: str) -> TurnResult:
        result = await ask_without_graph(self.threads, self.turns, thread, text)
        if result is None:
            return await self.graph.ask(thread, text)
        self.fast += 1
        return result


async def test_the_fast_path_answers_the_conversations_set_as_the_graph_does(
    assistant: Any, laws_store: Store, registry: SQLiteCaseRegistry, tmp_path: Path
) -> None:
    conversations, problems = load_conversations()
    assert conversations and not problems
    on_graph: Assistant = await assistant(checkpoints=f"sqlite:///{tmp_path / 'graph.db'}")
    mixed_db = tmp_path / "mixed.db"
    cli_graph: Assistant = await assistant(checkpoints=f"sqlite:///{mixed_db}")
    cli = AsTheCliPlays(cli_graph, registry, laws_store, mixed_db)
    turns = 0
    for n, conv in enumerate(conversations):
        thread = f"conv-{n}"
        waiting = False
        for turn in conv.turns:
            if waiting:  # the answer to the assistant's question: the graph's, on both sides
                expected = await on_graph.resume(thread, turn.user)
                got = await cli_graph.resume(thread, turn.user)
            else:
                expected = await on_graph.ask(thread, turn.user)
                got = await cli.ask(thread, turn.user)
            # what the person is shown: the same answer, citations, facts, handoffs, tools
            assert _shown(got) == _shown(expected), (conv.id, turn.user)
            waiting = expected.waiting is not None
            turns += 1
        # the thread, adopted by the graph, is the graph's own: same conversation, same state
        assert await cli_graph.history(thread) == await on_graph.history(thread)
        ours = await cli_graph._g.aget_state(cli_graph._config(thread))
        theirs = await on_graph._g.aget_state(on_graph._config(thread))
        assert _without_ids(ours.values) == _without_ids(theirs.values), conv.id
    # most turns took the fast path (the rest are clarifications and the turns after them)
    assert cli.fast > turns // 2, (cli.fast, turns)
