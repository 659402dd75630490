"""The step machine the RAG pipeline runs on (colmeia.graphs.flow): nodes update the state,
edges and branches pick the next node, a loop that does not end stops at the step limit with
a clear error, and a wiring mistake is refused when the flow is built."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

from colmeia.errors import LimitReachedError
from colmeia.graphs.flow import END, Flow


class Count(TypedDict, total=False):
    n: int
    trail: list[str]
    done: bool


def _step(name: str, add: int = 0) -> Any:
    async def run(state: Count) -> Count:
        return {"n": state.get("n", 0) + add, "trail": [*state.get("trail", []), name]}

    return run


def _loop(until: int) -> Flow[Count]:
    """start → add (+1) → back to add until n reaches ``until`` → stop."""
    g: Flow[Count] = Flow("count", start="start")
    g.node("start", _step("start"))
    g.node("add", _step("add", 1))
    g.node("stop", _step("stop"))
    g.edge("start", "add")
    g.branch("add", lambda s: "stop" if s.get("n", 0) >= until else "add")
    g.edge("stop", END)
    return g.check()


async def test_a_run_walks_the_edges_and_branches_to_the_end() -> None:
    out = await _loop(3).run({"n": 0}, limit=10)

    assert out["n"] == 3
    assert out["trail"] == ["start", "add", "add", "add", "stop"]


async def test_a_node_returns_only_what_it_changes_and_the_rest_is_kept() -> None:
    g: Flow[Count] = Flow("keep", start="only")

    async def only(state: Count) -> Count:
        return {"done": True}

    g.node("only", only)
    g.edge("only", END)

    out = await g.check().run({"n": 7}, limit=5)

    assert out == {"n": 7, "done": True}


async def test_a_loop_that_does_not_end_stops_at_the_limit_naming_where() -> None:
    with pytest.raises(LimitReachedError, match=r"count: more than 5 steps .*'add'"):
        await _loop(100).run({"n": 0}, limit=5)


def test_a_wiring_mistake_is_refused_when_the_flow_is_built() -> None:
    g: Flow[Count] = Flow("bad", start="a")
    g.node("a", _step("a"))
    g.edge("a", "b")
    with pytest.raises(ValueError, match="unknown node 'b'"):
        g.check()

    dangling: Flow[Count] = Flow("dangling", start="a")
    dangling.node("a", _step("a"))
    with pytest.raises(ValueError, match="'a' leads nowhere"):
        dangling.check()


async def test_a_branch_that_names_no_node_is_an_error_not_a_silent_stop() -> None:
    g: Flow[Count] = Flow("typo", start="a")
    g.node("a", _step("a"))
    g.branch("a", lambda s: "nowhere")

    with pytest.raises(ValueError, match="branch chose unknown node 'nowhere'"):
        await g.check().run({}, limit=5)
