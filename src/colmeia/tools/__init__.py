"""Tools agents can call: typed functions with JSON Schemas, a registry, retrieval, built-ins."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from colmeia.tools.registry import (
    FailureCounter,
    Tool,
    ToolRegistry,
    ToolResult,
    parse_docstring,
    tool,
)

if TYPE_CHECKING:
    from colmeia.tools.retrieval import ToolRetriever


def __getattr__(name: str) -> Any:
    # the tool retriever brings bm25s, numpy and scipy (~0.5 s of CPU): imported when used,
    # not by every agent that only registers tools
    if name == "ToolRetriever":
        from colmeia.tools.retrieval import ToolRetriever

        return ToolRetriever
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "FailureCounter",
    "Tool",
    "ToolRegistry",
    "ToolResult",
    "ToolRetriever",
    "parse_docstring",
    "tool",
]
