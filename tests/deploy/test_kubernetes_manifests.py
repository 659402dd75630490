"""The Kubernetes install (deploy/kubernetes: a Kustomize base and overlays), rendered with
`kubectl kustomize` and checked against the Kubernetes API schemas that kubernetes-validate
ships (no cluster needed), then for what an operator relies on: probes, resources, non-root
pods, autoscalers and budgets aimed at real Deployments, and only settings the service knows."""

from __future__ import annotations

import copy
import functools
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from colmeia.service.settings import ServiceSettings

# a dev dependency (requirements-dev.in); a venv made before it was locked skips these tests
kubernetes_validate = pytest.importorskip(
    "kubernetes_validate", reason="kubernetes-validate is not installed (make install)"
)

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "kubernetes"
KUBERNETES = "1.30.0"  # the oldest release the install supports
OVERLAYS = ["base", "overlays/production", "overlays/ray"]
CRDS = {"RayCluster"}  # KubeRay's resource: not in the Kubernetes schemas


def render(target: str) -> list[dict[str, Any]]:
    return copy.deepcopy(_render(target))


@functools.cache
def _render(target: str) -> list[dict[str, Any]]:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl (with its built-in kustomize) is not installed")
    out = subprocess.run(
        [kubectl, "kustomize", str(K8S / target)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return [doc for doc in yaml.safe_load_all(out.stdout) if doc]


def by_kind(docs: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}


@pytest.mark.parametrize("target", OVERLAYS)
def test_every_rendered_resource_is_valid_for_the_kubernetes_api(target: str) -> None:
    docs = render(target)
    assert docs
    for doc in docs:
        if doc["kind"] in CRDS:
            continue
        # strict: an unknown field (a typo) is an error, not something the cluster drops
        kubernetes_validate.validate(doc, KUBERNETES, strict=True)


def test_a_typo_in_a_manifest_is_caught_by_the_schema_check() -> None:
    deployment = by_kind(render("overlays/production"), "Deployment")["colmeia-api"]
    deployment["spec"]["template"]["spec"]["containers"][0]["livenesProbe"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES, strict=True)


def test_the_api_and_workers_run_unprivileged_with_probes_and_resources() -> None:
    docs = render("overlays/production")
    deployments = by_kind(docs, "Deployment")
    assert set(deployments) == {"colmeia-api", "colmeia-worker"}
    for name, dep in deployments.items():
        pod = dep["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["runAsUser"] == 10001  # the image's user
        (box,) = pod["containers"]
        assert box["image"] == "registry.tribunal.example/colmeia:0.1.0", name
        assert box["securityContext"]["readOnlyRootFilesystem"] is True
        assert box["livenessProbe"]["httpGet"]["path"] == "/healthz"
        assert box["readinessProbe"]["httpGet"]["path"] == "/readyz"
        assert box["resources"]["requests"]["cpu"] and box["resources"]["limits"]["memory"]
        mounts = {m["mountPath"] for m in box["volumeMounts"]}
        assert {"/data", "/tmp"} <= mounts  # the only writable places
    # the API queues jobs and runs none; the workers run them
    assert (
        "--no-jobs"
        in deployments["colmeia-api"]["spec"]["template"]["spec"]["containers"][0]["args"]
    )
    assert (
        "--jobs"
        in deployments["colmeia-worker"]["spec"]["template"]["spec"]["containers"][0]["args"]
    )
    assert (
        by_kind(docs, "Service")["colmeia"]["spec"]["selector"]["app.kubernetes.io/component"]
        == "api"
    )


def test_autoscalers_and_disruption_budgets_aim_at_the_deployments_pods() -> None:
    docs = render("overlays/production")
    deployments = by_kind(docs, "Deployment")
    hpas = by_kind(docs, "HorizontalPodAutoscaler")
    assert {h["spec"]["scaleTargetRef"]["name"] for h in hpas.values()} == set(deployments)
    for hpa in hpas.values():
        assert hpa["spec"]["minReplicas"] >= 2
    pdbs = by_kind(docs, "PodDisruptionBudget")
    covered = set()
    for pdb in pdbs.values():
        want = pdb["spec"]["selector"]["matchLabels"]
        for name, dep in deployments.items():
            labels = dep["spec"]["template"]["metadata"]["labels"]
            if want.items() <= labels.items():
                covered.add(name)
    assert covered == set(deployments)


def test_network_policies_deny_by_default_and_open_only_the_service_port() -> None:
    policies = by_kind(render("overlays/production"), "NetworkPolicy")
    deny = policies["colmeia-default-deny"]["spec"]
    assert deny["policyTypes"] == ["Ingress", "Egress"] and "ingress" not in deny
    ingress_ports = {
        p["port"]
        for pol in policies.values()
        for rule in pol["spec"].get("ingress", [])
        for p in rule["ports"]
    }
    assert ingress_ports == {8080}


def test_the_configuration_and_secrets_hold_only_settings_the_service_knows() -> None:
    docs = render("overlays/production")
    config = next(iter(by_kind(docs, "ConfigMap").values()))["data"]
    secret = next(iter(by_kind(docs, "Secret").values()))["data"]
    known = {f"COLMEIA_SERVICE_{name.upper()}" for name in ServiceSettings.model_fields}
    known |= {"COLMEIA_HOME", "COLMEIA_STORE"} | {
        f"COLMEIA_LLM_{n}" for n in ("BASE_URL", "MODEL", "API_KEY")
    }
    assert set(config) | set(secret) <= known, (set(config) | set(secret)) - known
    assert config["COLMEIA_SERVICE_FILES"].startswith("s3://")  # replicas share files
    # credentials are in the Secret, never in the ConfigMap
    assert not {k for k in config if "SECRET" in k or "PASSWORD" in k or k.endswith("API_KEY")}
    assert {"COLMEIA_SERVICE_DB", "COLMEIA_SERVICE_S3_SECRET_ACCESS_KEY"} <= set(secret)
    ServiceSettings(
        **{
            k.removeprefix("COLMEIA_SERVICE_").lower(): v
            for k, v in config.items()
            if k.startswith("COLMEIA_SERVICE_")
        }
    )


def test_the_ray_overlay_adds_a_kuberay_cluster_and_sends_moderation_to_it() -> None:
    docs = render("overlays/ray")
    (cluster,) = by_kind(docs, "RayCluster").values()
    assert cluster["apiVersion"] == "ray.io/v1"
    head = cluster["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    (group,) = cluster["spec"]["workerGroupSpecs"]
    worker = group["template"]["spec"]["containers"][0]
    assert head["image"] == worker["image"] == "registry.tribunal.example/colmeia-ray:0.1.0"
    assert group["minReplicas"] <= group["replicas"] <= group["maxReplicas"]
    ray_version = cluster["spec"]["rayVersion"]
    assert f"ray=={ray_version}" in (ROOT / "requirements-ray.lock").read_text(encoding="utf-8")
    config = next(iter(by_kind(docs, "ConfigMap").values()))["data"]
    assert config["COLMEIA_SERVICE_EXECUTOR"] == "ray"
    assert config["COLMEIA_SERVICE_RAY_ADDRESS"] == "auto"  # the cluster its pod joined
    worker_pod = by_kind(docs, "Deployment")["colmeia-worker"]["spec"]["template"]["spec"]
    (box,) = worker_pod["containers"]
    assert box["image"] == head["image"]  # the driver's Ray is the cluster's Ray
    assert f"ray start --address={cluster['metadata']['name']}-head-svc:6379" in box["args"][0]
