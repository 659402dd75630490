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
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from moderation_helpers import SAMPLE, SampleRuns, strict_model

from colmeia.apps.moderation.batch import run_batch
from colmeia.apps.moderation.graph import Moderator
from colmeia.apps.moderation.io import load_records
from colmeia.apps.moderation.records import ModerationItem
from colmeia.llm.openai_compat import OpenAIChatModel
from colmeia.sim.engine import SimulatedModel
from colmeia.sim.server import SimServer


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


@pytest.fixture
async def moderator() -> AsyncIterator[Moderator]:
    """A moderator whose model is never reached (each batch run passes its own per-record
    function); its address is a closed port on 127.0.0.1."""
    model = OpenAIChatModel(base_url="http://127.0.0.1:9/v1", model="sim", max_retries=0)
    yield Moderator(model)
    await model.aclose()


@pytest.fixture
def item() -> ModerationItem:
    """The second record of the shipped sample: Portuguese, a Logitech mouse, its answer
    starting "Olá, obrigado"."""
    return ModerationItem.model_validate(json.loads(SAMPLE.read_text("utf-8"))[1])
