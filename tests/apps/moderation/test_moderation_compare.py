"""`moderate compare` only compares what both runs evaluated.

Two real runs over the shipped sample, each against a model server that fails (HTTP 500, no
retry) on its own set of questions: the runs end with different ERROR sets, and every metric of
the comparison must be computed on the items both runs evaluated, saying how many were left out
and why.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from moderation_helpers import SampleRuns, read_json, strict_model

from colmeia.apps.moderation.batch import run_batch
from colmeia.apps.moderation.compare import compare_runs
from colmeia.apps.moderation.graph import Moderator
from colmeia.apps.moderation.io import load_records
from colmeia.apps.moderation.results import read_results
from colmeia.eval.stats import mcnemar
from colmeia.llm.openai_compat import OpenAIChatModel
from colmeia.sim.engine import SimRequest, SimulatedModel
from colmeia.sim.server import SimServer


def _failing_on(questions: set[str], name: str) -> SimulatedModel:
    def responder(req: SimRequest) -> dict[str, Any]:
        user = "\n".join(str(m.get("content") or "") for m in req.messages if m["role"] == "user")
        if any(f"QUESTION: {q}\n" in user or f"): {q}\n" in user for q in questions):
            raise RuntimeError("this model cannot answer that question")
        return strict_model(req)

    return SimulatedModel(responder=responder, model_name=name)


async def _run(sim: SimulatedModel, gold: Path, out: Path) -> None:
    with SimServer(sim) as srv:
        async with OpenAIChatModel(
            base_url=srv.base_url, model=sim.model_name, max_retries=0, backoff_base=0.0
        ) as model:
            await run_batch(load_records([gold]), Moderator(model), out, concurrency=16)


@pytest.fixture(scope="module")
def two_runs_with_errors(
    sample_runs: SampleRuns, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path, Path]:
    folder = tmp_path_factory.mktemp("errors")
    gold = folder / "gold.json"  # 80 of the shipped records keep the two runs short
    gold.write_text(json.dumps(read_json(sample_runs.gold)[:80], ensure_ascii=False), "utf-8")
    records = load_records([gold])
    questions = [r.item.question for r in records if r.item is not None]
    x, y = folder / "x.jsonl", folder / "y.jsonl"
    asyncio.run(_run(_failing_on(set(questions[:12]), "model-x"), gold, x))
    asyncio.run(_run(_failing_on(set(questions[8:28]), "model-y"), gold, y))
    return gold, x, y


def test_compare_on_runs_with_different_error_sets_reports_only_shared_items(
    two_runs_with_errors: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    gold, x, y = two_runs_with_errors
    rx, ry = read_results(x), read_results(y)
    errors_x = {k for k, r in rx.items() if r["outcome"] == "ERROR"}
    errors_y = {k for k, r in ry.items() if r["outcome"] == "ERROR"}
    assert errors_x and errors_y and errors_x != errors_y  # the runs failed on different items
    shared = [k for k in rx if k not in errors_x | errors_y]

    compare_runs(x, y, [gold], tmp_path, names=("X", "Y"))
    data = read_json(tmp_path / "compare.json")
    assert data["shared"]["n"] == len(shared)
    assert data["left_out"]["n"] == 80 - len(shared)
    assert data["left_out"]["by_reason"] == {
        "ERROR in X": len(errors_x),
        "ERROR in Y": len(errors_y - errors_x),
    }
    assert data["evaluated"] == [80 - len(errors_x), 80 - len(errors_y)]
    metrics = {m["metric"]: m for m in data["metrics"]}
    assert (
        metrics["shared items compared"]["a"]
        == metrics["shared items compared"]["b"]
        == (len(shared))
    )
    assert metrics["items evaluated in this run"]["a"] == 80 - len(errors_x)

    # Accuracy by hand, on the shared items only.
    labels = {r.key: r.item.correct for r in load_records([gold]) if r.item is not None}

    def right(results: dict[str, Any], key: str) -> bool:
        return (results[key]["outcome"] == "KEEP_ORIGINAL") == labels[key]

    for run, results in (("a", rx), ("b", ry)):
        expected = sum(right(results, k) for k in shared) / len(shared)
        assert metrics["accuracy"][run] == pytest.approx(expected, abs=1e-6)
    counts = [metrics[f"{c} ({w})"]["a"] for c, w in (
        ("TP", "flagged, label incorrect"), ("FP", "flagged, label correct"),
        ("FN", "kept, label incorrect"), ("TN", "kept, label correct"))]  # fmt: skip
    assert sum(counts) == len(shared)
    f1_flag, f1_keep = metrics["F1 (flagged)"]["a"], metrics["F1 (keep)"]["a"]
    assert metrics["macro F1"]["a"] == pytest.approx((f1_flag + f1_keep) / 2, abs=1e-6)

    # McNemar on the same paired items.
    only_x = sum(right(rx, k) and not right(ry, k) for k in shared)
    only_y = sum(right(ry, k) and not right(rx, k) for k in shared)
    assert data["differences"]["mcnemar"] == mcnemar(only_x, only_y).as_dict()

    # Table 4: each label group's outcomes add up to the group, on shared items only.
    for run in ("X", "Y"):
        groups = data["label_groups"][run]
        assert groups["label correct"]["n"] + groups["label incorrect"]["n"] == len(shared)
        for g in groups.values():
            assert (
                sum(g[o]["n"] for o in ("KEEP_ORIGINAL", "ANSWER_REVISED", "DO_NOT_ANSWER"))
                == (g["n"])
            )
    # Table 5 and Fig. 4 are in the page.
    page = (tmp_path / "compare.html").read_text(encoding="utf-8")
    assert f"{80 - len(shared)} items were left out of every metric" in page
    assert "Table 4" in page and "Table 5" in page and "Fig. 4" in page
    assert 'src="compare_score_change.png"' in page
    assert (tmp_path / "compare_score_change.png").stat().st_size > 1000
    assert {s["group"] for s in data["segments"]["locale"]} == {"pt", "es"}
