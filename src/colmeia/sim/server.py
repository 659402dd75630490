"""Serve a :class:`~colmeia.sim.engine.SimulatedModel` as an OpenAI-compatible HTTP API.

Endpoints: ``POST /v1/chat/completions`` (JSON or SSE streaming), ``GET /v1/models``,
``POST /v1/embeddings``, ``GET /stats``, ``POST /stats/reset``, ``GET /health``.

:class:`SimServer` runs uvicorn in a background thread (tests, notebooks); :func:`serve_forever`
runs it in the foreground (``colmeia sim serve``). Both bind loopback addresses only.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from types import TracebackType
from typing import Any

import orjson
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from colmeia.errors import ConfigurationError
from colmeia.sim.engine import SimResponse, SimulatedModel, encode_base64

__all__ = ["SimServer", "check_loopback", "create_app", "serve_forever"]

log = logging.getLogger(__name__)


def check_loopback(host: str) -> str:
    """Return ``host`` if it is a loopback address, else raise :class:`ConfigurationError`.

    Decided from the text alone (no name lookup, no bind attempt).
    """
    name = host.strip().strip("[]")
    if name.lower() == "localhost":
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        address = None
    if address is None or not address.is_loopback:
        raise ConfigurationError(
            f"the simulated model server only listens on loopback addresses, not {host!r}; "
            "use 127.0.0.1, ::1 or localhost"
        )
    return name


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(orjson.dumps(data), status, headers, media_type="application/json")


def _bad_request(message: str) -> Response:
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": None}
    return _json({"error": error}, 400)


def create_app(sim: SimulatedModel, closing: asyncio.Event | None = None) -> Starlette:
    """The Starlette application serving ``sim``; ``closing`` set means the server is stopping."""

    async def chat(request: Request) -> Response:
        try:
            body = orjson.loads(await request.body())
        except orjson.JSONDecodeError as exc:
            return _bad_request(f"simulated model: request body is not JSON ({exc})")
        if not isinstance(body, dict):
            return _bad_request("simulated model: request body must be a JSON object")
        result = await sim.respond(body, _interrupt(request, closing))
        return _render(result, sim)

    async def embeddings(request: Request) -> Response:
        try:
            body = orjson.loads(await request.body())
        except orjson.JSONDecodeError as exc:
            return _bad_request(f"simulated model: request body is not JSON ({exc})")
        raw = body.get("input") if isinstance(body, dict) else None
        texts = [raw] if isinstance(raw, str) else raw
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return _bad_request("simulated model: 'input' must be a string or a list of strings")
        dim = body.get("dimensions") or sim.embedding_dim
        if not isinstance(dim, int) or dim < 1:
            return _bad_request("simulated model: 'dimensions' must be a positive integer")
        vectors = sim.embed(texts, dim)
        as_b64 = body.get("encoding_format") == "base64"
        data = [
            {
                "object": "embedding",
                "index": i,
                "embedding": encode_base64(v) if as_b64 else v,
            }
            for i, v in enumerate(vectors)
        ]
        tokens = sum(max(1, round(len(t) / 4)) for t in texts)
        return _json(
            {
                "object": "list",
                "data": data,
                "model": str(body.get("model") or sim.model_name),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )

    async def rerank(request: Request) -> Response:
        # Cohere/Jina send "documents" and get {"results": [...]}; TEI sends "texts" and gets a
        # bare list. Both carry {"index", "relevance_score"/"score"}, best first.
        try:
            body = orjson.loads(await request.body())
        except orjson.JSONDecodeError as exc:
            return _bad_request(f"simulated model: request body is not JSON ({exc})")
        if not isinstance(body, dict) or not isinstance(body.get("query"), str):
            return _bad_request("simulated model: rerank needs a 'query' string")
        tei = "documents" not in body
        docs = body.get("texts") if tei else body.get("documents")
        if not isinstance(docs, list) or not all(isinstance(d, str) for d in docs):
            return _bad_request("simulated model: 'documents' must be a list of strings")
        scores = sim.rerank(body["query"], docs)
        order = sorted(range(len(docs)), key=lambda i: (-scores[i], i))
        top_n = body.get("top_n")
        if isinstance(top_n, int) and top_n > 0:
            order = order[:top_n]
        if tei:
            return _json([{"index": i, "score": scores[i]} for i in order])
        results = [{"index": i, "relevance_score": scores[i]} for i in order]
        return _json({"results": results, "model": str(body.get("model") or sim.model_name)})

    async def models(request: Request) -> Response:
        entry = {"id": sim.model_name, "object": "model", "created": 0, "owned_by": "colmeia"}
        return _json({"object": "list", "data": [entry]})

    async def stats(request: Request) -> Response:
        return _json(sim.stats())

    async def reset(request: Request) -> Response:
        sim.reset_stats()
        return _json(sim.stats())

    async def health(request: Request) -> Response:
        return _json({"status": "ok"})

    routes = [
        Route("/v1/chat/completions", chat, methods=["POST"]),
        Route("/chat/completions", chat, methods=["POST"]),
        Route("/v1/embeddings", embeddings, methods=["POST"]),
        Route("/embeddings", embeddings, methods=["POST"]),
        Route("/v1/rerank", rerank, methods=["POST"]),
        Route("/rerank", rerank, methods=["POST"]),
        Route("/v1/models", models, methods=["GET"]),
        Route("/models", models, methods=["GET"]),
        Route("/stats", stats, methods=["GET"]),
        Route("/stats/reset", reset, methods=["POST"]),
        Route("/health", health, methods=["GET"]),
    ]
    return Starlette(routes=routes)


def _interrupt(request: Request, closing: asyncio.Event | None) -> Callable[[], Awaitable[object]]:
    """An awaitable factory that completes when the client disconnects or the server stops."""

    async def wait() -> None:
        async def disconnected() -> None:
            # The body is already read, so the next ASGI message can only be the disconnect.
            while (await request.receive())["type"] != "http.disconnect":
                pass

        waiters: list[asyncio.Future[Any]] = [asyncio.ensure_future(disconnected())]
        if closing is not None:
            waiters.append(asyncio.ensure_future(closing.wait()))
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waiters:
                w.cancel()

    return wait


def _render(result: SimResponse, sim: SimulatedModel) -> Response:
    if result.completion is None or not result.stream:
        return _json(result.body(), result.status, result.headers)
    completion = result.completion
    per_token = sim.latency.per_token_s

    async def events() -> AsyncIterator[bytes]:
        for chunk, tokens in completion.chunks(result.include_usage):
            if per_token > 0 and tokens:
                await asyncio.sleep(per_token * tokens)
            yield b"data: " + orjson.dumps(chunk) + b"\n\n"
        yield b"data: [DONE]\n\n"

    return StreamingResponse(
        events(),
        media_type="text/event-stream",
        headers={"cache-control": "no-cache"},
    )


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto must say TCP: asyncio only turns Nagle off on accepted sockets whose proto is TCP,
    # and with Nagle on, every answer written in two parts waits ~40 ms for a delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigurationError(
            f"cannot listen on {host}:{port} ({exc.strerror}); choose another --port, or 0 "
            "for any free one"
        ) from exc
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _config(app: Starlette) -> uvicorn.Config:
    return uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        ws="none",
        timeout_graceful_shutdown=2,
        backlog=2048,
    )


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class SimServer:
    """Serve ``sim`` on a loopback address from a background thread.

    ``port=0`` picks a free port. Use as a context manager, or call :meth:`start` and
    :meth:`stop`::

        with SimServer(SimulatedModel(script=["Olá!"])) as srv:
            async with OpenAIChatModel(base_url=srv.base_url, model="sim") as model:
                reply = await model.chat([Message.user("Oi")])
    """

    def __init__(self, sim: SimulatedModel, host: str = "127.0.0.1", port: int = 0) -> None:
        self.sim = sim
        self.host = check_loopback(host)
        self.port = port
        self._thread: threading.Thread | None = None
        self._server: uvicorn.Server | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closing: asyncio.Event | None = None
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        """The server's root URL, e.g. ``http://127.0.0.1:8765``."""
        return _url(self.host, self.port)

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL (root + ``/v1``)."""
        return self.url + "/v1"

    def start(self, timeout: float = 10.0) -> SimServer:
        """Bind, start serving and return once requests are accepted."""
        if self._thread is not None:
            return self
        sock = _bind(self.host, self.port)
        self.port = int(sock.getsockname()[1])
        self._closing = asyncio.Event()
        server = uvicorn.Server(_config(create_app(self.sim, self._closing)))
        self._server = server

        async def serve() -> None:
            self._loop = asyncio.get_running_loop()
            await server.serve(sockets=[sock])

        def run() -> None:
            try:
                asyncio.run(serve())
            except BaseException as exc:  # reported to the thread that called start()
                self._error = exc
            finally:
                sock.close()

        self._thread = threading.Thread(target=run, name=f"colmeia-sim-{self.port}", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise ConfigurationError(
                    f"the simulated model server did not start on {self.url}: {self._error!r}"
                )
            time.sleep(0.002)
        log.info("simulated model serving at %s", self.base_url)
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving; stalled requests are cut short. Safe to call twice."""
        thread, server = self._thread, self._server
        if thread is None or server is None:
            return
        loop, closing = self._loop, self._closing
        if loop is not None and closing is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed in between
                loop.call_soon_threadsafe(closing.set)
        server.should_exit = True
        thread.join(timeout)
        if thread.is_alive():
            server.force_exit = True
            thread.join(timeout)
        self._thread = None

    def __enter__(self) -> SimServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self._thread is not None else "stopped"
        return f"SimServer({self.base_url}, {state}, {self.sim!r})"


def serve_forever(
    sim: SimulatedModel,
    host: str = "127.0.0.1",
    port: int = 8765,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Serve ``sim`` in the foreground until interrupted (Ctrl-C returns normally).

    ``on_ready`` receives the base URL once the port is bound.
    """
    host = check_loopback(host)
    sock = _bind(host, port)
    bound = int(sock.getsockname()[1])
    server = uvicorn.Server(_config(create_app(sim)))
    if on_ready is not None:
        on_ready(_url(host, bound) + "/v1")
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it handled; stopping is the intent
        log.info("simulated model server stopped")
    finally:
        sock.close()
