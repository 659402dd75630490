"""The assistant's graph is split by job (state, shared readings, delivery, tools, model guards,
replies, wiring) and no part of it grows past what one person reads at once (~600 lines)."""

from __future__ import annotations

from pathlib import Path

import pytest

import colmeia.apps.assistant as assistant
from colmeia.apps.assistant.graph import AssistantGraph
from colmeia.apps.assistant.graph_delivery import Delivery
from colmeia.apps.assistant.graph_guards import ModelGuards
from colmeia.apps.assistant.graph_replies import Replies
from colmeia.apps.assistant.graph_tools import ToolNodes

LIMIT = 600


def test_no_module_of_the_graph_passes_the_limit() -> None:
    folder = Path(assistant.__file__).parent
    sizes = {
        p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in folder.glob("graph*.py")
    }
    assert len(sizes) >= 7
    assert {name: n for name, n in sizes.items() if n > LIMIT} == {}


def test_no_module_of_the_law_agent_passes_the_limit() -> None:
    # the RAG agent is split the same way: entry, query reading, retrieval, grading, answering
    folder = Path(assistant.__file__).parent
    sizes = {
        p.name: len(p.read_text(encoding="utf-8").splitlines())
        for p in [*folder.glob("rag_*.py"), folder / "rag_agent.py"]
    }
    assert len(sizes) >= 9
    assert {name: n for name, n in sizes.items() if n > LIMIT} == {}


@pytest.mark.parametrize(
    ("entry", "parts", "least"),
    [
        # the dispatcher: decision, readings, naming, a case answered, a mixed question
        ("dispatch.py", "dispatch_*.py", 6),
        # the case lookups: lookup, cards, search, the facts check (beside case_index & co.)
        ("cases.py", "case_*.py", 4),
        # the registry: protocol, records, SQLite (beside the HTTP client, import, diff)
        ("registry.py", "registry_*.py", 3),
    ],
)
def test_no_module_of_the_dispatcher_cases_or_registry_passes_the_limit(
    entry: str, parts: str, least: int
) -> None:
    folder = Path(assistant.__file__).parent
    sizes = {
        p.name: len(p.read_text(encoding="utf-8").splitlines())
        for p in [folder / entry, *folder.glob(parts)]
    }
    assert len(sizes) >= least
    assert {name: n for name, n in sizes.items() if n > LIMIT} == {}


def test_every_node_the_graph_wires_is_one_of_its_parts() -> None:
    # the nodes live in the parts; the graph class only wires them
    for node, part in (
        ("finish", Delivery),
        ("rag", Delivery),
        ("approve", ToolNodes),
        ("main_tools", ToolNodes),
        ("clarify", Replies),
    ):
        assert node in vars(part), node
        assert getattr(AssistantGraph, node) is vars(part)[node]
    assert "_override" in vars(ModelGuards)
