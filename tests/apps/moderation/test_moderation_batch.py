"""Batch runs: one result line per record, whatever the server or the input does."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from colmeia.apps.moderation.batch import BatchProgress, read_results, run_batch
from colmeia.apps.moderation.graph import Moderator
from colmeia.apps.moderation.io import load_records
from colmeia.errors import ConfigurationError
from colmeia.llm.openai_compat import OpenAIChatModel
from colmeia.sim.engine import Faults, SimRequest, SimulatedModel
from shared_data import DATA_DIR

DATA = DATA_DIR / "moderation"


def write_items(path: Path, n: int) -> Path:
    """``n`` sample records with unique ids, as JSONL."""
    raw = json.loads((DATA / "sample_items.json").read_text(encoding="utf-8"))
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(
                json.dumps({**raw[i % len(raw)], "id": f"item-{i}"}, ensure_ascii=False) + "\n"
            )
    return path


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def keys_of(path: Path) -> list[str]:
    return [json.loads(line)["key"] for line in lines_of(path)]


@pytest.fixture
async def moderator_for(sim_server: Any) -> AsyncIterator[Callable[..., Moderator]]:
    models: list[OpenAIChatModel] = []

    def make(sim: SimulatedModel, **model_kwargs: Any) -> Moderator:
        srv = sim_server(sim)
        kwargs: dict[str, Any] = {"max_repairs": 4, "backoff_base": 0.01, **model_kwargs}
        models.append(OpenAIChatModel(base_url=srv.base_url, model="sim", **kwargs))
        return Moderator(models[-1])

    yield make
    for model in models:
        await model.aclose()


async def test_500_records_against_a_faulty_server_lose_nothing(
    tmp_path: Path, moderator_for: Any
) -> None:
    faults = Faults(http_500=0.05, http_429=0.05, prose=0.05, truncated_json=0.05)
    moderator = moderator_for(SimulatedModel(schema_mode=True, faults=faults, seed=7))
    records = load_records([write_items(tmp_path / "items.jsonl", 500)])
    seen: list[int] = []
    summary = await run_batch(
        records,
        moderator,
        tmp_path / "out.jsonl",
        concurrency=32,
        on_progress=lambda p: seen.append(p.done),
    )
    keys = keys_of(tmp_path / "out.jsonl")
    assert len(keys) == 500
    assert set(keys) == {r.key for r in records}
    assert summary.complete
    assert summary.counts["ERROR"] < 0.005 * 500, summary.counts
    assert seen[-1] == 500  # the progress callback saw every durable write
    results = read_results(tmp_path / "out.jsonl")
    retried = sum(
        step["retries"] + step["repairs"] for r in results.values() for step in r["trail"]
    )
    assert retried > 0  # the faults did happen and were absorbed


async def test_malformed_file_gives_errors_and_results_for_every_valid_record(
    tmp_path: Path, moderator_for: Any
) -> None:
    source = tmp_path / "malformed.jsonl"
    source.write_bytes((DATA / "malformed_items.jsonl").read_bytes())
    records = load_records([source])
    out = tmp_path / "out.jsonl"
    summary = await run_batch(records, moderator_for(SimulatedModel(schema_mode=True)), out)
    results = read_results(out)
    assert len(lines_of(out)) == len(records) == 14
    assert summary.complete
    for rec in records:
        res = results[rec.key]
        if rec.ok:
            assert res["outcome"] != "ERROR", res["error"]
            assert res["trail"]
        else:
            assert res["outcome"] == "ERROR"
            assert res["error"] == rec.error
            assert res["trail"] == []
    assert results["2@" + str(source) + ":5"]["error"].startswith("record 2 (")
    assert results["2"]["outcome"] != "ERROR"  # the valid copy of record 2 was moderated


async def test_resume_drops_a_cut_off_line_and_redoes_only_what_is_missing(
    tmp_path: Path, moderator_for: Any
) -> None:
    sim = SimulatedModel(schema_mode=True, seed=3)
    moderator = moderator_for(sim)
    records = load_records([write_items(tmp_path / "items.jsonl", 20)])
    out = tmp_path / "out.jsonl"
    await run_batch(records, moderator, out, concurrency=4)
    before = lines_of(out)
    # As if killed while writing line 11: ten whole lines and half of the next.
    out.write_bytes(b"".join(before[:10]) + before[10][: len(before[10]) // 2])
    progress: list[BatchProgress] = []
    summary = await run_batch(records, moderator, out, resume=True, on_progress=progress.append)
    after = lines_of(out)
    assert len(after) == 20
    assert sorted(keys_of(out)) == sorted(r.key for r in records)
    assert after[:10] == before[:10]  # finished work is kept byte for byte
    assert (summary.skipped, summary.done) == (10, 10)
    assert progress[0].skipped == 10
    assert all(line.endswith(b"\n") for line in after)


async def test_retry_errors_redoes_errors_and_keeps_one_line_per_record(
    tmp_path: Path, moderator_for: Any
) -> None:
    records = load_records([write_items(tmp_path / "items.jsonl", 12)])
    target = records[3].item
    assert target is not None

    def flaky(req: SimRequest) -> str | dict[str, Any]:
        if target.question in json.dumps(req.messages, ensure_ascii=False):
            return "Não sei responder."  # prose: never valid, so this item ends in ERROR
        # Every other item ends well: kept, or (an original the store policy flags) rewritten
        # and accepted.
        return {
            "Suggestions": {"suggestions": ["Responda só o que o anúncio diz."]},
            "Rewrite": {"can_rewrite": True, "answer": "Olá! Veja o anúncio. Att.", "reason": ""},
            "Decision": {"reasoning": "Boa.", "decision": "answer"},
        }.get(str((req.schema or {}).get("title")), {"justification": "Boa resposta.", "score": 5})

    out = tmp_path / "out.jsonl"
    first = await run_batch(
        records, moderator_for(SimulatedModel(responder=flaky), max_repairs=1), out
    )
    errors = {k for k, v in read_results(out).items() if v["outcome"] == "ERROR"}
    same_question = {r.key for r in records if r.item and r.item.question == target.question}
    assert errors == same_question
    assert first.counts["ERROR"] == len(errors)
    kept_before = [line for line in lines_of(out) if json.loads(line)["key"] not in errors]

    # Another server is another endpoint: the manifest refuses that unless told it is wanted.
    plain = await run_batch(
        records,
        moderator_for(SimulatedModel(schema_mode=True)),
        out,
        resume=True,
        allow_mixed=True,
    )
    assert plain.done == 0  # --resume alone leaves ERROR lines alone

    second = await run_batch(
        records,
        moderator_for(SimulatedModel(schema_mode=True)),
        out,
        retry_errors=True,
        allow_mixed=True,
    )
    assert second.done == len(errors)
    assert len(lines_of(out)) == 12
    assert Counter(keys_of(out)) == Counter(r.key for r in records)
    results = read_results(out)
    assert all(results[k]["outcome"] != "ERROR" for k in errors)
    assert lines_of(out)[: len(kept_before)] == kept_before


async def test_existing_results_are_not_overwritten_by_accident(
    tmp_path: Path, moderator_for: Any
) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text('{"key": "x", "outcome": "KEEP_ORIGINAL"}\n')
    records = load_records([write_items(tmp_path / "items.jsonl", 1)])
    with pytest.raises(ConfigurationError, match="--resume"):
        await run_batch(records, moderator_for(SimulatedModel(schema_mode=True)), out)
    assert out.read_text() == '{"key": "x", "outcome": "KEEP_ORIGINAL"}\n'
