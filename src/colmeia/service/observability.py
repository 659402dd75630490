"""What the service tells its operators: JSON logs with request ids, Prometheus metrics, traces.

* Logs: one JSON object per line with the request id, tenant and key of the request that
  caused it (``COLMEIA_SERVICE_LOG_FORMAT=text`` for people).
* Metrics (``/metrics``): requests, latency, errors, model tokens, cost and calls (simulated
  ones apart; tokens and cost per tenant too), jobs, queue depth and the age of the oldest
  queued job, moderated records by outcome, in a registry of the app's own. The Grafana
  dashboard and the Prometheus alert rules in ``deploy/monitoring`` read these names.
* Traces: nothing is exported unless ``COLMEIA_SERVICE_OTLP_ENDPOINT`` is set; then every
  request, model call (``colmeia.tracing``), tool and LangGraph node is a span sent over
  OTLP/HTTP. OpenTelemetry allows one global tracer provider per process; a fan-out processor
  lets several apps in one process (tests) each add and remove their own exporter.
"""

from __future__ import annotations

import contextvars
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import orjson
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from colmeia.llm.base import Usage

__all__ = [
    "JsonFormatter",
    "Metrics",
    "Tracing",
    "request_context",
    "setup_logging",
]

request_context: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "colmeia_request_context", default=None
)

_LOG_FIELDS = ("request_id", "tenant", "key", "job")
_STD_ATTRS = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message"}


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, request id and extras."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        data.update({k: v for k, v in (request_context.get() or {}).items() if k in _LOG_FIELDS})
        for key, value in record.__dict__.items():
            if key not in _STD_ATTRS and not key.startswith("_"):
                data[key] = value
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return orjson.dumps(data, default=str).decode()


def setup_logging(fmt: str, level: str) -> None:
    """Log to stderr as JSON lines (or plain text) at ``level``."""
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):  # the server owns the process: one format for every line
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    logging.getLogger("colmeia").setLevel(level.upper())  # the CLI's quieter default is not ours
    # uvicorn's access log repeats what the request log line already says
    logging.getLogger("uvicorn.access").setLevel(logging.WARNING)
    # rendered prompts and model replies hold tenants' documents and questions: a service
    # logs them only when asked for DEBUG, never at INFO (the CLI's -v shows them at INFO)
    debug = level.upper() == "DEBUG"
    logging.getLogger("colmeia.llm.trace").setLevel(logging.INFO if debug else logging.WARNING)


class _QueueDepth(Collector):
    def __init__(self, depth: Callable[[], Mapping[tuple[str, str], int]]) -> None:
        self._depth = depth

    def collect(self) -> Iterable[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "colmeia_jobs_queue_depth",
            "Jobs not yet ended, by kind and status.",
            labels=["kind", "status"],
        )
        try:
            found = self._depth()
        except Exception:  # a scrape must not fail because the database blinked
            found = {}
        for kind in ("ingest", "moderation", "review"):
            for status in ("queued", "running"):
                family.add_metric([kind, status], found.get((kind, status), 0))
        for (kind, status), n in found.items():
            if kind not in ("ingest", "moderation", "review"):
                family.add_metric([kind, status], n)
        yield family


class _QueueAge(Collector):
    def __init__(self, oldest: Callable[[], Mapping[str, float]]) -> None:
        self._oldest = oldest

    def collect(self) -> Iterable[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "colmeia_jobs_oldest_queued_age_seconds",
            "Seconds the oldest queued job of each kind has waited (0: none waiting).",
            labels=["kind"],
        )
        try:
            found = self._oldest()
        except Exception:  # a scrape must not fail because the database blinked
            found = {}
        now = time.time()
        for kind in sorted({"ingest", "moderation", "review", *found}):
            created = found.get(kind)
            family.add_metric([kind], max(0.0, now - created) if created else 0.0)
        yield family


class Metrics:
    """The service's Prometheus metrics, in their own registry."""

    def __init__(
        self,
        queue_depth: Callable[[], Mapping[tuple[str, str], int]],
        oldest_queued: Callable[[], Mapping[str, float]] | None = None,
    ) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "colmeia_http_requests", "HTTP requests.", ["method", "route", "status"], registry=r
        )
        self.latency = Histogram(
            "colmeia_http_request_duration_seconds",
            "Time to the end of the response.",
            ["method", "route"],
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
            registry=r,
        )
        self.errors = Counter(
            "colmeia_errors",
            "Failures: 5xx answers, failed jobs, model errors.",
            ["kind"],
            registry=r,
        )
        self.refusals = Counter(
            "colmeia_refusals", "Requests refused: auth, rate limit, quota.", ["reason"], registry=r
        )
        self.tokens = Counter(
            "colmeia_model_tokens", "Model tokens used.", ["model", "direction"], registry=r
        )
        self.cost = Counter(
            "colmeia_model_cost", "Model cost (configured prices).", ["model"], registry=r
        )
        self.calls = Counter(
            "colmeia_model_calls", "Model calls.", ["model", "simulated"], registry=r
        )
        self.tenant_tokens = Counter(
            "colmeia_tenant_model_tokens",
            "Model tokens used, by tenant.",
            ["tenant", "direction"],
            registry=r,
        )
        self.tenant_cost = Counter(
            "colmeia_tenant_model_cost",
            "Model cost (configured prices), by tenant.",
            ["tenant"],
            registry=r,
        )
        self.jobs = Counter("colmeia_jobs", "Jobs ended.", ["kind", "status"], registry=r)
        self.moderated = Counter(
            "colmeia_moderation_records",
            "Records of ended moderation jobs, by outcome (ERROR: not moderated).",
            ["outcome"],
            registry=r,
        )
        self.inflight = Gauge("colmeia_http_inflight", "Requests being served.", registry=r)
        r.register(_QueueDepth(queue_depth))
        if oldest_queued is not None:
            r.register(_QueueAge(oldest_queued))

    def model_usage(self, by_model: Mapping[str, Usage], tenant: str = "") -> None:
        for model, usage in by_model.items():
            if tenant:
                if usage.prompt_tokens:
                    self.tenant_tokens.labels(tenant, "prompt").inc(usage.prompt_tokens)
                if usage.completion_tokens:
                    self.tenant_tokens.labels(tenant, "completion").inc(usage.completion_tokens)
                if usage.cost:
                    self.tenant_cost.labels(tenant).inc(usage.cost)
            if usage.prompt_tokens:
                self.tokens.labels(model, "prompt").inc(usage.prompt_tokens)
            if usage.completion_tokens:
                self.tokens.labels(model, "completion").inc(usage.completion_tokens)
            if usage.cost:
                self.cost.labels(model).inc(usage.cost)
            if usage.calls:
                real = usage.calls - usage.simulated
                if usage.simulated:
                    self.calls.labels(model, "true").inc(usage.simulated)
                if real > 0:
                    self.calls.labels(model, "false").inc(real)
            if usage.errors:
                self.errors.labels("model").inc(usage.errors)


class _Fanout:
    """A span processor forwarding to the exporters of the apps alive in this process."""

    def __init__(self) -> None:
        self.processors: list[Any] = []
        self.lock = threading.Lock()

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        for p in list(self.processors):
            p.on_start(span, parent_context=parent_context)

    def on_end(self, span: Any) -> None:
        for p in list(self.processors):
            p.on_end(span)

    def _on_ending(self, span: Any) -> None:
        return None

    def shutdown(self) -> None:
        for p in list(self.processors):
            p.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return all(p.force_flush(timeout_millis) for p in list(self.processors))


_FANOUT: _Fanout | None = None
_FANOUT_LOCK = threading.Lock()


def _fanout() -> _Fanout:
    global _FANOUT
    with _FANOUT_LOCK:
        if _FANOUT is None:
            from opentelemetry import trace
            from opentelemetry.sdk.resources import Resource
            from opentelemetry.sdk.trace import TracerProvider

            provider = TracerProvider(resource=Resource.create({"service.name": "colmeia"}))
            _FANOUT = _Fanout()
            provider.add_span_processor(_FANOUT)  # type: ignore[arg-type]
            trace.set_tracer_provider(provider)
        return _FANOUT


class Tracing:
    """This app's trace exporter (OTLP/HTTP), or nothing when no endpoint is configured."""

    def __init__(self, endpoint: str | None) -> None:
        self.endpoint = endpoint
        self._processor: Any = None
        self._hook_token: contextvars.Token[Any] | None = None
        if not endpoint:
            return
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        self._processor = BatchSpanProcessor(
            OTLPSpanExporter(endpoint=endpoint, timeout=5), schedule_delay_millis=500
        )
        fan = _fanout()
        with fan.lock:
            fan.processors.append(self._processor)

    @property
    def enabled(self) -> bool:
        return self._processor is not None

    def tracer(self) -> Any:
        from opentelemetry import trace

        return trace.get_tracer("colmeia.service")

    def flush(self) -> None:
        if self._processor is not None:
            self._processor.force_flush(5000)

    def close(self) -> None:
        if self._processor is None:
            return
        fan = _fanout()
        with fan.lock:
            if self._processor in fan.processors:
                fan.processors.remove(self._processor)
        self._processor.shutdown()
        self._processor = None


_GRAPH_HANDLER: contextvars.ContextVar[Any] = contextvars.ContextVar(
    "colmeia_graph_span_handler", default=None
)
_HOOKED = False


def graph_node_spans() -> contextvars.ContextVar[Any]:
    """The context variable that, when set to a handler, makes LangGraph nodes spans.

    LangChain's callback manager consults registered context variables for every run
    (``register_configure_hook``): graphs built by the apps get node spans without any
    change to them or to their callers.
    """
    global _HOOKED
    if not _HOOKED:
        from langchain_core.tracers.context import register_configure_hook

        register_configure_hook(_GRAPH_HANDLER, inheritable=True)
        _HOOKED = True
    return _GRAPH_HANDLER


def node_span_handler(tracer: Any) -> Any:
    """A LangChain callback handler turning each LangGraph node run into a span."""
    from langchain_core.callbacks import BaseCallbackHandler

    class NodeSpans(BaseCallbackHandler):
        run_inline = True
        raise_error = False

        def __init__(self) -> None:
            self.spans: dict[Any, tuple[Any, float]] = {}

        def on_chain_start(
            self,
            serialized: Any,
            inputs: Any,
            *,
            run_id: Any,
            parent_run_id: Any = None,
            tags: list[str] | None = None,
            metadata: dict[str, Any] | None = None,
            **kwargs: Any,
        ) -> None:
            node = (metadata or {}).get("langgraph_node")
            name = kwargs.get("name")
            if (
                not node
                or name != node
                or any(t.startswith("langgraph:hidden") for t in tags or ())
            ):
                return
            span = tracer.start_span(
                f"graph.node {node}",
                attributes={
                    "graph.node": str(node),
                    "graph.step": int((metadata or {}).get("langgraph_step", 0)),
                },
            )
            self.spans[run_id] = (span, time.perf_counter())

        def _end(self, run_id: Any, error: BaseException | None = None) -> None:
            found = self.spans.pop(run_id, None)
            if found is None:
                return
            span = found[0]
            if error is not None and type(error).__name__ not in (
                "GraphInterrupt",
                "ParentCommand",
            ):
                from opentelemetry.trace import Status, StatusCode

                span.set_status(Status(StatusCode.ERROR, type(error).__name__))
            span.end()

        def on_chain_end(self, outputs: Any, *, run_id: Any, **kwargs: Any) -> None:
            self._end(run_id)

        def on_chain_error(self, error: BaseException, *, run_id: Any, **kwargs: Any) -> None:
            self._end(run_id, error)

    return NodeSpans()
