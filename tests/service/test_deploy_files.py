"""The Dockerfile and compose.yaml, checked for structure. (No Docker engine runs on the test
machines, so the images are not built here: these checks are what can be verified offline.)"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from colmeia.service.settings import ServiceSettings

ROOT = Path(__file__).resolve().parents[2]


def _compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_compose_has_the_app_postgres_redis_and_an_optional_collector() -> None:
    services = _compose()["services"]
    always = {name for name, svc in services.items() if "profiles" not in svc}
    assert always == {"colmeia", "postgres", "redis"}
    assert services["otel-collector"]["profiles"] == ["otel"]  # off unless asked for
    for name in ("colmeia", "postgres", "redis"):
        assert "test" in services[name]["healthcheck"], name
    app = services["colmeia"]
    assert app["ports"] == ["8080:8080"]
    assert app["depends_on"] == {
        "postgres": {"condition": "service_healthy"},
        "redis": {"condition": "service_healthy"},
    }
    assert "/readyz" in " ".join(app["healthcheck"]["test"])


def test_compose_points_the_app_at_its_services_with_settings_it_knows() -> None:
    app = _compose()["services"]["colmeia"]
    env = app["environment"]
    known = {f"COLMEIA_SERVICE_{name.upper()}" for name in ServiceSettings.model_fields}
    known |= {"COLMEIA_STORE", "COLMEIA_LLM_BASE_URL", "COLMEIA_LLM_MODEL", "COLMEIA_LLM_API_KEY"}
    assert set(env) <= known, set(env) - known
    pg = _compose()["services"]["postgres"]["environment"]
    url = f"postgresql://{pg['POSTGRES_USER']}:{pg['POSTGRES_PASSWORD']}@postgres:5432/{pg['POSTGRES_DB']}"
    assert env["COLMEIA_STORE"].startswith(url + "?schema=")
    assert env["COLMEIA_SERVICE_DB"].startswith(url + "?schema=")
    assert env["COLMEIA_STORE"] != env["COLMEIA_SERVICE_DB"]
    assert env["COLMEIA_SERVICE_REDIS_URL"].startswith("redis://redis:6379")
    assert "colmeia-data:/data" in app["volumes"]
    # telemetry and models are off until configured
    assert env["COLMEIA_SERVICE_OTLP_ENDPOINT"] == "${COLMEIA_SERVICE_OTLP_ENDPOINT:-}"
    assert env["COLMEIA_LLM_BASE_URL"] == "${COLMEIA_LLM_BASE_URL:-}"


def test_the_collector_config_the_compose_file_mounts_receives_otlp_http() -> None:
    collector = _compose()["services"]["otel-collector"]
    source = collector["volumes"][0].split(":")[0]
    config = yaml.safe_load((ROOT / source).read_text(encoding="utf-8"))
    assert config["receivers"]["otlp"]["protocols"]["http"]["endpoint"].endswith(":4318")
    assert config["service"]["pipelines"]["traces"]["receivers"] == ["otlp"]
    assert collector["ports"] == ["4318:4318"]


def test_dockerfile_installs_the_locked_dependencies_and_runs_unprivileged() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    # the public Python image by default; a local stand-in with --build-arg BASE=…
    assert re.search(r"^ARG BASE=python:3\.11-slim$", text, re.M)
    assert re.search(r"^FROM \$\{BASE\}", text, re.M)
    assert "ARG LOCK=requirements.lock" in text  # the default image: no extras
    assert "pip install --require-hashes -r ${LOCK}" in text
    assert (ROOT / "requirements.lock").is_file()
    assert re.search(r"^USER (?!root)\S+", text, re.M)
    assert "EXPOSE 8080" in text and "/readyz" in text
    assert re.search(r'^CMD \["serve", "--host", "0.0.0.0", "--port", "8080"\]', text, re.M)
    for line in re.findall(r"^COPY (\S+)", text, re.M):
        line = line.replace("${LOCK}", "requirements.lock")
        assert (ROOT / line).exists(), f"COPY {line}: not in the repository"


def test_the_replicas_profile_puts_two_replicas_with_the_same_settings_behind_the_proxy() -> None:
    services = _compose()["services"]
    replica, proxy, app = services["colmeia-replica"], services["proxy"], services["colmeia"]
    assert replica["profiles"] == proxy["profiles"] == ["replicas"]
    assert replica["deploy"]["replicas"] == 2
    # one job queue, one set of limits, one data volume: the replicas share the work
    assert replica["environment"] == app["environment"]
    assert "colmeia-data:/data" in replica["volumes"]
    source = proxy["volumes"][0].split(":")[0]
    conf = (ROOT / source).read_text(encoding="utf-8")
    assert "server colmeia-replica:8080" in conf
    assert re.search(r"listen 8090;", conf) and proxy["ports"] == ["8090:8090"]


def test_the_ray_profile_runs_a_head_two_workers_and_a_service_that_sends_jobs_to_them() -> None:
    services = _compose()["services"]
    head, worker, svc = services["ray-head"], services["ray-worker"], services["colmeia-on-ray"]
    assert head["profiles"] == worker["profiles"] == svc["profiles"] == ["ray"]
    assert head["build"]["args"]["LOCK"] == "requirements-ray.lock"
    assert (ROOT / "requirements-ray.lock").exists()
    assert "ray==" in (ROOT / "requirements-ray.lock").read_text(encoding="utf-8")
    assert "--head" in head["command"] and worker["deploy"]["replicas"] == 2
    assert "--address=ray-head:6379" in worker["command"]
    env = svc["environment"]
    assert env["COLMEIA_SERVICE_EXECUTOR"] == "ray"
    # a Ray node without CPUs (a driver needs a local raylet), then the cluster it joined
    assert env["COLMEIA_SERVICE_RAY_ADDRESS"] == "auto"
    assert "ray start --address=ray-head:6379 --num-cpus=0" in svc["command"][0]
    known = {f"COLMEIA_SERVICE_{name.upper()}" for name in ServiceSettings.model_fields}
    assert {k for k in env if k.startswith("COLMEIA_SERVICE_")} <= known
    assert "ARG LOCK=requirements.lock" in (ROOT / "Dockerfile").read_text(encoding="utf-8")
