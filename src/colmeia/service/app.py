"""The FastAPI application: state, middleware (request ids, metrics, traces, token accounting,
audit, body limits), error mapping and the routers. No business logic lives here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, MutableMapping
from typing import Any

import orjson
from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse

from colmeia import __version__
from colmeia.config import Settings, get_settings
from colmeia.errors import (
    ColmeiaError,
    ConfigurationError,
    InputError,
    ModelError,
    QueryError,
    StoreError,
)
from colmeia.llm.base import track_usage
from colmeia.service import audit
from colmeia.service.bodies import BodyMeter
from colmeia.service.db import Database, open_database
from colmeia.service.files import open_file_storage
from colmeia.service.jobs import Job, JobContext, JobStore, Worker
from colmeia.service.limits import (
    Counters,
    DatabaseCounters,
    Limiter,
    MemoryCounters,
    RedisCounters,
)
from colmeia.service.observability import (
    Metrics,
    Tracing,
    graph_node_spans,
    node_span_handler,
    request_context,
)
from colmeia.service.public import MODEL_FAILED, error_body, public_text
from colmeia.service.settings import ServiceSettings
from colmeia.service.state import ServiceState
from colmeia.service.tenants import TenantSpace
from colmeia.service.text_guard import check_text

__all__ = ["create_app"]

log = logging.getLogger("colmeia.service")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
ASGIApp = Callable[
    [Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]],
    Awaitable[None],
]

_RID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
_QUIET = ("/healthz", "/readyz", "/metrics", "/static/")


_API = "/v1/"

# Pages and served reports run no inline script and may not be framed; Swagger UI and ReDoc
# (local assets) set inline styles and ReDoc starts a worker from a blob.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; "
    "connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)
SECURITY_HEADERS = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
)


class ObservedApp:
    """Pure ASGI middleware around every HTTP request (streams included).

    Before the app sees a request of the API (``/v1/…``) its credentials are checked from the
    headers alone: an anonymous or wrongly keyed request is refused before a byte of its body
    is read, and a client address with too many failed authentications in the minute is
    refused (429) without even checking. The body is then counted as it arrives (413 as soon
    as it passes the limit, chunked or not), and a client that disconnects before its answer
    cancels the work (and the model call) it was waiting for.
    """

    def __init__(self, app: ASGIApp, state: ServiceState) -> None:
        self.app = app
        self.state = state

    async def __call__(
        self,
        scope: Scope,
        receive: Callable[[], Awaitable[Message]],
        send: Callable[[Message], Awaitable[None]],
    ) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = self.state
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        incoming = headers.get("x-request-id", "")
        rid = incoming if _RID.match(incoming) else uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = rid
        token = request_context.set({"request_id": rid})
        method: str = scope["method"]
        path: str = scope["path"]
        status = 500
        started_response = False
        response_done = False
        meter = BodyMeter.for_request(
            headers, state.service.max_request_mb, state.service.max_upload_mb
        )
        too_big = meter.declared(headers.get("content-length", ""))
        if too_big:
            await _too_large(send, rid, state.service.max_request_mb, too_big)
            request_context.reset(token)
            return
        if path.startswith(_API):
            refusal = await self._authenticate(scope)
            if refusal is not None:
                await _refuse(send, rid, refusal)
                template = _template(state, scope)
                state.metrics.requests.labels(method, template, str(refusal.status_code)).inc()
                request_context.reset(token)
                return

        async def observed_send(message: Message) -> None:
            nonlocal status, started_response, response_done
            if refused_body:
                return  # the 413 went out; what the app says after it is dropped
            if message["type"] == "http.response.start":
                status = int(message["status"])
                started_response = True
                message.setdefault("headers", [])
                message["headers"] = [
                    *message["headers"],
                    (b"x-request-id", rid.encode()),
                    *SECURITY_HEADERS,
                ]
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                response_done = True
            await send(message)

        # One reader of the client's messages: it counts the body, refuses it past the limit
        # and notices a disconnect while the app is still working, which cancels the app.
        inbox: asyncio.Queue[Message] = asyncio.Queue(maxsize=4)
        refused_body = False
        gone = False
        app_task: asyncio.Task[None] | None = None

        body_timeout = state.service.body_timeout_s

        async def pump() -> None:
            nonlocal refused_body, gone, status
            body_done = False
            while True:
                if body_done:
                    message = await receive()
                else:
                    try:
                        message = await asyncio.wait_for(receive(), body_timeout)
                    except TimeoutError:
                        # a client that stops sending its body holds a connection and a task
                        if not started_response:
                            await _refuse(send, rid, _SLOW_BODY(body_timeout), close=True)
                        refused_body = True
                        status = 408
                        await inbox.put({"type": "http.disconnect"})
                        return
                if message["type"] == "http.request":
                    body_done = not message.get("more_body", False)
                    why = meter.feed(message.get("body", b""))
                    if why:
                        if not started_response:
                            await _too_large(send, rid, state.service.max_request_mb, why)
                        refused_body = True
                        status = 413
                        await inbox.put({"type": "http.disconnect"})
                        return
                    await inbox.put(message)
                    continue
                if message["type"] == "http.disconnect":
                    if not response_done and app_task is not None and not app_task.done():
                        gone = True
                        app_task.cancel()
                    await inbox.put(message)
                    return

        async def app_receive() -> Message:
            return await inbox.get()

        span_cm: Any = contextlib.nullcontext()
        hook_token = None
        if state.tracing.enabled:
            span_cm = state.tracing.tracer().start_as_current_span(
                f"HTTP {method}", attributes={"http.method": method, "http.target": path}
            )
            hook_token = graph_node_spans().set(node_span_handler(state.tracing.tracer()))
        state.metrics.inflight.inc()
        t0 = time.perf_counter()
        template = "unmatched"
        try:
            with span_cm as span, track_usage() as tracker:
                reader = asyncio.ensure_future(pump())
                app_task = asyncio.ensure_future(self.app(scope, app_receive, observed_send))
                try:
                    await app_task
                except asyncio.CancelledError:
                    if not gone:
                        raise
                    status = 499  # the client closed the connection before its answer
                    log.info("client of request %s disconnected; its work was cancelled", rid)
                except Exception:
                    status = 500
                    raise
                finally:
                    reader.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await reader
                    if refused_body:
                        status = status if status in (408, 413) else 413
                    route = scope.get("route")
                    template = getattr(route, "path", None) or "unmatched"
                    if span is not None:
                        span.update_name(f"HTTP {method} {template}")
                        span.set_attribute("http.status_code", status)
                        span.set_attribute("http.route", template)
        finally:
            elapsed = time.perf_counter() - t0
            state.metrics.inflight.dec()
            if hook_token is not None:
                graph_node_spans().reset(hook_token)
            await self._account(scope, method, template, path, status, elapsed, tracker, rid)
            request_context.reset(token)

    async def _authenticate(self, scope: Scope) -> HTTPException | None:
        """Check the request's credentials from its headers; the refusal to send, if any."""
        from fastapi import HTTPException

        from colmeia.service.auth import authenticate

        state = self.state
        client = (scope.get("client") or ("unknown", 0))[0]
        window = int(time.time() // 60)
        failures_key = f"authfail:{client}:{window}"
        allowed = state.service.auth_failures_per_minute
        try:
            if await state.limiter.counters.get(failures_key) >= allowed:
                return await self._throttled(client, window, failures_key, scope)
            scope["state"]["authenticated"] = await authenticate(Request(scope))
        except HTTPException as exc:
            if exc.status_code == 401:
                # counted and checked in one atomic add: of many failures at once, only the
                # first `allowed` learn their answer, the rest get the throttle's 429 (a
                # check-then-count let 150 concurrent bad keys get 33 answers for 20)
                failed = await state.limiter.counters.incr(failures_key, 1, 61)
                if failed > allowed:
                    return await self._throttled(client, window, failures_key, scope)
                await self._audit_failure(client, window, failures_key, scope, 401)
            return exc
        except ColmeiaError as exc:
            log.error("could not check the credentials of a request: %s", exc)
            return HTTPException(503, "the service cannot check credentials right now; retry")
        return None

    async def _throttled(
        self, client: str, window: int, failures_key: str, scope: Scope
    ) -> HTTPException:
        allowed = self.state.service.auth_failures_per_minute
        self.state.metrics.refusals.labels("auth_failures").inc()
        await self._audit_failure(client, window, failures_key, scope, 429)
        return HTTPException(
            429,
            f"too many failed sign-ins from this address ({allowed} a minute); retry "
            "in a minute with a valid key",
            headers={"Retry-After": str(60 - int(time.time()) % 60)},
        )

    async def _audit_failure(
        self, client: str, window: int, key: str, scope: Scope, status: int
    ) -> None:
        """One audit row per client address and minute, counting its refused requests: an
        anonymous flood must not write a row per request."""
        count = await self.state.limiter.counters.incr(f"{key}:audit", 1, 61)
        # a failed authentication updates the row (at most auth_failures_per_minute of them a
        # minute); a throttled client's refusals only at powers of two: log2(n) writes for n
        if status == 429 and count & (count - 1):
            return
        try:
            await asyncio.to_thread(
                audit.count_refusals,
                self.state.db,
                f"refused:{client}:{window}",
                client=client,
                count=count,
                status=status,
                target=str(scope["path"]),
                request_id=str(scope["state"].get("request_id", "")),
            )
        except ColmeiaError as exc:
            log.error("could not write the audit row of refused requests: %s", exc)

    async def _account(
        self,
        scope: Scope,
        method: str,
        template: str,
        path: str,
        status: int,
        elapsed: float,
        tracker: Any,
        rid: str,
    ) -> None:
        state = self.state
        state.metrics.requests.labels(method, template, str(status)).inc()
        state.metrics.latency.labels(method, template).observe(elapsed)
        if status >= 500:
            state.metrics.errors.labels("http_5xx").inc()
        principal = scope.get("state", {}).get("principal")
        state.metrics.model_usage(tracker.by_model, principal.tenant if principal else "")
        reservation = scope.get("state", {}).get("reservation")
        tokens = tracker.usage.total_tokens
        try:
            if reservation is not None:
                await state.limiter.settle(reservation, tokens)
            elif principal is not None and tokens:
                await state.limiter.spend(principal.bucket, tokens)
            mutating = method not in ("GET", "HEAD", "OPTIONS")
            # refusals before authentication are counted per client address by the middleware
            anonymous_refusal = principal is None and status in (401, 429)
            if (
                (mutating or status in (401, 403, 429))
                and not anonymous_refusal
                and not path.startswith(_QUIET)
            ):
                await asyncio.to_thread(
                    audit.record,
                    state.db,
                    tenant=principal.tenant if principal else "",
                    actor=principal.actor if principal else "anonymous",
                    action=f"{method} {template}",
                    target=path,
                    status=status,
                    request_id=rid,
                    detail={"tokens": tokens} if tokens else None,
                )
        except ColmeiaError as exc:
            log.error("could not account for request %s: %s", rid, exc)
        if not path.startswith(_QUIET):
            log.info(
                "%s %s %d",
                method,
                path,
                status,
                extra={
                    "route": template,
                    "status": status,
                    "duration_ms": round(elapsed * 1000, 2),
                    "tenant": principal.tenant if principal else "",
                    "actor": principal.actor if principal else "",
                    "tokens": tokens,
                    "simulated_calls": tracker.usage.simulated,
                },
            )


def _template(state: ServiceState, scope: Scope) -> str:
    """The route template a refused request would have reached (for its metrics), from the
    OpenAPI paths compiled once; the app's routing is not run for a refused request."""
    from starlette.routing import compile_path

    table = state.extras.get("templates")
    if table is None:
        app = state.extras["app"]
        table = [
            (compile_path(path)[0], {m.upper() for m in ops}, path)
            for path, ops in app.openapi().get("paths", {}).items()
        ]
        state.extras["templates"] = table
    for regex, methods, path in table:
        if scope["method"] in methods and regex.match(scope["path"]):
            return str(path)
    return "unmatched"


def _SLOW_BODY(seconds: float) -> HTTPException:
    return HTTPException(
        408,
        f"the request body stopped arriving for {seconds:g}s "
        "(COLMEIA_SERVICE_BODY_TIMEOUT_S); send it again",
    )


async def _refuse(
    send: Callable[[Message], Awaitable[None]],
    rid: str,
    refusal: HTTPException,
    *,
    close: bool = False,
) -> None:
    body = orjson.dumps(error_body(refusal.status_code, refusal.detail, rid))
    extra = [(k.lower().encode(), v.encode()) for k, v in (refusal.headers or {}).items()]
    await send(
        {
            "type": "http.response.start",
            "status": refusal.status_code,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"x-request-id", rid.encode()),
                *SECURITY_HEADERS,
                *extra,
                *([(b"connection", b"close")] if close else []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _too_large(
    send: Callable[[Message], Awaitable[None]], rid: str, mb: float, what: str = ""
) -> None:
    detail = what or f"the request body is larger than {mb:g} MB (COLMEIA_SERVICE_MAX_REQUEST_MB)"
    body = orjson.dumps(error_body(413, detail, rid))
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"x-request-id", rid.encode()),
                (b"connection", b"close"),
                *SECURITY_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _error(
    status: int, detail: Any, request: Request, code: str | None = None, headers: Any = None
) -> JSONResponse:
    rid = getattr(request.state, "request_id", "")
    return JSONResponse(error_body(status, detail, rid, code), status_code=status, headers=headers)


# what a 422 repeats of the input it refuses (a 1.2 MB query was echoed whole)
ECHO_CHARS = 80


def _short(value: Any) -> Any:
    if isinstance(value, str) and len(value) > ECHO_CHARS:
        return value[:ECHO_CHARS] + f"… ({len(value)} characters)"
    if isinstance(value, dict | list) and len(orjson.dumps(value, default=str)) > ECHO_CHARS * 2:
        return f"({type(value).__name__} not repeated)"
    return value


def _install_errors(app: FastAPI) -> None:
    from fastapi.exceptions import RequestValidationError

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = []
        for e in exc.errors():
            item = {k: v for k, v in e.items() if k not in ("ctx", "url")}
            if "input" in item:
                item["input"] = _short(item["input"])
            if isinstance(item.get("msg"), str) and len(item["msg"]) > 500:
                item["msg"] = item["msg"][:500] + "…"  # our own words; the input is not in it
            errors.append(item)
        return _error(422, orjson.loads(orjson.dumps(errors, default=str)), request)

    where = "request {}"

    @app.exception_handler(QueryError)
    async def _query(request: Request, exc: QueryError) -> JSONResponse:
        rid = getattr(request.state, "request_id", "")
        return _error(422, public_text(str(exc), where=where.format(rid)), request)

    @app.exception_handler(InputError)
    async def _input(request: Request, exc: InputError) -> JSONResponse:
        rid = getattr(request.state, "request_id", "")
        return _error(422, public_text(str(exc), where=where.format(rid)), request)

    @app.exception_handler(ConfigurationError)
    async def _config(request: Request, exc: ConfigurationError) -> JSONResponse:
        rid = getattr(request.state, "request_id", "")
        return _error(400, public_text(str(exc), where=where.format(rid)), request)

    @app.exception_handler(StoreError)
    async def _store(request: Request, exc: StoreError) -> JSONResponse:
        log.error("store error: %s", exc)
        return _error(503, "the database is not available right now; try again shortly", request)

    @app.exception_handler(ModelError)
    async def _model(request: Request, exc: ModelError) -> JSONResponse:
        # the model server's address and the exception go to the log, not to the caller
        rid = getattr(request.state, "request_id", "")
        log.error("request %s: the language model failed: %s: %s", rid, type(exc).__name__, exc)
        return _error(502, MODEL_FAILED, request)

    @app.exception_handler(ColmeiaError)
    async def _colmeia(request: Request, exc: ColmeiaError) -> JSONResponse:
        rid = getattr(request.state, "request_id", "")
        log.error("request %s: %s: %s", rid, type(exc).__name__, exc)
        return _error(
            500,
            "the request failed inside the service; the request id identifies it in the log",
            request,
        )

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error")
        return _error(500, "internal error; the request id identifies it in the logs", request)


def _limiter(service: ServiceSettings, db: Database) -> Limiter:
    """Redis counts everything when configured; without it the token quotas are counted in the
    service tables (shared by every process using them) and requests in this process."""
    if service.redis_url:
        shared: Counters = RedisCounters(service.redis_url, service.redis_prefix)
        return Limiter(shared, quota_window_s=service.quota_window_s)
    return Limiter(
        MemoryCounters(),
        quota_window_s=service.quota_window_s,
        quota_counters=DatabaseCounters(db),
    )


def build_state(
    settings: Settings | None = None, service: ServiceSettings | None = None
) -> ServiceState:
    """Open the tables and build everything a service process holds (no tasks started)."""
    from colmeia.service.auth import JwtVerifier

    settings = settings or get_settings()
    service = service or ServiceSettings()
    db = open_database(service.db_url(settings.home))
    jobs = JobStore(db)
    state = ServiceState(
        settings=settings,
        service=service,
        db=db,
        tenants=TenantSpace(settings.store_url(), settings.home),
        jobs=jobs,
        limiter=_limiter(service, db),
        metrics=Metrics(jobs.depth, jobs.oldest_queued),
        tracing=Tracing(service.otlp_endpoint),
        files=open_file_storage(
            service.files,
            settings.home,
            endpoint_url=service.s3_endpoint_url,
            region=service.s3_region,
            access_key_id=service.s3_access_key_id,
            secret_access_key=service.s3_secret_access_key.get_secret_value(),
            path_style=service.s3_path_style,
        ),
    )
    state.extras["jwt"] = JwtVerifier(service)
    return state


def _job_finished(state: ServiceState) -> Callable[[Job, str, JobContext], None]:
    def done(job: Job, status: str, ctx: JobContext) -> None:
        state.metrics.jobs.labels(job.kind, status).inc()
        state.metrics.model_usage(ctx.usage.by_model, job.tenant_id)
        if status == "failed":
            state.metrics.errors.labels("job").inc()
        tokens = ctx.usage.usage.total_tokens
        if tokens and job.created_by:
            asyncio.get_running_loop().create_task(state.limiter.spend(job.created_by, tokens))
        with contextlib.suppress(ColmeiaError):
            audit.record(
                state.db,
                tenant=job.tenant_id,
                actor="worker",
                action=f"job {job.kind} {status}",
                target=job.id,
                detail={"tokens": tokens, "simulated_calls": ctx.usage.usage.simulated},
            )

    return done


def _job_span(state: ServiceState) -> Callable[[Job], contextlib.AbstractContextManager[Any]]:
    @contextlib.contextmanager
    def around(job: Job) -> Iterator[None]:
        if not state.tracing.enabled:
            yield
            return
        tracer = state.tracing.tracer()
        token = graph_node_spans().set(node_span_handler(tracer))
        try:
            with tracer.start_as_current_span(
                f"job {job.kind}", attributes={"job.id": job.id, "job.attempt": job.attempts}
            ):
                yield
        finally:
            graph_node_spans().reset(token)

    return around


def create_app(
    settings: Settings | None = None,
    service: ServiceSettings | None = None,
    *,
    run_jobs: bool = True,
    simulated: bool = False,
) -> FastAPI:
    """The colmeia service. ``run_jobs=False`` serves the API without running jobs here."""
    from colmeia.service.routers import include_routers
    from colmeia.service.runners import runners

    state = build_state(settings, service)
    state.simulated = simulated

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        from colmeia.service.uploads import sweep_interrupted

        await asyncio.to_thread(sweep_interrupted, state.tenants.home / "tenants")
        await state.files.check()
        if state.settings.llm.base_url:
            from colmeia.llm import OpenAIChatModel

            state.model = OpenAIChatModel.from_settings(state.settings.llm)
        if run_jobs:
            state.worker = Worker(
                state.jobs,
                runners(state),
                concurrency=state.service.job_workers,
                lease_s=state.service.job_lease_s,
                on_finish=_job_finished(state),
                around=_job_span(state),
            )
            await state.worker.start()
        try:
            yield
        finally:
            if state.worker is not None:
                await state.worker.stop()
            await state.closers.aclose()
            aclose = getattr(state.model, "aclose", None)
            if aclose is not None:
                await aclose()
            await state.limiter.counters.aclose()
            state.tracing.close()
            state.tenants.close()
            state.files.close()
            state.db.close()

    app = FastAPI(
        title="colmeia",
        version=__version__,
        description=(
            "LLM agent systems for Portuguese and Spanish content: search and cited answers "
            "over your documents, the institutional assistant, moderation batches, literature "
            "reviews and agents. Authenticate with `X-API-Key` or `Authorization: Bearer`."
        ),
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        dependencies=[Depends(check_text)],
    )
    app.state.colmeia = state
    state.extras["app"] = app
    _install_errors(app)
    include_routers(app)
    app.add_middleware(ObservedApp, state=state)
    return app
