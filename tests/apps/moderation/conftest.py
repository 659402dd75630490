"""Fixtures for the moderation tests: two finished runs over the shipped sample, made once.

``sample_runs`` moderates ``data/moderation/sample_items.json`` twice over real HTTP, with two
simulated models that behave differently, so that report, review and comparison tests read
real results files (with their manifests) without paying for a run each:

* ``a``: the schema-driven simulated model (random valid answers, seed 1);
* ``b``: a scripted "strict" model: reviewers keep only answers that cite the listing
  ("conforme a descrição" / "según la descripción"), the rewriter writes a short answer in the
  language it is asked for, the decider accepts every rewrite.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from colmeia.apps.moderation.batch import run_batch
from colmeia.apps.moderation.graph import Moderator
from colmeia.apps.moderation.io import load_records
from colmeia.llm.openai_compat import OpenAIChatModel
from colmeia.sim.engine import SimRequest, SimulatedModel
from colmeia.sim.server import SimServer
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


async def _moderate(sim: SimulatedModel, out: Path, gold: Path) -> None:
    with SimServer(sim) as srv:
        async with OpenAIChatModel(base_url=srv.base_url, model=sim.model_name) as model:
            await run_batch(load_records([gold]), Moderator(model), out, concurrency=32)


@pytest.fixture(scope="session")
def sample_runs(tmp_path_factory: pytest.TempPathFactory) -> SampleRuns:
    folder = tmp_path_factory.mktemp("sample_runs")
    gold = Path(shutil.copy(SAMPLE, folder / "sample_items.json"))
    runs = SampleRuns(folder, gold, folder / "a.jsonl", folder / "b.jsonl")
    asyncio.run(_moderate(SimulatedModel(schema_mode=True, seed=1), runs.a, gold))
    strict = SimulatedModel(responder=strict_model, model_name="strict-sim")
    asyncio.run(_moderate(strict, runs.b, gold))
    return runs


def copy_run(run: Path, to: Path) -> Path:
    """A results file and its manifest copied into ``to`` (tests may then change them)."""
    out = Path(shutil.copy(run, to / run.name))
    manifest = run.with_name(f"{run.stem}.manifest.json")
    shutil.copy(manifest, to / manifest.name)
    return out


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))
