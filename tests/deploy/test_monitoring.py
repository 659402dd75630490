"""The Grafana dashboard and the Prometheus alert rules (deploy/monitoring): the rules pass
`promtool check rules` and their unit tests (`promtool test rules`), Prometheus's config is
valid, and every metric the dashboard and the rules read is one the service exports."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from prometheus_client import generate_latest

from colmeia.llm.base import Usage
from colmeia.service.observability import Metrics

ROOT = Path(__file__).resolve().parents[2]
MON = ROOT / "deploy" / "monitoring"
DASHBOARD = MON / "grafana" / "dashboards" / "colmeia.json"
METRIC = re.compile(r"\bcolmeia_[a-z_]+\b")


def promtool(*args: str, cwd: Path = MON) -> str:
    tool = shutil.which("promtool")
    if tool is None:
        pytest.skip("promtool is not installed (Debian package prometheus; .ci/run installs it)")
    out = subprocess.run([tool, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def exported_names() -> set[str]:
    """Every sample name the service's /metrics gives, with each metric exercised once."""
    metrics = Metrics(lambda: {("ingest", "queued"): 1}, lambda: {"ingest": 0.0})
    metrics.requests.labels("GET", "/v1/collections", "200").inc()
    metrics.latency.labels("GET", "/v1/collections").observe(0.1)
    metrics.errors.labels("model").inc()
    metrics.refusals.labels("token_quota").inc()
    metrics.jobs.labels("ingest", "succeeded").inc()
    metrics.moderated.labels("KEEP_ORIGINAL").inc()
    usage = Usage(prompt_tokens=5, completion_tokens=2, calls=1, cost=0.1)
    metrics.model_usage({"m": usage}, tenant="acme")
    text = generate_latest(metrics.registry).decode()
    return {line.split("{")[0].split(" ")[0] for line in text.splitlines() if line[:1] != "#"}


def dashboard_exprs() -> list[str]:
    board = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return [t["expr"] for p in board["panels"] for t in p["targets"]]


def rule_exprs() -> list[str]:
    rules = yaml.safe_load((MON / "alerts.yml").read_text(encoding="utf-8"))
    return [r["expr"] for g in rules["groups"] for r in g["rules"]]


def test_the_alert_rules_are_valid_and_pass_their_unit_tests() -> None:
    assert "SUCCESS: 6 rules found" in promtool("check", "rules", "alerts.yml")
    promtool("test", "rules", "alerts.test.yml")


def test_every_alert_has_a_unit_test_that_fires_it() -> None:
    tests = yaml.safe_load((MON / "alerts.test.yml").read_text(encoding="utf-8"))
    fired = {
        case["alertname"]
        for t in tests["tests"]
        for case in t.get("alert_rule_test", [])
        if case["exp_alerts"]
    }
    rules = yaml.safe_load((MON / "alerts.yml").read_text(encoding="utf-8"))
    assert fired == {r["alert"] for g in rules["groups"] for r in g["rules"]}


def test_prometheus_config_with_the_rules_is_valid(tmp_path: Path) -> None:
    config = yaml.safe_load((MON / "prometheus.yml").read_text(encoding="utf-8"))
    shutil.copy(MON / "alerts.yml", tmp_path / "alerts.yml")
    config["rule_files"] = [str(tmp_path / "alerts.yml")]
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    promtool("check", "config", "prometheus.yml", cwd=tmp_path)


def test_the_dashboard_and_rules_read_only_metrics_the_service_exports() -> None:
    exported = exported_names()
    used = {name for expr in dashboard_exprs() + rule_exprs() for name in METRIC.findall(expr)}
    assert used and used <= exported, used - exported


def test_the_dashboard_shows_what_an_operator_asked_for_from_the_provisioned_source() -> None:
    board = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    text = " ".join(dashboard_exprs())
    for metric in (
        "colmeia_http_requests_total",  # requests, errors
        "colmeia_http_request_duration_seconds_bucket",  # latency
        "colmeia_jobs_queue_depth",
        "colmeia_jobs_oldest_queued_age_seconds",
        "colmeia_model_calls_total",
        "colmeia_tenant_model_tokens_total",
        "colmeia_tenant_model_cost_total",
        "colmeia_moderation_records_total",
    ):
        assert metric in text, metric
    sources = yaml.safe_load(
        (MON / "grafana" / "provisioning" / "datasources" / "prometheus.yml").read_text("utf-8")
    )["datasources"]
    uids = {s["uid"] for s in sources}
    assert {p["datasource"]["uid"] for p in board["panels"]} <= uids
    ids = [p["id"] for p in board["panels"]]
    assert len(ids) == len(set(ids))
