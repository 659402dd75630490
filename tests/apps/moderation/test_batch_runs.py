"""A batch run's results file, summary and manifest, line by line, with a per-record function in
place of the model (the ``moderate=`` hook the distributed runner uses): what each line holds,
how a run ends (complete, with errors, stopped, interrupted), what resume, retry and overwrite
keep, and what is refused before the file is touched. No server: each run takes milliseconds.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from moderation_helpers import batch_result

from colmeia.apps.moderation.batch import (
    BatchProgress,
    error_result,
    prepare_batch,
    run_batch,
)
from colmeia.apps.moderation.graph import Moderator
from colmeia.apps.moderation.io import load_records
from colmeia.apps.moderation.manifest import read_manifest
from colmeia.apps.moderation.records import ModerationItem
from colmeia.errors import ConfigurationError
from colmeia.llm.openai_compat import OpenAIChatModel
from colmeia.sim.engine import SimulatedModel

Moderate = Callable[[ModerationItem], Awaitable[dict[str, Any]]]
ZERO = {"KEEP_ORIGINAL": 0, "ANSWER_REVISED": 0, "DO_NOT_ANSWER": 0, "ERROR": 0}


def _by_answer(outcomes: dict[str, dict[str, Any]]) -> Moderate:
    async def moderate(item: ModerationItem) -> dict[str, Any]:
        await asyncio.sleep(0)
        return outcomes.get(item.answer) or batch_result()

    return moderate


def _items(path: Path, n: int, **extra: Any) -> Path:
    rows = [
        {
            "id": f"p{i}",
            "question": f"Pergunta {i}?",
            "answer": f"a{i}",
            "locale": "pt_BR",
            "category": "moda",
            "feedback": f"nota {i}",
            **extra,
        }
        for i in range(n)
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def _lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.read_bytes().splitlines()]


async def _run(
    records: Any, moderator: Moderator, out: Path, moderate: Moderate, **options: Any
) -> Any:
    run_options = {
        k: options.pop(k)
        for k in ("concurrency", "stop_after", "on_progress", "engine")
        if k in options
    }
    with prepare_batch(records, moderator, out, **options) as batch:
        return await batch.run(moderate=moderate, **run_options)


async def test_each_record_gets_one_line_saying_what_it_was_and_what_was_decided(
    tmp_path: Path, moderator: Moderator
) -> None:
    records = load_records([_items(tmp_path / "in.jsonl", 3)])
    out = tmp_path / "out.jsonl"
    seen: list[tuple[int, int, int]] = []

    def progress(p: BatchProgress) -> None:
        seen.append((p.skipped, p.done, p.finished))

    revised = batch_result("ANSWER_REVISED", final_answer="Cabe, sim.")
    summary = await _run(
        records, moderator, out, _by_answer({"a1": revised}), concurrency=2, on_progress=progress
    )
    lines = sorted(_lines(out), key=lambda r: r["key"])
    assert lines[0] == {
        "id": "p0",
        "key": "p0",
        "source": records[0].source,
        "run": 0,
        "locale": "pt_BR",
        "category": "moda",
        "intent": None,
        "question": "Pergunta 0?",
        "original_answer": "a0",
        "feedback": "nota 0",
        **batch_result(),
    }
    assert lines[1]["outcome"] == "ANSWER_REVISED" and lines[1]["final_answer"] == "Cabe, sim."
    assert summary.out == out and summary.run_index == 0
    assert (summary.total, summary.skipped, summary.done) == (3, 0, 3)
    assert summary.counts == {**ZERO, "KEEP_ORIGINAL": 2, "ANSWER_REVISED": 1}
    assert (summary.status, summary.stop_reason, summary.missing) == ("complete", None, [])
    assert summary.complete
    assert summary.usage == {"calls": 6, "prompt_tokens": 30, "completion_tokens": 15, "cost": 1.5}
    assert seen[0] == (0, 0, 0) and seen[-1] == (0, 3, 3)
    assert out.read_bytes().endswith(b"\n") and len(out.read_bytes().splitlines()) == 3


async def test_a_record_that_cannot_be_read_gets_an_error_line_and_the_run_says_so(
    tmp_path: Path, moderator: Moderator
) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(
        json.dumps({"id": "ok", "question": "Q?", "answer": "a"}) + "\n" + '{"id": "bad"}\n',
        encoding="utf-8",
    )
    records = load_records([path])
    bad = next(r for r in records if not r.ok)
    out = tmp_path / "out.jsonl"
    summary = await _run(records, moderator, out, _by_answer({}))
    lines = {r["key"]: r for r in _lines(out)}
    assert set(lines) == {"ok", bad.key}
    assert lines[bad.key] == {
        "id": "bad",
        "key": bad.key,
        "source": bad.source,
        "run": 0,
        "locale": None,
        "category": None,
        "intent": None,
        "question": None,
        "original_answer": None,
        "feedback": None,
        **error_result(bad, str(bad.error)),
    }
    assert lines[bad.key]["error_kind"] == "input" and lines[bad.key]["outcome"] == "ERROR"
    assert summary.status == "complete_with_errors"
    assert summary.counts == {**ZERO, "KEEP_ORIGINAL": 1, "ERROR": 1}
    assert summary.complete


def test_an_error_line_is_empty_apart_from_the_error() -> None:
    records = load_records([])
    assert records == []
    from colmeia.apps.moderation.io import LoadedRecord

    rec = LoadedRecord("k", "in.jsonl:3", None, "no question")
    assert error_result(rec, "no question") == {
        "outcome": "ERROR",
        "reason_code": None,
        "final_answer": None,
        "revisions": 0,
        "scores": {"original": None, "rewrites": []},
        "reason": "",
        "policy": None,
        "trail": [],
        "usage": {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost": 0.0},
        "error": "no question",
        "error_kind": "input",
    }


async def test_an_answer_a_strict_encoder_refuses_is_still_written(
    tmp_path: Path, moderator: Moderator
) -> None:
    records = load_records([_items(tmp_path / "in.jsonl", 1)])
    out = tmp_path / "out.jsonl"
    odd = batch_result(final_answer="meio \ud800 caractere")
    await _run(records, moderator, out, _by_answer({"a0": odd}))
    raw = out.read_bytes()
    assert b"\\ud800" in raw and raw.endswith(b"\n")
    assert json.loads(raw)["final_answer"] == "meio \ud800 caractere"


async def test_an_existing_file_is_never_overwritten_by_accident(
    tmp_path: Path, moderator: Moderator
) -> None:
    records = load_records([_items(tmp_path / "in.jsonl", 2)])
    out = tmp_path / "out.jsonl"
    await _run(records, moderator, out, _by_answer({}))
    before = out.read_bytes()
    with pytest.raises(ConfigurationError) as err:
        prepare_batch(records, moderator, out)
    assert str(err.value) == (
        f"{out} already exists: pass --resume to continue it (--retry-errors to redo its "
        "errors too) or --overwrite to start again"
    )
    assert out.read_bytes() == before
    again = await _run(records, moderator, out, _by_answer({}), overwrite=True)
    # starting again starts a new file: its first run, its own manifest
    assert (again.skipped, again.done, again.run_index) == (0, 2, 0)
    assert len(_lines(out)) == 2
    manifest = read_manifest(out)
    assert manifest is not None and len(manifest.runs) == 1


async def test_resume_keeps_finished_lines_drops_a_cut_one_and_counts_what_was_there(
    tmp_path: Path, moderator: Moderator, caplog: pytest.LogCaptureFixture
) -> None:
    records = load_records([_items(tmp_path / "in.jsonl", 4)])
    out = tmp_path / "out.jsonl"
    revised = batch_result("ANSWER_REVISED")
    await _run(records, moderator, out, _by_answer({"a0": revised}), concurrency=1)
    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:2]) + lines[2][:20])
    calls: list[str] = []

    async def moderate(item: ModerationItem) -> dict[str, Any]:
        calls.append(item.answer)
        return batch_result()

    seen: list[dict[str, int]] = []
    summary = await _run(
        records,
        moderator,
        out,
        moderate,
        resume=True,
        on_progress=lambda p: seen.append(dict(p.counts)),
    )
    assert sorted(calls) == ["a2", "a3"]
    assert (summary.skipped, summary.done, summary.run_index) == (2, 2, 1)
    assert summary.counts == {**ZERO, "KEEP_ORIGINAL": 3, "ANSWER_REVISED": 1}
    assert seen[0] == {"ANSWER_REVISED": 1, "KEEP_ORIGINAL": 1}  # before anything new
    assert out.read_bytes().splitlines(keepends=True)[:2] == lines[:2]
    assert sorted(r["key"] for r in _lines(out)) == ["p0", "p1", "p2", "p3"]
    assert "dropping a cut-off last line" in caplog.text


async def test_a_resume_with_nothing_to_fix_leaves_the_file_as_it_was(
    tmp_path: Path, moderator: Moderator
) -> None:
    records = load_records([_items(tmp_path / "in.jsonl", 2)])
    out = tmp_path / "out.jsonl"
    await _run(records, moderator, out, _by_answer({}))
    inode = os.stat(out).st_ino
    summary = await _run(records, moderator, out, _by_answer({}), resume=True)
    assert (summary.skipped, summary.done) == (2, 0)
    assert os.stat(out).st_ino == inode  # not rewritten
    # a repeated line is: one line per key afterwards
    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join([*lines, lines[0]]))
    await _run(records, moderator, out, _by_answer({}), resume=True)
    assert sorted(r["key"] for r in _lines(out)) == ["p0", "p1"]
    assert os.stat(out).st_ino != inode


async def test_retry_errors_redoes_only_the_error_lines(
    tmp_path: Path, moderator: Moderator
) -> None:
    records = load_records([_items(tmp_path / "in.jsonl", 3)])
    out = tmp_path / "out.jsonl"
    failed = batch_result("ERROR", error="timeout", error_kind="timeout")
    first = await _run(records, moderator, out, _by_answer({"a1": failed}))
    assert first.status == "complete_with_errors"
    kept = {r["key"]: r for r in _lines(out) if r["key"] != "p1"}
    # a plain resume keeps the error line
    plain = await _run(records, moderator, out, _by_answer({}), resume=True)
    assert (plain.done, plain.status) == (0, "complete_with_errors")
    retried = await _run(records, moderator, out, _by_answer({}), retry_errors=True)
    assert (retried.skipped, retried.done, retried.status) == (2, 1, "complete")
    after = {r["key"]: r for r in _lines(out)}
    assert after["p1"]["outcome"] == "KEEP_ORIGINAL" and after["p1"]["run"] == 2
    assert {k: v for k, v in after.items() if k != "p1"} == kept


@pytest.mark.parametrize("kind", ["unreachable", "auth", "not_found"])
async def test_a_model_server_that_cannot_be_used_stops_the_run_after_n_in_a_row(
    tmp_path: Path, moderator: Moderator, kind: str
) -> None:
    records = load_records([_items(tmp_path / "in.jsonl", 6)])
    out = tmp_path / "out.jsonl"
    dead = batch_result("ERROR", error="connection refused", error_kind=kind)

    async def moderate(item: ModerationItem) -> dict[str, Any]:
        return dead

    summary = await _run(records, moderator, out, moderate, concurrency=1, stop_after=3)
    assert summary.status == "stopped"
    assert summary.stop_reason == (
        "stopped after 3 items in a row failed because the model server cannot be used — "
        "connection refused"
    )
    assert summary.done == 3 and summary.missing == ["p3", "p4", "p5"]
    assert not summary.complete
    manifest = read_manifest(out)
    assert manifest is not None
    assert (manifest.last.status, manifest.last.stop_reason) == ("stopped", summary.stop_reason)


async def test_other_failures_or_a_success_between_do_not_stop_the_run(
    tmp_path: Path, moderator: Moderator
) -> None:
    records = load_records([_items(tmp_path / "in.jsonl", 6)])
    out = tmp_path / "out.jsonl"
    dead = batch_result("ERROR", error="refused", error_kind="unreachable")
    other = batch_result("ERROR", error="bad output", error_kind="output")
    answers = {"a0": dead, "a1": dead, "a2": batch_result(), "a3": dead, "a4": dead, "a5": other}
    summary = await _run(records, moderator, out, _by_answer(answers), concurrency=1, stop_after=3)
    assert (summary.status, summary.done, summary.stop_reason) == ("complete_with_errors", 6, None)
    never = await _run(
        records, moderator, out, _by_answer({}), overwrite=True, stop_after=0, concurrency=1
    )
    assert never.status == "complete"
    out.unlink()
    every = {f"a{i}": dead for i in range(6)}
    summary = await _run(records, moderator, out, _by_answer(every), stop_after=0, concurrency=1)
    assert (summary.status, summary.done) == ("complete_with_errors", 6)
    out.unlink()
    summary = await _run(records, moderator, out, _by_answer(every), stop_after=6, concurrency=1)
    # the sixth failure in a row is the last item: nothing is left to stop, all is written
    assert (summary.status, summary.done, summary.missing) == ("complete_with_errors", 6, [])
    assert summary.stop_reason is not None and summary.stop_reason.startswith("stopped after 6")


async def test_bad_run_options_are_refused_before_anything_is_moderated(
    tmp_path: Path, moderator: Moderator
) -> None:
    records = load_records([_items(tmp_path / "in.jsonl", 2)])
    out = tmp_path / "out.jsonl"
    with pytest.raises(ConfigurationError) as err:
        await _run(records, moderator, out, _by_answer({}), concurrency=0)
    assert str(err.value) == "concurrency must be at least 1"
    with pytest.raises(ConfigurationError) as err:
        await _run(records, moderator, out, _by_answer({}), stop_after=-1, resume=True)
    assert str(err.value) == "stop_after must be 0 (never stop) or more"
    assert out.read_bytes() == b""


async def test_a_second_run_on_the_same_file_is_refused_while_the_first_holds_it(
    tmp_path: Path, moderator: Moderator
) -> None:
    records = load_records([_items(tmp_path / "in.jsonl", 2)])
    out = tmp_path / "out.jsonl"
    with prepare_batch(records, moderator, out):
        with pytest.raises(ConfigurationError) as err:
            prepare_batch(records, moderator, out, resume=True)
        assert str(err.value) == (
            f"{out} is being written by another run; wait for it or choose another --out"
        )
    assert (tmp_path / ".out.jsonl.lock").exists()
    with prepare_batch(records, moderator, out, resume=True) as again:
        assert again.run_index == 1


async def test_the_manifest_records_each_run(tmp_path: Path, moderator: Moderator) -> None:
    path = _items(tmp_path / "in.jsonl", 3)
    records = load_records([path])
    out = tmp_path / "out.jsonl"
    usage = {"calls": 1, "prompt_tokens": 3, "completion_tokens": 1, "cost": 0.25, "simulated": 1}
    simulated = batch_result(usage=usage)
    with prepare_batch(records, moderator, out, inputs=[path]) as batch:
        await batch.run(moderate=_by_answer({"a0": simulated}), engine={"kind": "ray"})
    manifest = read_manifest(out)
    assert manifest is not None
    assert manifest.results == "out.jsonl" and not manifest.mixed
    assert manifest.simulated
    assert manifest.counts == {"KEEP_ORIGINAL": 3}
    (run,) = manifest.runs
    assert (run.index, run.status, run.resume, run.retry_errors) == (0, "complete", False, False)
    assert (run.records, run.skipped, run.written) == (3, 0, 3)
    assert run.inputs == [str(path)]
    assert run.counts == {**ZERO, "KEEP_ORIGINAL": 3}
    assert run.usage == {
        "calls": 5.0,
        "prompt_tokens": 23.0,
        "completion_tokens": 11.0,
        "cost": 1.25,
        "simulated": 1.0,
    }
    assert run.simulated_answers == 1
    assert run.ended_at is not None and run.wall_s >= 0
    assert run.settings == {} and run.differences == []
    assert run.model_dump()["engine"] == {"kind": "ray"}
    assert run.items_per_min is not None and run.wall_s > 0
    # wall_s is kept to the millisecond: on a run of about one, the speed it implies is only
    # known within that rounding (141,594 items/min measured, 180,000 from wall_s = 0.001)
    fastest, slowest = 3 / max(run.wall_s - 0.0005, 1e-9) * 60, 3 / (run.wall_s + 0.0005) * 60
    assert slowest * 0.99 <= run.items_per_min <= fastest * 1.01
    await _run(records, moderator, out, _by_answer({}), resume=True, retry_errors=True)
    manifest = read_manifest(out)
    assert manifest is not None and [r.index for r in manifest.runs] == [0, 1]
    assert (manifest.last.resume, manifest.last.retry_errors) == (True, True)
    assert manifest.last.skipped == 3 and manifest.last.written == 0


async def test_a_resume_with_other_settings_is_refused_unless_mixing_is_allowed(
    tmp_path: Path, moderator: Moderator
) -> None:
    records = load_records([_items(tmp_path / "in.jsonl", 2)])
    out = tmp_path / "out.jsonl"
    await _run(records, moderator, out, _by_answer({}))
    stricter = Moderator(moderator.models, threshold=9.0)
    before = out.read_bytes()
    with pytest.raises(ConfigurationError) as err:
        prepare_batch(records, stricter, out, resume=True)
    assert str(err.value) == (
        f"{out} was started with other settings (threshold: 8.0 → 9.0); rerun with the same "
        "settings, pass --allow-mixed to mix them in one file (the report will say so), or "
        "write to another --out"
    )
    assert out.read_bytes() == before
    await _run(records, stricter, out, _by_answer({}), resume=True, allow_mixed=True)
    manifest = read_manifest(out)
    assert manifest is not None and manifest.mixed
    assert manifest.last.mixed and manifest.last.differences == ["threshold: 8.0 → 9.0"]
    assert manifest.last.settings["threshold"] == 9.0
    assert manifest.settings["threshold"] == 8.0


async def test_a_file_without_a_manifest_is_continued_only_when_mixing_is_allowed(
    tmp_path: Path, moderator: Moderator
) -> None:
    records = load_records([_items(tmp_path / "in.jsonl", 2)])
    out = tmp_path / "out.jsonl"
    await _run(records, moderator, out, _by_answer({}))
    (tmp_path / "out.manifest.json").unlink()
    with pytest.raises(ConfigurationError) as err:
        prepare_batch(records, moderator, out, resume=True)
    assert str(err.value) == (
        f"{out} has no run manifest (written by an older colmeia), so its settings are "
        "unknown; pass --allow-mixed to continue it anyway, or --overwrite to start again"
    )
    summary = await _run(records, moderator, out, _by_answer({}), resume=True, allow_mixed=True)
    assert summary.skipped == 2
    manifest = read_manifest(out)
    assert manifest is not None and manifest.mixed and manifest.last.mixed
    assert manifest.last.differences == [
        "the earlier lines have no manifest: their settings are unknown"
    ]
    # an empty file without a manifest holds nothing to mix up
    out.write_bytes(b"")
    (tmp_path / "out.manifest.json").unlink()
    summary = await _run(records, moderator, out, _by_answer({}), resume=True)
    manifest = read_manifest(out)
    assert summary.done == 2 and manifest is not None and manifest.last.mixed


async def test_an_interrupted_run_writes_what_finished_and_says_it_was_interrupted(
    tmp_path: Path, moderator: Moderator
) -> None:
    records = load_records([_items(tmp_path / "in.jsonl", 5)])
    out = tmp_path / "out.jsonl"
    started = asyncio.Event()

    async def moderate(item: ModerationItem) -> dict[str, Any]:
        if item.answer in ("a0", "a1"):
            return batch_result()
        started.set()
        await asyncio.Event().wait()  # a model that never answers
        return batch_result()

    with prepare_batch(records, moderator, out) as batch:
        task = asyncio.create_task(batch.run(moderate=moderate, concurrency=1))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert sorted(r["key"] for r in _lines(out)) == ["p0", "p1"]
    manifest = read_manifest(out)
    assert manifest is not None
    assert (manifest.last.status, manifest.last.written) == ("interrupted", 2)


async def test_run_batch_moderates_with_the_moderator_itself(
    tmp_path: Path, sim_server: Any
) -> None:
    srv = sim_server(SimulatedModel(schema_mode=True, seed=5))
    records = load_records([_items(tmp_path / "in.jsonl", 3)])
    out = tmp_path / "out.jsonl"
    async with OpenAIChatModel(base_url=srv.base_url, model="sim", max_repairs=4) as model:
        summary = await run_batch(records, Moderator(model), out, concurrency=2)
    assert (summary.done, summary.missing) == (3, [])
    assert sorted(r["key"] for r in _lines(out)) == ["p0", "p1", "p2"]
    assert sum(summary.counts.values()) == 3
    assert summary.usage["calls"] >= 3


# -- from files and a configuration, as the CLI and the service call it --------------------


async def test_moderate_files_builds_the_configured_moderator_and_records_it(
    tmp_path: Path, sim_server: Any
) -> None:
    from colmeia.apps.moderation.batch import moderate_files
    from colmeia.apps.moderation.roles import ModerationConfig
    from colmeia.config import LLMSettings

    srv = sim_server(SimulatedModel(schema_mode=True, seed=3))
    llm = LLMSettings(base_url=srv.base_url, model="sim", max_retries=0)
    items = _items(tmp_path / "in.jsonl", 3)
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"default": {"checks": ["phone"]}}), encoding="utf-8")
    config = ModerationConfig(threshold=7.5, max_rewrites=2, audit_language="pt-BR", policy=policy)
    out = tmp_path / "out.jsonl"
    seen: list[int] = []
    summary = await moderate_files(
        [items],
        out,
        config=config,
        llm=llm,
        concurrency=2,
        on_progress=lambda p: seen.append(p.done),
    )
    assert (summary.done, summary.missing) == (3, [])
    assert seen[0] == 0 and seen[-1] == 3
    manifest = read_manifest(out)
    assert manifest is not None
    settings = manifest.settings
    assert (settings["threshold"], settings["max_rewrites"], settings["audit_language"]) == (
        7.5,
        2,
        "pt-BR",
    )
    assert settings["policy"]["source"] == str(policy)
    assert settings["roles"]["semantic"]["model"] == "sim"
    assert manifest.last.inputs == [str(items)]
    # --retry-errors alone continues the file (it implies --resume)
    again = await moderate_files([items], out, config=config, llm=llm, retry_errors=True)
    assert (again.skipped, again.done) == (3, 0)
    manifest = read_manifest(out)
    assert manifest is not None and (manifest.last.resume, manifest.last.retry_errors) == (
        True,
        True,
    )
    # another threshold is refused unless mixing is allowed; --overwrite starts again
    stricter = ModerationConfig(threshold=9.0, policy=Path("none"))
    with pytest.raises(ConfigurationError, match="was started with other settings"):
        await moderate_files([items], out, config=stricter, llm=llm, resume=True)
    mixed = await moderate_files(
        [items], out, config=stricter, llm=llm, resume=True, allow_mixed=True
    )
    assert mixed.skipped == 3
    manifest = read_manifest(out)
    assert manifest is not None and manifest.mixed
    assert manifest.last.settings["policy"]["source"] == "none"
    fresh = await moderate_files([items], out, config=stricter, llm=llm, overwrite=True)
    assert (fresh.skipped, fresh.done, fresh.run_index) == (0, 3, 0)
    with pytest.raises(ConfigurationError, match="already exists"):
        await moderate_files([items], out, config=stricter, llm=llm)


async def test_moderate_files_stops_on_a_dead_server_as_asked(tmp_path: Path) -> None:
    from colmeia.apps.moderation.batch import moderate_files
    from colmeia.apps.moderation.roles import ModerationConfig
    from colmeia.config import LLMSettings

    dead = LLMSettings(base_url="http://127.0.0.1:9/v1", model="sim", max_retries=0)
    items = _items(tmp_path / "in.jsonl", 3)
    out = tmp_path / "out.jsonl"
    summary = await moderate_files(
        [items], out, config=ModerationConfig(), llm=dead, stop_after=1, concurrency=1
    )
    assert (summary.status, summary.done) == ("stopped", 1)
    with pytest.raises(ConfigurationError, match="concurrency must be at least 1"):
        await moderate_files(
            [items], out, config=ModerationConfig(), llm=dead, resume=True, concurrency=0
        )


async def test_a_line_is_readable_utf_8_with_the_records_intent(
    tmp_path: Path, moderator: Moderator
) -> None:
    path = tmp_path / "in.jsonl"
    row = {
        "id": "ç1",
        "question": "Serve em criança?",
        "answer": "a0",
        "intent": {"name": "tamanho", "confidence": 0.9},
    }
    path.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    await _run(load_records([path]), moderator, out, _by_answer({}))
    raw = out.read_bytes()
    assert "Serve em criança?".encode() in raw  # as written, not \\u escapes
    assert raw.count(b"\n") == 1 and raw.endswith(b"\n")
    (line,) = _lines(out)
    assert (line["id"], line["intent"], line["question"]) == ("ç1", "tamanho", "Serve em criança?")


async def test_a_value_json_has_no_type_for_is_written_as_text(
    tmp_path: Path, moderator: Moderator
) -> None:
    from decimal import Decimal

    records = load_records([_items(tmp_path / "in.jsonl", 1)])
    out = tmp_path / "out.jsonl"
    odd = batch_result(scores={"original": Decimal("8.5"), "rewrites": []})
    await _run(records, moderator, out, _by_answer({"a0": odd}))
    (line,) = _lines(out)
    assert line["scores"] == {"original": "8.5", "rewrites": []}


def test_a_policy_file_that_does_not_exist_is_an_error_unless_it_is_none(tmp_path: Path) -> None:
    from colmeia.apps.moderation.batch import moderator_from_config
    from colmeia.apps.moderation.roles import ModerationConfig
    from colmeia.config import LLMSettings

    llm = LLMSettings(base_url="http://127.0.0.1:9/v1", model="sim")
    with pytest.raises(ConfigurationError, match=r"missing\.yaml"):
        moderator_from_config(ModerationConfig(policy=tmp_path / "missing.yaml"), llm)
    pure = moderator_from_config(ModerationConfig(policy=Path("none")), llm)
    assert pure.policy.source == "none"
    default = moderator_from_config(ModerationConfig(), llm)
    assert default.policy.source != "none"
    assert (default.threshold, default.max_rewrites, default.audit_language) == (8.0, 3, "en")
