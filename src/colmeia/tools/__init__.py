"""Tools agents can call: typed functions with JSON Schemas, a registry, retrieval, built-ins."""

from __future__ import annotations

from colmeia.tools.registry import (
    FailureCounter,
    Tool,
    ToolRegistry,
    ToolResult,
    parse_docstring,
    tool,
)
from colmeia.tools.retrieval import ToolRetriever

__all__ = [
    "FailureCounter",
    "Tool",
    "ToolRegistry",
    "ToolResult",
    "ToolRetriever",
    "parse_docstring",
    "tool",
]
