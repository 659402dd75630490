"""Operators' view: traces over OTLP to a collector (only when configured), Prometheus
metrics, JSON logs with request ids."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from colmeia.service.simulated import demo_model
from shared_data import DATA_DIR

DOC = "Regulamento\n\nArt. 1º O prazo de recurso administrativo é de dez dias úteis.\n"


class Collector:
    """A loopback OTLP/HTTP trace collector: keeps the names and attributes of the spans."""

    def __init__(self) -> None:
        self.spans: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                with outer.lock:
                    for rs in request.resource_spans:
                        for ss in rs.scope_spans:
                            for span in ss.spans:
                                attrs = {a.key: a.value for a in span.attributes}
                                outer.spans.append(
                                    {
                                        "name": span.name,
                                        "attrs": attrs,
                                        "trace": span.trace_id.hex(),
                                        "status": span.status.code,
                                    }
                                )
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1/traces"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def names(self) -> list[str]:
        with self.lock:
            return [s["name"] for s in self.spans]

    def wait_for(self, name: str, timeout: float = 10) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                found = [s for s in self.spans if s["name"].startswith(name)]
            if found:
                return found
            time.sleep(0.05)
        raise AssertionError(f"no span {name!r}; got {sorted(set(self.names()))}")


@pytest.fixture
def collector() -> Iterator[Collector]:
    c = Collector()
    yield c
    c.server.shutdown()
    c.server.server_close()


def _ingest(svc: Any, h: dict[str, str]) -> None:
    files = [("files", ("regulamento.txt", DOC.encode(), "text/plain"))]
    r = svc.client.post("/v1/collections/regras/documents", files=files, headers=h)
    assert svc.wait_job(r.json()["id"], h)["status"] == "succeeded"


def test_spans_for_requests_model_calls_and_graph_nodes_reach_the_collector(
    collector: Collector, make_service: Any, tmp_path: Path
) -> None:
    svc = make_service(model=demo_model(), otlp_endpoint=collector.url)
    h = svc.key("acme")
    _ingest(svc, h)
    r = svc.client.post("/v1/ask", json={"question": "prazo de recurso"}, headers=h)
    assert r.status_code == 200
    requests = collector.wait_for("HTTP POST /v1/ask")
    assert requests[0]["attrs"]["http.status_code"].int_value == 200
    calls = collector.wait_for("llm.call")
    assert any(c["attrs"]["simulated"].bool_value for c in calls)
    assert {c["trace"] for c in calls} & {
        r["trace"] for r in requests
    }  # the call is in the request's trace

    records = json.loads((DATA_DIR / "moderation" / "sample_items.json").read_text("utf-8"))[:3]
    batch = [("files", ("b.json", json.dumps(records).encode(), "application/json"))]
    job = svc.client.post("/v1/moderation/jobs", files=batch, headers=h).json()
    done = svc.wait_job(job["id"], h)
    assert done["status"] == "succeeded", done
    svc.state.tracing.flush()
    nodes = {n["name"] for n in collector.wait_for("graph.node")}
    assert "graph.node reviewers" in nodes and len(nodes) >= 2  # the other nodes depend on scores
    jobs = collector.wait_for("job moderation")
    assert {c["trace"] for c in collector.wait_for("graph.node reviewers")} <= {
        j["trace"] for j in jobs
    }


def test_nothing_is_exported_without_an_endpoint(collector: Collector, make_service: Any) -> None:
    svc = make_service(model=demo_model())
    h = svc.key("acme")
    _ingest(svc, h)
    svc.client.post("/v1/ask", json={"question": "prazo"}, headers=h)
    time.sleep(1.0)
    assert collector.names() == []
    assert not svc.state.tracing.enabled


def test_metrics_count_requests_latency_tokens_errors_and_queue_depth(make_service: Any) -> None:
    svc = make_service(model=demo_model())
    h = svc.key("acme")
    _ingest(svc, h)
    svc.client.post("/v1/ask", json={"question": "prazo de recurso"}, headers=h)
    svc.client.get("/v1/collections", headers={"X-API-Key": "cmk_bad"})
    text = svc.client.get("/metrics").text
    assert 'colmeia_http_requests_total{method="POST",route="/v1/ask",status="200"} 1.0' in text
    assert (
        'colmeia_http_requests_total{method="GET",route="/v1/collections",status="401"} 1.0' in text
    )
    assert "colmeia_http_request_duration_seconds_bucket" in text
    assert 'colmeia_model_calls_total{model="sim",simulated="true"} 1.0' in text
    prompt = [
        ln
        for ln in text.splitlines()
        if ln.startswith('colmeia_model_tokens_total{direction="prompt",model="sim"}')
    ]
    assert prompt and float(prompt[0].split()[-1]) > 0
    assert 'colmeia_jobs_queue_depth{kind="ingest",status="queued"} 0.0' in text
    assert 'colmeia_jobs_total{kind="ingest",status="succeeded"} 1.0' in text


def test_log_lines_are_json_with_the_request_id(
    make_service: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    import logging

    from colmeia.service.observability import setup_logging

    root = logging.getLogger()
    saved = (list(root.handlers), root.level, logging.getLogger("colmeia").level)
    try:
        setup_logging("json", "INFO")
        svc = make_service()
        h = svc.key("acme")
        r = svc.client.get("/v1/collections", headers={**h, "X-Request-ID": "req-123"})
        assert r.headers["x-request-id"] == "req-123"
        generated = svc.client.get("/v1/me", headers=h).headers["x-request-id"]
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
        logging.getLogger("colmeia").setLevel(saved[2])
    lines = [
        json.loads(line) for line in capsys.readouterr().err.splitlines() if line.startswith("{")
    ]
    mine = [entry for entry in lines if entry.get("request_id") == "req-123"]
    assert mine and mine[-1]["msg"] == "GET /v1/collections 200" and mine[-1]["tenant"] == "acme"
    assert any(entry.get("request_id") == generated for entry in lines)


def test_metrics_for_the_dashboard_tokens_per_tenant_queue_age_and_moderated_records(
    make_service: Any,
) -> None:
    svc = make_service(model=demo_model())
    ha, hb = svc.key("acme"), svc.key("globex")
    _ingest(svc, ha)
    svc.client.post("/v1/ask", json={"question": "prazo de recurso"}, headers=ha)
    records = json.loads((DATA_DIR / "moderation" / "sample_items.json").read_text("utf-8"))[:4]
    files = [("files", ("lote.json", json.dumps(records).encode(), "application/json"))]
    job = svc.client.post("/v1/moderation/jobs", files=files, headers=hb).json()
    done = svc.wait_job(job["id"], hb)
    assert done["status"] == "succeeded"
    # a job queued an hour ago that no worker took (kind with no runner): the queue's age
    svc.state.jobs.create("acme", "nightly-export", {}, created_by="test")
    svc.state.db.execute(
        "UPDATE jobs SET created_at = created_at - 3600 WHERE kind = 'nightly-export'"
    )

    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in svc.state.metrics.registry.collect()
        for s in family.samples
    }

    def value(name: str, **labels: str) -> float:
        return samples[(name, tuple(sorted(labels.items())))]

    # tokens and cost per tenant: the ask was acme's, the moderation job globex's
    assert value("colmeia_tenant_model_tokens_total", tenant="acme", direction="prompt") > 0
    assert value("colmeia_tenant_model_tokens_total", tenant="globex", direction="prompt") > 0
    tenants = {dict(k[1]).get("tenant") for k in samples if k[0].startswith("colmeia_tenant_")}
    assert tenants == {"acme", "globex"}
    # moderation throughput: one count per record, by outcome
    moderated = {
        dict(k[1])["outcome"]: v
        for k, v in samples.items()
        if k[0] == "colmeia_moderation_records_total"
    }
    assert sum(moderated.values()) == 4
    assert moderated == {k: float(v) for k, v in done["result"]["counts"].items()}
    age = value("colmeia_jobs_oldest_queued_age_seconds", kind="nightly-export")
    assert 3600 <= age < 3700
    assert value("colmeia_jobs_oldest_queued_age_seconds", kind="ingest") == 0.0
