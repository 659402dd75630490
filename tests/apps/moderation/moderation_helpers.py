"""Helpers shared by the moderation tests (imported by name: a test module never imports
``conftest``, whose module name every test folder shares)."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from colmeia.sim.engine import SimRequest
from shared_data import DATA_DIR

SAMPLE = DATA_DIR / "moderation" / "sample_items.json"
_ROLE_OF = {
    "SemanticReview": "semantic",
    "ContextualReview": "contextual",
    "Suggestions": "suggester",
    "Rewrite": "rewriter",
    "Decision": "decider",
}


def strict_model(req: SimRequest) -> dict[str, Any]:
    role = _ROLE_OF[str((req.schema or {}).get("title"))]
    user = "\n".join(str(m.get("content") or "") for m in req.messages if m["role"] == "user")
    if role in ("semantic", "contextual"):
        under_review = user.split("ANSWER UNDER REVIEW:", 1)[-1]
        cites = "conforme a descrição" in under_review or "según la descripción" in under_review
        return {
            "justification": "Cita o anúncio." if cites else "Vaga.",
            "score": 5 if cites else 2,
        }
    if role == "suggester":
        return {"suggestions": ["Cite a descrição do anúncio."]}
    if role == "rewriter":
        if "WRITE THE ANSWER IN: Spanish" in user:
            text = "Hola. Sí, es así según la descripción del anuncio. Saludos."
        else:
            text = "Olá! Sim, é assim conforme a descrição do anúncio. Atenciosamente."
        return {"can_rewrite": True, "answer": text, "reason": ""}
    return {"reasoning": "A reescrita responde à pergunta.", "decision": "answer"}


@dataclass(frozen=True)
class SampleRuns:
    folder: Path
    gold: Path
    a: Path
    b: Path


def copy_run(run: Path, to: Path) -> Path:
    """A results file and its manifest copied into ``to`` (tests may then change them)."""
    out = Path(shutil.copy(run, to / run.name))
    manifest = run.with_name(f"{run.stem}.manifest.json")
    shutil.copy(manifest, to / manifest.name)
    return out


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def batch_result(outcome: str = "KEEP_ORIGINAL", **extra: Any) -> dict[str, Any]:
    """One record's result as a moderator returns it (a first-review keep by default); the
    batch tests pass their own per-record function, so no model is reached."""
    return {
        "outcome": outcome,
        "reason_code": "first_review",
        "final_answer": "Sim, cabe.",
        "revisions": 0,
        "scores": {"original": 9.0, "rewrites": []},
        "reason": "ok",
        "policy": None,
        "trail": [],
        "usage": {"calls": 2, "prompt_tokens": 10, "completion_tokens": 5, "cost": 0.5},
        "error": None,
        "error_kind": None,
        **extra,
    }
