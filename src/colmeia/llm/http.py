"""One HTTP client for every model endpoint: chat, embeddings and rerank alike.

:class:`EndpointClient` POSTs JSON to a model server with the reliability rules colmeia applies
everywhere:

* retries with exponential backoff and equal jitter on 5xx, 408/409/425, connection errors and
  timeouts (``max_retries``); 429s wait as long as ``Retry-After`` says, on a budget of their own
  (``max_rate_limit_retries``);
* one deadline bounds a whole call, retries included;
* a concurrency limit per server (scheme, host and port), shared by every client of that server in
  the event loop — when clients configure different limits, the strictest wins;
* errors the server explains are typed: a prompt longer than the context window is a
  :class:`~colmeia.errors.ModelContextLengthError`; a refused feature (recognised by the
  message's content, never by the status alone) is reported to the caller without retrying.

The chat client (:mod:`colmeia.llm.openai_compat`) builds on it; so do the HTTP embedder and the
HTTP reranker in :mod:`colmeia.rag`.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from colmeia.errors import (
    ModelContextLengthError,
    ModelHTTPError,
    ModelProtocolError,
    ModelTimeoutError,
    ModelUnreachableError,
)
from colmeia.llm.base import Usage
from colmeia.llm.refusals import Feature, context_overflow, refused_feature, unparsed_feature
from colmeia.llm.retry import RETRYABLE_STATUS, backoff_delay, retry_after_seconds
from colmeia.llm.transport import (
    HTTPStatusError,
    HTTPTransport,
    MalformedStreamError,
    TransportConnectionError,
    TransportTimeout,
)

__all__ = ["EndpointClient", "FeatureRefused", "Reply", "endpoint_key"]

log = logging.getLogger(__name__)
_ERROR_SNIPPET = 300


class FeatureRefused(Exception):
    """The server refused ``feature`` of the request (its message says so)."""

    def __init__(self, feature: Feature, status: int, message: str) -> None:
        super().__init__(message)
        self.feature = feature
        self.status = status
        self.message = message


@dataclass(slots=True)
class Reply:
    """A decoded answer and how long its (last, successful) request took."""

    data: dict[str, Any]
    elapsed_s: float


def endpoint_key(base_url: str) -> str:
    """The server a URL points at (``scheme://host:port``): concurrency is limited per server."""
    parts = urlsplit(base_url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.scheme}://{(parts.hostname or '').lower()}:{port}"


class _Limiter:
    """A concurrency limit that can be tightened while in use (the strictest client wins)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._in_flight = 0
        self._changed = asyncio.Condition()

    async def __aenter__(self) -> None:
        async with self._changed:
            await self._changed.wait_for(lambda: self._in_flight < self.limit)
            self._in_flight += 1

    async def __aexit__(self, *exc: object) -> None:
        async with self._changed:
            self._in_flight -= 1
            self._changed.notify()


_LIMITS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, _Limiter]] = (
    weakref.WeakKeyDictionary()
)


def _limiter(key: str, limit: int) -> _Limiter:
    per_loop = _LIMITS.setdefault(asyncio.get_running_loop(), {})
    found = per_loop.get(key)
    if found is None:
        found = per_loop[key] = _Limiter(limit)
    elif limit < found.limit:
        found.limit = limit
    return found


class EndpointClient:
    """POSTs to one model server with retries, a deadline and the server's concurrency limit.

    ``what`` names the service in messages ("model server", "embeddings server") and
    ``setting`` the variable prefix that configures it (``COLMEIA_LLM``), so every error says
    which setting to check.
    """

    def __init__(
        self,
        base_url: str,
        headers: Mapping[str, str],
        *,
        model: str = "",
        query: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
        max_rate_limit_retries: int = 8,
        max_concurrency: int = 64,
        backoff_base: float = 0.25,
        what: str = "model server",
        setting: str = "COLMEIA_LLM",
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_rate_limit_retries = max_rate_limit_retries
        self.max_concurrency = max_concurrency
        self.backoff_base = backoff_base
        self.what = what
        self.setting = setting
        self.key = endpoint_key(self.base_url)
        self.transport = HTTPTransport(
            self.base_url, headers, query=query, pool_size=max_concurrency
        )

    async def aclose(self) -> None:
        await self.transport.aclose()

    # ------------------------------------------------------------------ errors

    def unreachable(self, exc: BaseException) -> ModelUnreachableError:
        return ModelUnreachableError(
            f"Could not reach the {self.what} at {self.base_url} ({exc.__class__.__name__}: "
            f"{exc}). Check {self.setting}_BASE_URL, that the server is running, and "
            "`colmeia llm check`.",
            model=self.model,
            base_url=self.base_url,
        )

    def timed_out(self, usage: Usage, deadline_s: float) -> ModelTimeoutError:
        return ModelTimeoutError(
            f"The {self.what} at {self.base_url} ({self.model or 'no model named'}) gave no "
            f"usable answer within the {deadline_s:.0f}s deadline ({usage.requests} requests, "
            f"{usage.retries} retries). Raise {self.setting}_DEADLINE, or check the server load "
            "(`colmeia llm check` measures its speed).",
            model=self.model,
            base_url=self.base_url,
        )

    def http_error(self, exc: HTTPStatusError) -> ModelHTTPError:
        overflow = context_overflow(exc.message, exc.body)
        if overflow is not None:
            sizes = ""
            if overflow.prompt_tokens and overflow.context_tokens:
                sizes = (
                    f" ({overflow.prompt_tokens} tokens asked for, the window holds "
                    f"{overflow.context_tokens})"
                )
            return ModelContextLengthError(
                f"The request to {self.model!r} at {self.base_url} does not fit the model's "
                f"context window{sizes}: {exc.message[:_ERROR_SNIPPET]} — send less text per "
                "call (fewer passages or records, a shorter document), lower max_tokens, or "
                "serve the model with a larger window (`colmeia llm serve --ctx 16384`; "
                "Ollama: num_ctx; vLLM: --max-model-len).",
                status=exc.status,
                prompt_tokens=overflow.prompt_tokens,
                context_tokens=overflow.context_tokens,
                model=self.model,
                base_url=self.base_url,
            )
        hint = {
            400: "the server rejected the request; check the model name and parameters",
            401: f"check {self.setting}_API_KEY",
            403: f"the key may lack access to this model; check {self.setting}_API_KEY",
            404: f"check {self.setting}_BASE_URL (it usually ends in /v1) and {self.setting}_MODEL",
            429: f"the server kept rate-limiting; lower --concurrency or "
            f"{self.setting}_MAX_CONCURRENCY",
        }.get(exc.status, "the server kept failing; check its logs")
        return ModelHTTPError(
            f"The {self.what} {self.base_url} answered HTTP {exc.status} for model "
            f"{self.model!r}: {exc.message[:_ERROR_SNIPPET]} — {hint}.",
            status=exc.status,
            model=self.model,
            base_url=self.base_url,
        )

    def protocol_error(self, exc: MalformedStreamError) -> ModelProtocolError:
        return ModelProtocolError(
            f"The {self.what} at {self.base_url} broke the streaming format ({exc}); the answer "
            "was cut. Try again without streaming, or check the server (a proxy in between?).",
            model=self.model,
            base_url=self.base_url,
        )

    # ------------------------------------------------------------------ retrying

    def retry_delay(
        self,
        exc: Exception,
        counts: dict[str, int],
        usage: Usage,
        deadline_at: float,
        deadline_s: float,
    ) -> float:
        """Seconds to wait before retrying after ``exc``; raises when retrying is over."""
        if isinstance(exc, HTTPStatusError) and exc.status == 429:
            if counts["rate"] >= self.max_rate_limit_retries:
                raise self.http_error(exc) from exc
            delay = retry_after_seconds(exc.headers)
            if delay is None:
                delay = backoff_delay(counts["rate"], base=self.backoff_base)
            counts["rate"] += 1
        else:
            exhausted = counts["server"] >= self.max_retries
            if isinstance(exc, HTTPStatusError):
                if exc.status not in RETRYABLE_STATUS or exhausted:
                    raise self.http_error(exc) from exc
            elif isinstance(exc, TransportTimeout):
                if exhausted:
                    raise self.timed_out(usage, deadline_s) from exc
            elif exhausted:
                raise self.unreachable(exc) from exc
            delay = backoff_delay(counts["server"], base=self.backoff_base)
            counts["server"] += 1
        usage.retries += 1
        if delay >= deadline_at - time.perf_counter():
            raise self.timed_out(usage, deadline_s) from exc
        log.debug("retrying %s in %.2fs after %s", self.base_url, delay, exc)
        return delay

    def _check_refusal(self, exc: Exception, body: dict[str, Any]) -> None:
        """Raise FeatureRefused / a context error at once: retrying cannot change them."""
        if not isinstance(exc, HTTPStatusError):
            return
        feature = refused_feature(exc.message, body) or unparsed_feature(exc.message, body)
        if feature is not None:
            raise FeatureRefused(feature, exc.status, exc.message) from exc
        if context_overflow(exc.message, exc.body) is not None:
            raise self.http_error(exc) from exc

    def _remaining(self, usage: Usage, deadline_at: float, deadline_s: float) -> float:
        remaining = deadline_at - time.perf_counter()
        if remaining <= 0:
            raise self.timed_out(usage, deadline_s)
        return remaining

    async def _after_failure(
        self,
        exc: Exception,
        body: dict[str, Any],
        counts: dict[str, int],
        usage: Usage,
        deadline_at: float,
        deadline_s: float,
    ) -> None:
        """Raise what retrying cannot fix, else wait before the next attempt."""
        self._check_refusal(exc, body)
        await asyncio.sleep(self.retry_delay(exc, counts, usage, deadline_at, deadline_s))

    async def post(
        self,
        path: str,
        body: dict[str, Any],
        *,
        usage: Usage,
        deadline_at: float,
        deadline_s: float,
        timeout: float | None = None,
    ) -> Reply:
        """POST ``body`` with retries; the decoded answer, or a ModelError / FeatureRefused."""
        limit = _limiter(self.key, self.max_concurrency)
        counts = {"server": 0, "rate": 0}
        per_request = timeout or self.timeout
        while True:
            remaining = self._remaining(usage, deadline_at, deadline_s)
            try:
                async with limit:
                    usage.requests += 1
                    started = time.perf_counter()
                    data = await self.transport.post_json(path, body, min(per_request, remaining))
                    return Reply(data, time.perf_counter() - started)
            except (HTTPStatusError, TransportTimeout, TransportConnectionError) as exc:
                await self._after_failure(exc, body, counts, usage, deadline_at, deadline_s)

    async def stream(
        self,
        path: str,
        body: dict[str, Any],
        *,
        usage: Usage,
        deadline_at: float,
        deadline_s: float,
        timeout: float | None = None,
    ) -> AsyncIterator[dict[str, Any]]:
        """Yield server-sent JSON events; retries happen only before the first event.

        ``timeout`` bounds the wait for each event (the first one included), not the stream.
        """
        counts = {"server": 0, "rate": 0}
        limit = _limiter(self.key, self.max_concurrency)
        per_event = timeout or self.timeout
        while True:
            remaining = self._remaining(usage, deadline_at, deadline_s)
            usage.requests += 1
            started = False
            try:
                async with limit:
                    async for event in self.transport.stream_events(
                        path, body, min(per_event, remaining)
                    ):
                        started = True
                        yield event
                        if time.perf_counter() > deadline_at:
                            raise self.timed_out(usage, deadline_s)
                return
            except MalformedStreamError as exc:
                raise self.protocol_error(exc) from exc
            except (HTTPStatusError, TransportTimeout, TransportConnectionError) as exc:
                if started:  # text was already shown: a retry would repeat it
                    raise self.unreachable(exc) from exc
                await self._after_failure(exc, body, counts, usage, deadline_at, deadline_s)
