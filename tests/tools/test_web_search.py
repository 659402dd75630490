"""web_search speaks SearxNG, Tavily and SerpApi-compatible JSON, and says when it is off."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest
from pydantic import SecretStr

from colmeia.config import SearchSettings
from colmeia.errors import ConfigurationError
from colmeia.tools.builtins import builtin_tools
from colmeia.tools.builtins.web_search import web_search_tool


class _SearchAPI(BaseHTTPRequestHandler):
    seen: list[dict[str, object]]

    def _reply(self, payload: object, status: int = 200) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        self.seen.append({"path": parts.path, **query})
        if parts.path == "/searxng":
            self._reply(
                {
                    "results": [
                        {
                            "title": "Código de Defesa do Consumidor",
                            "url": "https://x.gov.br/cdc",
                            "content": "Art. 49 arrependimento",
                        },
                        {"title": "no url"},
                    ]
                }
            )
        elif parts.path == "/serpapi-direct":
            self._reply(
                {
                    "answer_box": {"title": "Lei do Estágio", "answer": "4 horas diárias"},
                    "knowledge_graph": {
                        "title": "Lei 11.788/2008",
                        "type": "Lei federal",
                        "description": "Dispõe sobre o estágio de estudantes.",
                        "source": {"link": "https://planalto.gov.br/l11788"},
                    },
                    "organic_results": [
                        {"title": "Estágio", "link": "https://b.com", "snippet": "jornada"}
                    ],
                }
            )
        elif parts.path == "/serpapi":
            self._reply(
                {
                    "organic_results": [
                        {"title": "Reembolso", "link": "https://a.com", "snippet": "30 dias"}
                    ]
                }
            )
        else:
            self._reply({"error": "nope"}, status=401)

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        body = json.loads(self.rfile.read(length))
        self.seen.append({"path": self.path, **body, "auth": self.headers.get("Authorization")})
        self._reply({"results": [{"title": "Tavily hit", "url": "https://t.com", "content": "ok"}]})

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def search_api() -> Iterator[tuple[str, list[dict[str, object]]]]:
    seen: list[dict[str, object]] = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), type("H", (_SearchAPI,), {"seen": seen}))
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", seen
    server.shutdown()
    server.server_close()


def test_disabled_until_configured() -> None:
    with pytest.raises(ConfigurationError, match="COLMEIA_SEARCH_URL"):
        web_search_tool(SearchSettings(url=None))
    with pytest.raises(ConfigurationError, match="COLMEIA_SEARCH_URL"):
        builtin_tools(["calculator", "web"], SearchSettings(url=None))
    with pytest.raises(ConfigurationError, match="Unknown built-in tool 'shell'"):
        builtin_tools(["shell"])


async def test_searxng_json(search_api: tuple[str, list[dict[str, object]]]) -> None:
    base, seen = search_api
    tool = web_search_tool(SearchSettings(kind="searxng", url=f"{base}/searxng"))
    result = await tool.run({"query": "direito de arrependimento"})
    assert result.ok, result.output
    assert "Código de Defesa do Consumidor" in result.output
    assert "https://x.gov.br/cdc" in result.output
    assert "no url" not in result.output
    assert seen == [{"path": "/searxng", "q": "direito de arrependimento", "format": "json"}]


async def test_tavily_and_serpapi(search_api: tuple[str, list[dict[str, object]]]) -> None:
    base, seen = search_api
    tavily = web_search_tool(
        SearchSettings(kind="tavily", url=f"{base}/tavily", api_key=SecretStr("k1"))
    )
    out = await tavily.run({"query": "reembolso", "max_results": 3})
    assert "Tavily hit" in out.output
    assert seen[-1]["max_results"] == 3
    assert seen[-1]["auth"] == "Bearer k1"
    serp = web_search_tool(
        SearchSettings(kind="serpapi", url=f"{base}/serpapi", api_key=SecretStr("k2"))
    )
    out = await serp.run({"query": "reembolso"})
    assert "https://a.com" in out.output
    assert seen[-1]["api_key"] == "k2"


async def test_api_errors_are_observations(search_api: tuple[str, list[dict[str, object]]]) -> None:
    base, _ = search_api
    tool = web_search_tool(SearchSettings(url=f"{base}/broken"))
    result = await tool.run({"query": "x"})
    assert not result.ok
    assert "HTTP 401" in result.output
    assert "COLMEIA_SEARCH_API_KEY" in result.output


async def test_serpapi_direct_answers_come_before_the_links(
    search_api: tuple[str, list[dict[str, object]]],
) -> None:
    base, _ = search_api
    serp = web_search_tool(SearchSettings(kind="serpapi", url=f"{base}/serpapi-direct"))
    out = (await serp.run({"query": "jornada de estágio"})).output
    assert out.splitlines()[:5] == [
        "1. Answer: Lei do Estágio",
        "   4 horas diárias",
        "2. Knowledge graph: Lei 11.788/2008",
        "   https://planalto.gov.br/l11788",
        "   Lei federal Dispõe sobre o estágio de estudantes.",
    ]
    assert "3. Estágio" in out and "https://b.com" in out
