"""Built-in tools: calculator, web search and fetch URL, and a factory picking them by name."""

from __future__ import annotations

from collections.abc import Sequence

from colmeia.config import SearchSettings
from colmeia.errors import ConfigurationError
from colmeia.tools.builtins.calculator import calculate, calculator_tool
from colmeia.tools.builtins.fetch_url import fetch_text, fetch_url_tool
from colmeia.tools.builtins.web_search import WebSearch, web_search_tool
from colmeia.tools.registry import Tool

__all__ = [
    "BUILTIN_NAMES",
    "WebSearch",
    "builtin_tools",
    "calculate",
    "calculator_tool",
    "fetch_text",
    "fetch_url_tool",
    "web_search_tool",
]

#: short names accepted by ``builtin_tools`` and ``colmeia agent run --tools``
BUILTIN_NAMES = ("calculator", "web", "fetch")
_ALIASES = {"calc": "calculator", "web_search": "web", "search": "web", "fetch_url": "fetch"}


def builtin_tools(names: Sequence[str], settings: SearchSettings | None = None) -> list[Tool]:
    """Built-in tools by short name; :class:`ConfigurationError` for unknown or unconfigured."""
    search = settings or SearchSettings()
    out: list[Tool] = []
    for raw in names:
        name = _ALIASES.get(raw.strip().lower(), raw.strip().lower())
        if not name:
            continue
        if name == "calculator":
            out.append(calculator_tool())
        elif name == "web":
            out.append(web_search_tool(search))
        elif name == "fetch":
            out.append(fetch_url_tool(allow_private=search.allow_private))
        else:
            raise ConfigurationError(
                f"Unknown built-in tool {raw!r}; choose from {', '.join(BUILTIN_NAMES)}."
            )
    return out
