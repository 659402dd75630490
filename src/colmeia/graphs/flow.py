"""A step machine for pipelines that run one node at a time: nodes return part of the state,
edges name the next node, a branch picks it from the state.

The RAG pipeline is such a machine (retrieve → grade → rewrite or generate → validate → retry
or write); it has no parallel branches, no interrupts and no checkpoints, so LangGraph's
runtime adds nothing to it but its import — about a second of CPU (langchain_core,
langsmith) paid by every offline ``colmeia assistant ask``. The steps are those LangGraph
takes on the same graph: a node's returned keys replace the state's, and a run that takes
more than ``limit`` steps stops with :class:`~colmeia.errors.LimitReachedError`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Generic, TypeVar

from colmeia.errors import LimitReachedError

__all__ = ["END", "Flow"]

END = "__end__"
S = TypeVar("S", bound=Mapping[str, Any])
Node = Callable[[S], Awaitable[Mapping[str, Any] | None]]


class Flow(Generic[S]):
    """Nodes, edges and branches from ``start``; :meth:`run` walks them to :data:`END`."""

    def __init__(self, name: str, start: str) -> None:
        self.name = name
        self.start = start
        self._nodes: dict[str, Node[S]] = {}
        self._next: dict[str, str | Callable[[S], str]] = {}

    def node(self, name: str, run: Node[S]) -> None:
        if name in self._nodes:
            raise ValueError(f"{self.name}: node {name!r} added twice")
        self._nodes[name] = run

    def edge(self, source: str, target: str) -> None:
        self._next[source] = target

    def branch(self, source: str, choose: Callable[[S], str]) -> None:
        self._next[source] = choose

    def check(self) -> Flow[S]:
        """Every edge joins known nodes and every node has a way on (a wiring mistake is
        found when the pipeline is built, not on the question that first takes that path)."""
        for name in (self.start, *self._next):
            if name not in self._nodes:
                raise ValueError(f"{self.name}: edge from unknown node {name!r}")
        for source, target in self._next.items():
            if isinstance(target, str) and target != END and target not in self._nodes:
                raise ValueError(f"{self.name}: edge {source!r} → unknown node {target!r}")
        for name in self._nodes:
            if name not in self._next:
                raise ValueError(f"{self.name}: node {name!r} leads nowhere (add an edge)")
        return self

    async def run(self, state: S, *, limit: int) -> S:
        """The state after walking from the start to :data:`END`, at most ``limit`` steps."""
        current: dict[str, Any] = dict(state)
        name = self.start
        steps = 0
        while name != END:
            steps += 1
            if steps > limit:
                raise LimitReachedError(
                    f"{self.name}: more than {limit} steps without finishing (last at {name!r}); "
                    "the pipeline's loops did not end — report it with the question asked"
                )
            update = await self._nodes[name](current)  # type: ignore[arg-type]
            if update:
                current.update(update)
            target = self._next[name]
            name = target if isinstance(target, str) else target(current)  # type: ignore[arg-type]
            if name != END and name not in self._nodes:
                raise ValueError(f"{self.name}: branch chose unknown node {name!r}")
        return current  # type: ignore[return-value]
