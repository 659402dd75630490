"""The compose stack's parts agree with each other (the stack itself is run by `make
deploy-check`, which needs podman): what the monitoring profile mounts exists, and the loopback
override's proxy and Prometheus point at the ports its replicas listen on."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _load(path: str) -> dict[str, Any]:
    # podman-compose's !reset/!override tags: read as plain values here
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!reset", lambda loader, node: None)
    Loader.add_constructor(
        "!override",
        lambda loader, node: (
            loader.construct_sequence(node)
            if isinstance(node, yaml.SequenceNode)
            else loader.construct_mapping(node)
        ),
    )
    data = yaml.load((ROOT / path).read_text(encoding="utf-8"), Loader=Loader)
    assert isinstance(data, dict)
    return data


def _port(command: list[str]) -> int:
    return int(command[command.index("--port") + 1])


def test_the_monitoring_profiles_mount_files_that_exist() -> None:
    services = _load("compose.yaml")["services"]
    assert services["prometheus"]["profiles"] == ["monitoring"]
    assert services["grafana"]["profiles"] == ["dashboards"]
    for name in ("prometheus", "grafana"):
        for volume in services[name]["volumes"]:
            assert (ROOT / volume.split(":")[0]).exists(), volume


def test_the_loopback_proxy_and_prometheus_reach_the_replicas_ports() -> None:
    services = _load("deploy/compose.loopback.yaml")["services"]
    replicas = {_port(services[n]["command"]) for n in ("colmeia-replica", "colmeia-replica-2")}
    assert len(replicas) == 2
    conf = (ROOT / "deploy" / "nginx.loopback.conf").read_text(encoding="utf-8")
    assert {int(p) for p in re.findall(r"server 127\.0\.0\.1:(\d+)", conf)} == replicas
    prom = yaml.safe_load(
        (ROOT / "deploy" / "monitoring" / "prometheus.loopback.yml").read_text(encoding="utf-8")
    )
    targets = {t for c in prom["scrape_configs"] for s in c["static_configs"] for t in s["targets"]}
    assert {f"127.0.0.1:{p}" for p in replicas | {_port(services["colmeia"]["command"])}} == targets
    for name, svc in services.items():
        assert svc.get("network_mode") == "host", name  # nothing leaves loopback
        for arg in svc.get("command") or []:
            assert "0.0.0.0" not in str(arg), name
