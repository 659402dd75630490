"""A web-search tool over HTTP search APIs: SearxNG (JSON), Tavily, SerpApi-compatible.

Configured by ``COLMEIA_SEARCH_KIND`` (searxng | tavily | serpapi), ``COLMEIA_SEARCH_URL`` and
``COLMEIA_SEARCH_API_KEY``. Without a URL the tool is disabled: asking for it raises a
:class:`~colmeia.errors.ConfigurationError` that says which variables to set. The search
endpoint is chosen by whoever configures colmeia (often a SearxNG on localhost), so it is not
subject to the public-address rule of ``fetch_url``, whose URLs come from the model.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import httpx

from colmeia.config import SearchSettings
from colmeia.errors import ConfigurationError, ToolError
from colmeia.tools.registry import Tool

__all__ = ["SearchHit", "WebSearch", "web_search_tool"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result."""

    title: str
    url: str
    snippet: str


def _hits(items: Any, title: str, url: str, snippet: str) -> list[SearchHit]:
    if not isinstance(items, list):
        return []
    out: list[SearchHit] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        link = str(item.get(url) or "")
        if not link:
            continue
        out.append(
            SearchHit(str(item.get(title) or link), link, str(item.get(snippet) or "").strip())
        )
    return out


class WebSearch:
    """Client of one configured search API."""

    def __init__(self, settings: SearchSettings, *, timeout: float = 15.0) -> None:
        if not settings.url:
            raise ConfigurationError(
                "Web search is disabled: set COLMEIA_SEARCH_URL (e.g. http://127.0.0.1:8888/search "
                "for a SearxNG with JSON output enabled, https://api.tavily.com/search with "
                "COLMEIA_SEARCH_KIND=tavily, or a SerpApi-compatible endpoint with "
                "COLMEIA_SEARCH_KIND=serpapi) and COLMEIA_SEARCH_API_KEY if the API needs one."
            )
        if not settings.url.startswith(("http://", "https://")):
            raise ConfigurationError(
                f"COLMEIA_SEARCH_URL must start with http:// or https://, got {settings.url!r}"
            )
        self.kind = settings.kind
        self.url = settings.url
        self._api_key = settings.api_key.get_secret_value()
        self.timeout = timeout

    async def search(self, query: str, max_results: int = 5) -> list[SearchHit]:
        """Results for ``query``; :class:`ToolError` when the API fails."""
        query = query.strip()
        if not query:
            raise ToolError("the search query is empty; say what to search for")
        try:
            async with httpx.AsyncClient(timeout=self.timeout, trust_env=False) as client:
                if self.kind == "tavily":
                    response = await client.post(
                        self.url,
                        json={"query": query, "max_results": max_results, "api_key": self._api_key},
                        headers={"Authorization": f"Bearer {self._api_key}"},
                    )
                elif self.kind == "serpapi":
                    response = await client.get(
                        self.url,
                        params={"q": query, "api_key": self._api_key, "num": max_results},
                    )
                else:
                    headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
                    response = await client.get(
                        self.url, params={"q": query, "format": "json"}, headers=headers
                    )
        except httpx.HTTPError as exc:
            raise ToolError(
                f"the search service at {self.url} could not be reached "
                f"({exc.__class__.__name__}); try again later"
            ) from None
        if response.status_code >= 400:
            raise ToolError(
                f"the search service at {self.url} answered HTTP {response.status_code}"
                + (" (check COLMEIA_SEARCH_API_KEY)" if response.status_code in (401, 403) else "")
            )
        try:
            data = response.json()
        except ValueError:
            raise ToolError(
                f"the search service at {self.url} did not answer JSON (for SearxNG, enable the "
                "json format in settings.yml)"
            ) from None
        if not isinstance(data, dict):
            raise ToolError(f"the search service at {self.url} answered unexpected JSON")
        if self.kind == "serpapi":
            hits = _serp_direct(data) + _hits(
                data.get("organic_results"), "title", "link", "snippet"
            )
        else:
            hits = _hits(data.get("results"), "title", "url", "content")
        return hits[:max_results]


def _serp_direct(data: dict[str, Any]) -> list[SearchHit]:
    """SerpApi's direct answers, ahead of the links: the answer box (a short answer or its
    snippet) and the knowledge graph (an entity's description) often hold what was asked."""
    out: list[SearchHit] = []
    box = data.get("answer_box")
    if isinstance(box, dict):
        parts = [str(box.get(k) or "").strip() for k in ("answer", "result", "snippet")]
        text = " — ".join(p for p in dict.fromkeys(parts) if p)
        if text:
            out.append(SearchHit(f"Answer: {box.get('title') or 'direct answer'}",
                                 str(box.get("link") or ""), text))  # fmt: skip
    graph = data.get("knowledge_graph")
    if isinstance(graph, dict):
        text = " ".join(
            str(graph.get(k) or "").strip() for k in ("type", "description") if graph.get(k)
        )
        source = graph.get("source")
        link = str(source.get("link") or "") if isinstance(source, dict) else ""
        if text:
            out.append(
                SearchHit(f"Knowledge graph: {graph.get('title') or ''}".strip(), link, text)
            )
    return out


def _render(query: str, hits: list[SearchHit]) -> str:
    if not hits:
        return f"No results for {query!r}. Try other words."
    lines = [
        f"{i}. {h.title}\n" + (f"   {h.url}\n" if h.url else "") + f"   {h.snippet[:400]}"
        for i, h in enumerate(hits, start=1)
    ]
    return "\n".join(lines)


def web_search_tool(settings: SearchSettings | None = None, *, timeout: float = 15.0) -> Tool:
    """The ``web_search`` tool; :class:`ConfigurationError` when search is not configured."""
    client = WebSearch(settings or SearchSettings(), timeout=timeout)

    async def web_search(query: str, max_results: int = 5) -> str:
        """Search the web and return titles, addresses and snippets of the best results.

        Use it for facts that may have changed or that you do not know.

        Args:
            query: What to search for, in a few keywords.
            max_results: How many results to return (1 to 10).
        """
        n = max(1, min(int(max_results), 10))
        return _render(query, await client.search(query, n))

    return Tool.from_function(web_search, timeout=timeout + 5, tags=("web",))
