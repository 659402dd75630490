"""HTTP for OpenAI-compatible servers: one pooled aiohttp session per event loop.

We speak the wire format ourselves instead of through the ``openai`` SDK: the SDK spent
~2.5 ms of CPU per call on request transformation and its HTTP stack, against ~1 ms here, and
every call in colmeia goes through this path (see ``bench/llm_client.py``). Retries, deadlines
and error messages live one level up, in :mod:`colmeia.llm.openai_compat`.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator, Mapping
from typing import Any

import aiohttp
import orjson

__all__ = [
    "HTTPStatusError",
    "HTTPTransport",
    "MalformedStreamError",
    "TransportConnectionError",
    "TransportTimeout",
]


class HTTPStatusError(Exception):
    """The server answered with a non-2xx status (``body``: the decoded JSON error, if any)."""

    def __init__(
        self, status: int, message: str, headers: Mapping[str, str], body: Any = None
    ) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message
        self.headers = headers
        self.body = body


class MalformedStreamError(Exception):
    """A server-sent event whose data is not a JSON object."""


class TransportConnectionError(Exception):
    """No connection, or the connection broke before a whole answer arrived."""


class TransportTimeout(Exception):
    """The request took longer than its timeout."""


def _status_error(status: int, body: bytes, headers: Mapping[str, str]) -> HTTPStatusError:
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        text = body[:500].decode("utf-8", "replace").strip() or "(empty body)"
        return HTTPStatusError(status, text, headers)
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict):
            message = str(err.get("message") or err.get("detail") or err)[:500]
        else:
            message = str(err)[:500]
    else:
        message = str(data)[:500]
    return HTTPStatusError(status, message, headers, data)


class HTTPTransport:
    """POSTs JSON to ``base_url`` + path; sessions are per event loop and closed on ``aclose``."""

    def __init__(
        self,
        base_url: str,
        headers: Mapping[str, str],
        *,
        query: Mapping[str, str] | None = None,
        pool_size: int = 64,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._headers = {"content-type": "application/json", **headers}
        self._query = dict(query or {})
        self._pool_size = pool_size
        self._sessions: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, aiohttp.ClientSession
        ] = weakref.WeakKeyDictionary()

    def _session(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        session = self._sessions.get(loop)
        if session is None or session.closed:
            connector = aiohttp.TCPConnector(limit=self._pool_size, keepalive_timeout=30)
            session = aiohttp.ClientSession(
                connector=connector, headers=self._headers, json_serialize=_dumps
            )
            self._sessions[loop] = session
        return session

    async def post_json(self, path: str, body: dict[str, Any], timeout: float) -> dict[str, Any]:
        """POST ``body``; the decoded JSON answer, or one of this module's exceptions."""
        session = self._session()
        try:
            async with session.post(
                self.base_url + path,
                data=orjson.dumps(body),
                params=self._query or None,
                timeout=aiohttp.ClientTimeout(total=timeout),
            ) as resp:
                payload = await resp.read()
                if resp.status >= 300:
                    raise _status_error(resp.status, payload, resp.headers)
        except (TimeoutError, aiohttp.ServerTimeoutError) as exc:
            raise TransportTimeout(f"no answer within {timeout:.1f}s") from exc
        except aiohttp.ClientError as exc:
            raise TransportConnectionError(f"{exc.__class__.__name__}: {exc}") from exc
        try:
            data = orjson.loads(payload)
        except orjson.JSONDecodeError as exc:
            # A proxy's HTML error page or a cut body: the server side misbehaved; retryable.
            raise HTTPStatusError(502, f"answer was not JSON: {payload[:200]!r}", {}) from exc
        if isinstance(data, list):  # TEI's /rerank answers a bare array
            return {"data": data}
        if not isinstance(data, dict):
            raise HTTPStatusError(502, "answer was not a JSON object", {})
        return data

    async def stream_events(
        self, path: str, body: dict[str, Any], timeout: float
    ) -> AsyncIterator[dict[str, Any]]:
        """POST with ``stream: true`` and yield each server-sent JSON event."""
        session = self._session()
        try:
            async with session.post(
                self.base_url + path,
                data=orjson.dumps(body),
                params=self._query or None,
                timeout=aiohttp.ClientTimeout(total=None, sock_read=timeout, connect=timeout),
            ) as resp:
                if resp.status >= 300:
                    raise _status_error(resp.status, await resp.read(), resp.headers)
                async for raw_line in resp.content:
                    line = raw_line.strip()
                    if not line.startswith(b"data:"):
                        continue
                    data = line[5:].strip()
                    if data == b"[DONE]":
                        return
                    try:
                        event = orjson.loads(data)
                    except orjson.JSONDecodeError:
                        event = None
                    if not isinstance(event, dict):
                        raise MalformedStreamError(
                            f"a streamed line is not a JSON object: {line[:200]!r}"
                        )
                    yield event
        except (TimeoutError, aiohttp.ServerTimeoutError) as exc:
            raise TransportTimeout(f"stream stalled for {timeout:.1f}s") from exc
        except aiohttp.ClientError as exc:
            raise TransportConnectionError(f"{exc.__class__.__name__}: {exc}") from exc

    async def aclose(self) -> None:
        """Close the session of the running loop (others close with their loops)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        session = self._sessions.pop(loop, None)
        if session is not None and not session.closed:
            await session.close()


def _dumps(obj: Any) -> str:
    return orjson.dumps(obj).decode()
