"""The step machine's rules to the letter: each refusal's text (a node added twice, an edge from
or to an unknown node, a node with no way on, a branch to nowhere, a loop past the limit), a run
of exactly ``limit`` steps finishing, a node that returns nothing, and the caller's state left
as it was."""

from __future__ import annotations

import re
from typing import Any, TypedDict

import pytest

from colmeia.errors import LimitReachedError
from colmeia.graphs.flow import END, Flow


class Trail(TypedDict, total=False):
    trail: list[str]
    n: int


def _visit(name: str) -> Any:
    async def run(state: Trail) -> Trail:
        return {"trail": [*state.get("trail", []), name]}

    return run


def _chain(*names: str) -> Flow[Trail]:
    flow: Flow[Trail] = Flow("chain", start=names[0])
    for name in names:
        flow.node(name, _visit(name))
    for source, target in zip(names, [*names[1:], END], strict=True):
        flow.edge(source, target)
    return flow.check()


def _refused(text: str) -> Any:
    return pytest.raises(ValueError, match=f"^{re.escape(text)}$")


def test_the_end_is_named_as_langgraph_names_it() -> None:
    assert END == "__end__"


async def test_a_run_of_exactly_the_limit_finishes_one_step_more_is_refused() -> None:
    flow = _chain("a", "b", "c")
    assert await flow.run({}, limit=3) == {"trail": ["a", "b", "c"]}
    expected = (
        "chain: more than 2 steps without finishing (last at 'c'); "
        "the pipeline's loops did not end — report it with the question asked"
    )
    with pytest.raises(LimitReachedError, match=f"^{re.escape(expected)}$"):
        await flow.run({}, limit=2)


async def test_a_node_that_returns_nothing_leaves_the_state_and_the_callers_dict_is_not_touched() -> (
    None
):
    flow: Flow[Trail] = Flow("quiet", start="look")

    async def look(state: Trail) -> None:
        return None

    flow.node("look", look)
    flow.node("count", _visit("count"))
    flow.edge("look", "count")
    flow.edge("count", END)
    given: Trail = {"n": 1}
    out = await flow.check().run(given, limit=5)
    assert out == {"n": 1, "trail": ["count"]}
    assert given == {"n": 1}


def test_a_node_added_twice_is_refused() -> None:
    flow: Flow[Trail] = Flow("twice", start="a")
    flow.node("a", _visit("a"))
    with _refused("twice: node 'a' added twice"):
        flow.node("a", _visit("a"))


def test_each_wiring_mistake_is_named_with_the_flow() -> None:
    unknown_start: Flow[Trail] = Flow("w1", start="ghost")
    unknown_start.node("a", _visit("a"))
    unknown_start.edge("a", END)
    with _refused("w1: edge from unknown node 'ghost'"):
        unknown_start.check()

    unknown_source: Flow[Trail] = Flow("w2", start="a")
    unknown_source.node("a", _visit("a"))
    unknown_source.edge("a", END)
    unknown_source.edge("ghost", "a")
    with _refused("w2: edge from unknown node 'ghost'"):
        unknown_source.check()

    unknown_target: Flow[Trail] = Flow("w3", start="a")
    unknown_target.node("a", _visit("a"))
    unknown_target.edge("a", "b")
    with _refused("w3: edge 'a' → unknown node 'b'"):
        unknown_target.check()

    nowhere: Flow[Trail] = Flow("w4", start="a")
    nowhere.node("a", _visit("a"))
    nowhere.node("b", _visit("b"))
    nowhere.edge("a", END)
    with _refused("w4: node 'b' leads nowhere (add an edge)"):
        nowhere.check()


def test_a_branch_is_checked_when_it_chooses_not_when_it_is_wired() -> None:
    flow: Flow[Trail] = Flow("fork", start="a")
    flow.node("a", _visit("a"))
    flow.branch("a", lambda state: END)
    assert flow.check() is flow


async def test_a_branch_to_an_unknown_node_is_refused_with_the_flows_name() -> None:
    flow: Flow[Trail] = Flow("typo", start="a")
    flow.node("a", _visit("a"))
    flow.branch("a", lambda state: "nowhere")
    with _refused("typo: branch chose unknown node 'nowhere'"):
        await flow.check().run({}, limit=5)


async def test_a_branch_sees_the_state_after_its_node() -> None:
    flow: Flow[Trail] = Flow("seen", start="a")
    flow.node("a", _visit("a"))
    flow.node("b", _visit("b"))
    flow.branch("a", lambda state: "b" if state.get("trail") == ["a"] else END)
    flow.edge("b", END)
    assert await flow.check().run({}, limit=5) == {"trail": ["a", "b"]}
