"""Rerankers behind one interface: none (fusion order kept), an LLM relevance scorer, and an
HTTP rerank API (Cohere/Jina/TEI-compatible ``/rerank``).

A reranker reorders the candidates it is given; it never invents or drops passages.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from colmeia.config import RerankSettings
from colmeia.errors import (
    ConfigurationError,
    ModelHTTPError,
    ModelOutputError,
)
from colmeia.llm.base import ChatModel, Message, Usage
from colmeia.llm.http import EndpointClient, FeatureRefused
from colmeia.llm.prompts import render_prompt
from colmeia.rag.retrieve import Hit

__all__ = [
    "HTTPReranker",
    "LLMReranker",
    "NoReranker",
    "PassageScore",
    "Reranker",
    "reranker_from_settings",
]

log = logging.getLogger(__name__)


@runtime_checkable
class Reranker(Protocol):
    """Reorders retrieved passages by relevance to the query."""

    async def rerank(self, query: str, hits: Sequence[Hit]) -> list[Hit]: ...


class NoReranker:
    """Keeps the fusion order."""

    async def rerank(self, query: str, hits: Sequence[Hit]) -> list[Hit]:
        return list(hits)


def _reorder(hits: Sequence[Hit], scores: Sequence[float], top_n: int) -> list[Hit]:
    head = list(hits[:top_n])
    order = sorted(range(len(head)), key=lambda i: (-scores[i], i))
    out = [head[i] for i in order]
    for i, hit in zip(order, out, strict=True):
        hit.score = float(scores[i])
    return out + list(hits[top_n:])


class PassageScore(BaseModel):
    """The model's judgement of one passage."""

    score: int = Field(ge=0, le=10, description="0 = unrelated, 10 = answers the query fully.")
    reason: str = Field(default="", description="One short sentence.")


class LLMReranker:
    """Scores each of the first ``top_n`` passages 0-10 with a chat model (structured JSON).

    ``prompt`` is the (package, template) of the judge's instructions; the template gets
    ``query``, ``passage`` and ``source`` (an app judging whole works brings its own).
    """

    def __init__(
        self,
        model: ChatModel,
        *,
        top_n: int = 20,
        concurrency: int = 8,
        prompt: tuple[str, str] = ("colmeia.rag", "rerank.j2"),
    ) -> None:
        self.model = model
        self.top_n = top_n
        self.prompt = prompt
        self._limit = asyncio.Semaphore(concurrency)

    async def _score(self, query: str, hit: Hit) -> float:
        prompt = render_prompt(
            *self.prompt, query=query, passage=hit.text, source=hit.citation.label()
        )
        async with self._limit:
            result = await self.model.structured(
                [Message.system(prompt), Message.user(query)], PassageScore
            )
        return float(result.score)

    async def rerank(self, query: str, hits: Sequence[Hit]) -> list[Hit]:
        head = list(hits[: self.top_n])
        scores = await asyncio.gather(*(self._score(query, h) for h in head))
        return _reorder(hits, scores, self.top_n)


class HTTPReranker:
    """A ``POST {base_url}/rerank`` service: Cohere/Jina (``documents`` → ``results`` with
    ``relevance_score``) or TEI (``texts`` → a list of ``{index, score}``).

    Requests go through the model layer's :class:`~colmeia.llm.http.EndpointClient`: the same
    retries, backoff, ``Retry-After``, deadline and per-server concurrency limit as chat.
    """

    def __init__(
        self,
        base_url: str,
        model: str = "",
        *,
        api_key: str = "",
        top_n: int = 20,
        timeout: float = 60.0,
        deadline: float = 120.0,
        max_retries: int = 3,
    ) -> None:
        if not base_url:
            raise ConfigurationError("rerank base URL is empty: set COLMEIA_RERANK_BASE_URL")
        root = base_url.rstrip("/").removesuffix("/rerank")
        self.url = root + "/rerank"
        self.model = model
        self.top_n = top_n
        self.timeout = timeout
        self.deadline = deadline
        headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = EndpointClient(
            root,
            headers,
            model=model,
            timeout=timeout,
            max_retries=max_retries,
            what="rerank service",
            setting="COLMEIA_RERANK",
        )

    async def rerank(self, query: str, hits: Sequence[Hit]) -> list[Hit]:
        head = list(hits[: self.top_n])
        texts = [h.text for h in head]
        body: dict[str, Any] = {"query": query, "documents": texts, "texts": texts}
        if self.model:
            body["model"] = self.model
        body["top_n"] = len(texts)
        try:
            reply = await self._client.post(
                "/rerank",
                body,
                usage=Usage(),
                deadline_at=time.perf_counter() + self.deadline,
                deadline_s=self.deadline,
            )
        except FeatureRefused as exc:
            raise ModelHTTPError(
                f"rerank service {self.url} refused the request ({exc.status}): {exc.message}",
                status=exc.status,
                base_url=self.url,
            ) from None
        finally:
            await self._client.aclose()
        payload: Any = reply.data
        try:
            items = payload["results"] if "results" in payload else payload.get("data", payload)
            scores = [0.0] * len(head)
            for item in items:
                value = item.get("relevance_score", item.get("score"))
                scores[int(item["index"])] = float(value)
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
            raise ModelOutputError(
                f"rerank service {self.url} sent an unexpected body: {str(payload)[:300]}",
                last_output=str(payload)[:2000],
                base_url=self.url,
            ) from exc
        return _reorder(hits, scores, self.top_n)


def reranker_from_settings(
    settings: RerankSettings,
    model: ChatModel | None = None,
    *,
    prompt: tuple[str, str] = ("colmeia.rag", "rerank.j2"),
) -> Reranker | None:
    """The configured reranker, or ``None`` (fusion order) for ``kind = none``; ``prompt`` is
    the LLM judge's template (see :class:`LLMReranker`)."""
    if settings.kind == "none":
        return None
    if settings.kind == "http":
        return HTTPReranker(
            settings.base_url or "",
            settings.model,
            api_key=settings.api_key.get_secret_value(),
            top_n=settings.top_n,
        )
    if model is None:
        raise ConfigurationError(
            "COLMEIA_RERANK_KIND=llm needs a chat model: set COLMEIA_LLM_BASE_URL and _MODEL"
        )
    return LLMReranker(model, top_n=settings.top_n, prompt=prompt)
