"""The run manifest: what produced a results file, so a run can be checked, resumed and reported.

Beside ``results.jsonl`` lives ``results.manifest.json``: the colmeia version, each role's model
and endpoint, temperatures and prices, the threshold and rewrite cap, the audit language, the
policy (its file, SHA-256 and rules), a SHA-256 of every prompt template in use and the prompts
folder's path, hash and overridden templates (``prompts_dir``), and one entry per run
that wrote to the file (start, end, status, counts, usage, whether the model was colmeia's
simulated one). Every result line carries ``run``, the index of the run that wrote it.

A resumed run must use the settings the file was started with: :func:`differences` names every
setting that changed, and the batch refuses to go on unless told ``allow_mixed`` — in which case
the run's own settings are recorded and the report says the file mixes settings. Prices are
recorded but may change (they do not change what the models answer).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from colmeia import __version__
from colmeia.errors import InputError
from colmeia.llm.prompts import active_prompts, packaged_templates

if TYPE_CHECKING:
    from colmeia.apps.moderation.graph import Moderator

__all__ = [
    "MANIFEST_FORMAT",
    "Manifest",
    "RunRecord",
    "differences",
    "manifest_path",
    "now",
    "prompt_hashes",
    "read_manifest",
    "run_settings",
    "write_manifest",
]

MANIFEST_FORMAT = 1
_PROMPTS = (
    "_macros.j2",
    "semantic.j2",
    "contextual.j2",
    "suggester.j2",
    "rewriter.j2",
    "decider.j2",
)
# Settings that may differ between runs of one file without mixing results. The endpoint is one:
# the model name, prompts, threshold and cap decide the results, and the usual fix after a run
# stopped on a dead endpoint is a corrected URL (each run's own settings still record it).
_NOT_COMPARED = (
    "price_input_per_mtok",
    "price_output_per_mtok",
    "source",
    "base_url",
    "dir",  # where the prompts folder is: its content is compared through the hashes
)

RunStatus = Literal[
    "running", "complete", "complete_with_errors", "stopped", "interrupted", "failed"
]


def now() -> str:
    """The current time, UTC, ISO 8601 to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


class RunRecord(BaseModel):
    """One run that wrote to the results file."""

    model_config = ConfigDict(extra="allow")

    index: int
    colmeia_version: str = __version__
    started_at: str
    ended_at: str | None = None
    status: RunStatus = "running"
    resume: bool = False
    retry_errors: bool = False
    mixed: bool = Field(default=False, description="Settings differ from the file's.")
    differences: list[str] = Field(default_factory=list)
    settings: dict[str, Any] = Field(default_factory=dict)
    inputs: list[str] = Field(default_factory=list)
    records: int = 0
    skipped: int = 0
    written: int = 0
    counts: dict[str, int] = Field(default_factory=dict)
    usage: dict[str, float] = Field(default_factory=dict)
    simulated_answers: int = 0
    wall_s: float = 0.0
    items_per_min: float | None = None
    stop_reason: str | None = None


class Manifest(BaseModel):
    """Everything known about how a results file was produced."""

    model_config = ConfigDict(extra="allow")

    format: int = MANIFEST_FORMAT
    results: str
    created_at: str
    updated_at: str
    settings: dict[str, Any]
    mixed: bool = False
    simulated: bool = Field(
        default=False, description="Some answers came from colmeia's simulated model."
    )
    counts: dict[str, int] = Field(default_factory=dict)
    runs: list[RunRecord] = Field(default_factory=list)

    @property
    def last(self) -> RunRecord:
        return self.runs[-1]


def manifest_path(results: Path) -> Path:
    """``results.jsonl`` → ``results.manifest.json``."""
    return results.with_name(f"{results.stem if results.suffix else results.name}.manifest.json")


def prompt_hashes() -> dict[str, str]:
    """SHA-256 of each moderation prompt template in use (what the models were told): the
    prompts folder's copy where it has one, else the packaged one."""
    chosen = active_prompts()
    packaged = packaged_templates()["moderation"][1]
    out = {}
    for name in _PROMPTS:
        own = chosen.path / "moderation" / name if chosen else None
        path = own if own is not None and own.is_file() else packaged / name
        out[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def run_settings(moderator: Moderator) -> dict[str, Any]:
    """The settings of a moderator, as the manifest records them (no API keys)."""
    roles = {}
    for role, rm in moderator.models.items():
        roles[role] = {
            "model": rm.model.model,
            "base_url": rm.base_url or str(getattr(rm.model, "base_url", "")),
            "temperature": rm.temperature,
            "max_tokens": rm.max_tokens,
            "price_input_per_mtok": rm.price_input_per_mtok,
            "price_output_per_mtok": rm.price_output_per_mtok,
        }
    return {
        "threshold": moderator.threshold,
        "max_rewrites": moderator.max_rewrites,
        "audit_language": moderator.audit_language,
        "policy": moderator.policy.describe(),
        "roles": roles,
        "prompts": prompt_hashes(),
        "prompts_dir": moderator.prompts.describe() if moderator.prompts else None,
        "documents": moderator.documents.describe() if moderator.documents else None,
    }


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if k in _NOT_COMPARED:
                continue
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: value}


def differences(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """Each setting that differs, as ``name: old → new`` (a change shared by several roles is
    said once: ``model of all roles: 'a' → 'b'``)."""
    old, new = _flatten(before), _flatten(after)
    out = []
    per_role: dict[tuple[str, str, str], list[str]] = {}
    for name in sorted(old.keys() | new.keys()):
        a, b = old.get(name), new.get(name)
        if a == b:
            continue
        if name.startswith("roles."):
            _, role, setting = name.split(".", 2)
            per_role.setdefault((setting, repr(a), repr(b)), []).append(role)
        elif name.startswith("prompts."):
            out.append(f"prompt template {name.removeprefix('prompts.')} changed")
        elif name == "policy.sha256":
            out.append("policy file content changed" if a and b else "policy file added/removed")
        elif name.startswith("policy.rules"):
            continue  # summarised by the policy hash above
        elif name == "documents.collection":
            out.append(f"context collection (product documents): {a!r} → {b!r}")
        elif name.startswith("documents.") and (a is None or b is None):
            continue  # the collection was added or removed: said once above
        elif name in ("documents.documents", "documents.generation"):
            out.append(f"context collection content changed ({name}: {a!r} → {b!r})")
        else:
            out.append(f"{name}: {a!r} → {b!r}")
    roles = {r for key in (before.get("roles"), after.get("roles")) if key for r in key}
    for (setting, a, b), changed in per_role.items():
        who = "all roles" if set(changed) == roles else ", ".join(changed)
        out.append(f"{setting} of {who}: {a} → {b}")
    return out


def read_manifest(results: Path) -> Manifest | None:
    """The manifest of a results file, or ``None`` when it has none."""
    path = manifest_path(results)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputError(f"{path}: cannot read the run manifest ({exc.strerror})") from None
    try:
        return Manifest.model_validate(json.loads(data))
    except (json.JSONDecodeError, UnicodeDecodeError, ValidationError) as exc:
        raise InputError(
            f"{path}: not a valid run manifest ({str(exc).splitlines()[0]}); move it away to "
            "continue without one"
        ) from None


def write_manifest(results: Path, manifest: Manifest) -> Path:
    """Replace the manifest atomically (temporary file + ``os.replace``)."""
    path = manifest_path(results)
    manifest.updated_at = now()
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(manifest.model_dump_json(indent=2) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    return path
