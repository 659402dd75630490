"""What a batch run promises beyond its happy path, pinned where mutation testing found it loose.

The public defaults (a second run over a file refuses to overwrite it, errors are not retried
unless asked, a file mixing settings is refused unless allowed, 16 records at once, a stop
after 5 dead-server failures in a row), :func:`run_batch` passing every option through, the
manifest's figures (usage, wall time, items per minute, simulated answers), a resumed run's
progress counting what was done before, the error line of a record that cannot be read, the
messages a run logs, and the status of a run that failed with an unexpected exception.

Most runs use the per-record ``moderate=`` hook (no server, milliseconds); runs through
:func:`run_batch`, :func:`open_batch` and :func:`moderate_files` use the simulated model over
real HTTP, or a port nothing listens on for a dead server.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from moderation_helpers import batch_result

from colmeia.apps.moderation.batch import (
    BatchProgress,
    PreparedBatch,
    moderate_files,
    open_batch,
    prepare_batch,
    run_batch,
)
from colmeia.apps.moderation.graph import Moderator
from colmeia.apps.moderation.io import LoadedRecord, load_records
from colmeia.apps.moderation.manifest import read_manifest
from colmeia.apps.moderation.records import ModerationItem
from colmeia.apps.moderation.roles import ModerationConfig, RoleModel
from colmeia.config import LLMSettings
from colmeia.errors import ConfigurationError
from colmeia.llm.openai_compat import OpenAIChatModel
from colmeia.sim.engine import Latency, SimRequest, SimulatedModel

Moderate = Callable[[ModerationItem], Awaitable[dict[str, Any]]]
DEAD_URL = "http://127.0.0.1:9/v1"  # nothing listens there: every call is refused at once
BATCH_LOG = "colmeia.apps.moderation.batch"


async def _keep(item: ModerationItem) -> dict[str, Any]:
    await asyncio.sleep(0)
    return batch_result()


def _items(path: Path, n: int) -> Path:
    rows = [
        {"id": f"p{i}", "question": f"Pergunta {i}?", "answer": f"a{i}", "locale": "pt_BR"}
        for i in range(n)
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def _lines(out: Path) -> dict[str, dict[str, Any]]:
    rows = (json.loads(line) for line in out.read_bytes().splitlines())
    return {r["key"]: r for r in rows}


async def _run(
    records: Any, moderator: Moderator, out: Path, moderate: Moderate = _keep, **options: Any
) -> Any:
    run_options = {
        k: options.pop(k) for k in ("concurrency", "stop_after", "on_progress") if k in options
    }
    with prepare_batch(records, moderator, out, **options) as batch:
        return await batch.run(moderate=moderate, **run_options)


def _good_reviews(req: SimRequest) -> dict[str, Any] | None:
    """Both reviewers give full marks: each record is kept after one pair of review calls."""
    if str((req.schema or {}).get("title")) in ("SemanticReview", "ContextualReview"):
        return {"justification": "Responde à pergunta.", "score": 5}
    return None


def _slow_reviewer(seconds: float) -> SimulatedModel:
    return SimulatedModel(responder=_good_reviews, schema_mode=True, latency=Latency(seconds))


def _stop_message(n: int) -> str:
    return f"stopped after {n} items in a row failed because the model server cannot be used"


# -- defaults ------------------------------------------------------------------------------------


async def test_a_prepared_batch_refuses_an_existing_file_and_other_settings_by_default(
    tmp_path: Path, moderator: Moderator
) -> None:
    """``PreparedBatch`` itself (not only ``prepare_batch``) neither retries, overwrites nor
    mixes settings unless told: an existing file needs ``resume``, other settings need
    ``allow_mixed``."""
    records = load_records([_items(tmp_path / "in.jsonl", 2)])
    out = tmp_path / "out.jsonl"
    await _run(records, moderator, out)
    before = out.read_bytes()
    with pytest.raises(ConfigurationError, match="already exists"):
        PreparedBatch(records, moderator, out)
    stricter = Moderator(moderator.models, threshold=9.0)
    with pytest.raises(ConfigurationError, match="was started with other settings"):
        PreparedBatch(records, stricter, out, resume=True)
    assert out.read_bytes() == before
    with PreparedBatch(records, moderator, out, resume=True) as batch:
        assert batch.todo == []  # the plain resume kept both lines


async def test_open_batch_refuses_an_existing_file_and_other_settings_by_default(
    tmp_path: Path,
) -> None:
    """``open_batch`` without options never continues, retries into or overwrites a file that
    exists, and a resume with another threshold is refused unless mixing is allowed."""
    items = _items(tmp_path / "in.jsonl", 2)
    out = tmp_path / "out.jsonl"
    llm = LLMSettings(base_url=DEAD_URL, model="sim", max_retries=0)
    with open_batch([items], out, config=ModerationConfig(), llm=llm) as batch:
        assert len(batch.todo) == 2 and batch.run_index == 0
        await batch.run(moderate=_keep)
    before = out.read_bytes()
    with pytest.raises(ConfigurationError, match="already exists"):
        open_batch([items], out, config=ModerationConfig(), llm=llm)
    with pytest.raises(ConfigurationError, match="was started with other settings"):
        open_batch([items], out, config=ModerationConfig(threshold=9.0), llm=llm, resume=True)
    assert out.read_bytes() == before


async def test_run_batch_refuses_an_existing_file_unless_told_what_to_do_with_it(
    tmp_path: Path, moderator: Moderator
) -> None:
    """``run_batch`` without ``resume`` (or retry/overwrite) leaves an existing file alone."""
    records = [LoadedRecord("r1", "in.jsonl:1", None, "no question")]  # never reaches a model
    out = tmp_path / "out.jsonl"
    await run_batch(records, moderator, out)
    before = out.read_bytes()
    with pytest.raises(ConfigurationError, match="already exists"):
        await run_batch(records, moderator, out)
    assert out.read_bytes() == before


async def test_a_run_works_on_16_records_at_once_unless_told_otherwise(
    tmp_path: Path, moderator: Moderator
) -> None:
    """The default concurrency of ``PreparedBatch.run`` is 16 records in flight."""
    records = load_records([_items(tmp_path / "in.jsonl", 40)])
    in_flight = 0
    most = 0

    async def moderate(item: ModerationItem) -> dict[str, Any]:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        await asyncio.sleep(0.02)
        in_flight -= 1
        return batch_result()

    summary = await _run(records, moderator, tmp_path / "out.jsonl", moderate)
    assert summary.done == 40
    assert most == 16


async def test_run_batch_and_moderate_files_work_on_16_records_at_once_by_default(
    tmp_path: Path, sim_server: Any
) -> None:
    """At most 16 records at once through ``run_batch`` and ``moderate_files`` too (two review
    calls each, so at most 32 requests reach the server together), and more than 8 do."""
    sim = _slow_reviewer(1.0)
    srv = sim_server(sim)
    items = _items(tmp_path / "in.jsonl", 20)
    async with OpenAIChatModel(base_url=srv.base_url, model="sim", max_retries=0) as model:
        summary = await run_batch(load_records([items]), Moderator(model), tmp_path / "a.jsonl")
    assert (summary.done, summary.status) == (20, "complete")
    assert 16 < sim.stats()["max_in_flight"] <= 32
    sim.reset_stats()
    llm = LLMSettings(base_url=srv.base_url, model="sim", max_retries=0)
    summary = await moderate_files(
        [items], tmp_path / "b.jsonl", config=ModerationConfig(), llm=llm
    )
    assert (summary.done, summary.status) == (20, "complete")
    assert 16 < sim.stats()["max_in_flight"] <= 32


async def test_a_run_stops_after_5_dead_server_failures_in_a_row_by_default(
    tmp_path: Path, moderator: Moderator
) -> None:
    """``stop_after`` is 5 unless told: ``PreparedBatch.run``, ``run_batch`` and
    ``moderate_files`` all stop on the fifth item in a row the server could not answer."""
    items = _items(tmp_path / "in.jsonl", 8)
    records = load_records([items])
    dead = batch_result("ERROR", error="connection refused", error_kind="unreachable")

    async def refused(item: ModerationItem) -> dict[str, Any]:
        return dead

    summary = await _run(records, moderator, tmp_path / "a.jsonl", refused, concurrency=1)
    assert (summary.status, summary.done) == ("stopped", 5)
    assert summary.stop_reason == f"{_stop_message(5)} — connection refused"
    # the real moderator against a port nothing listens on
    summary = await run_batch(records, moderator, tmp_path / "b.jsonl", concurrency=1)
    assert (summary.status, summary.done) == ("stopped", 5)
    assert summary.stop_reason is not None and summary.stop_reason.startswith(_stop_message(5))
    llm = LLMSettings(base_url=DEAD_URL, model="sim", max_retries=0)
    summary = await moderate_files(
        [items], tmp_path / "c.jsonl", config=ModerationConfig(), llm=llm, concurrency=1
    )
    assert (summary.status, summary.done) == ("stopped", 5)
    assert summary.stop_reason is not None and summary.stop_reason.startswith(_stop_message(5))


# -- run_batch passes every option through -------------------------------------------------------


async def test_run_batch_passes_concurrency_stop_after_and_progress_through(
    tmp_path: Path, moderator: Moderator, sim_server: Any
) -> None:
    """``run_batch(concurrency=2)`` keeps two records in flight, ``stop_after=2`` stops on the
    second dead-server failure, and ``on_progress`` hears of every durable write."""
    sim = _slow_reviewer(0.5)
    srv = sim_server(sim)
    records = load_records([_items(tmp_path / "in.jsonl", 4)])
    seen: list[tuple[int, int]] = []
    async with OpenAIChatModel(base_url=srv.base_url, model="sim", max_retries=0) as model:
        summary = await run_batch(
            records,
            Moderator(model),
            tmp_path / "a.jsonl",
            concurrency=2,
            on_progress=lambda p: seen.append((p.total, p.done)),
        )
    assert summary.done == 4
    assert sim.stats()["max_in_flight"] <= 4  # two records, two review calls each
    assert seen[0] == (4, 0) and seen[-1] == (4, 4)
    stopped = await run_batch(records, moderator, tmp_path / "b.jsonl", concurrency=1, stop_after=2)
    assert (stopped.status, stopped.done) == ("stopped", 2)
    assert stopped.stop_reason is not None and stopped.stop_reason.startswith(_stop_message(2))


async def test_run_batch_overwrites_and_retries_errors_when_asked(
    tmp_path: Path, moderator: Moderator, sim_server: Any
) -> None:
    """``run_batch(retry_errors=True)`` redoes the ERROR lines a dead server left, and
    ``run_batch(overwrite=True)`` starts the file again as its first run."""
    records = load_records([_items(tmp_path / "in.jsonl", 3)])
    out = tmp_path / "out.jsonl"
    failed = await run_batch(records, moderator, out, stop_after=0)
    assert (failed.status, failed.counts["ERROR"]) == ("complete_with_errors", 3)
    srv = sim_server(_slow_reviewer(0.0))
    async with OpenAIChatModel(base_url=srv.base_url, model="sim", max_retries=0) as model:
        working = Moderator(model)
        retried = await run_batch(records, working, out, retry_errors=True)
        assert (retried.skipped, retried.done, retried.status) == (0, 3, "complete")
        assert {r["run"] for r in _lines(out).values()} == {1}
        again = await run_batch(records, working, out, overwrite=True)
    assert (again.run_index, again.skipped, again.done) == (0, 0, 3)
    assert {r["run"] for r in _lines(out).values()} == {0}
    manifest = read_manifest(out)
    assert manifest is not None and len(manifest.runs) == 1


# -- the manifest's figures ----------------------------------------------------------------------


async def test_the_manifest_gives_wall_time_speed_and_usage_to_their_stated_precision(
    tmp_path: Path, moderator: Moderator
) -> None:
    """Each run records its wall time to the millisecond, its speed to a tenth of an item per
    minute (items written over that wall time), its usage to 8 decimals, and no simulated
    answers when none came from the simulated model; the summary's wall time is the run's own.
    """
    records = load_records([_items(tmp_path / "in.jsonl", 2)])
    usage = {"calls": 1, "prompt_tokens": 3, "completion_tokens": 1, "cost": 0.123456789}

    async def slow(item: ModerationItem) -> dict[str, Any]:
        await asyncio.sleep(0.1)
        return batch_result(usage=usage)

    speeds: list[float] = []
    for i in range(5):  # five runs: a figure that happens to be round once cannot hide a change
        out = tmp_path / f"out{i}.jsonl"
        before = time.perf_counter()
        summary = await _run(records, moderator, out, slow, concurrency=1)
        elapsed = time.perf_counter() - before
        assert 0.2 <= summary.wall_s <= elapsed
        manifest = read_manifest(out)
        assert manifest is not None and not manifest.simulated
        run = manifest.last
        assert run.simulated_answers == 0
        assert run.usage["cost"] == 0.24691358
        assert run.usage["calls"] == 2.0
        assert 0.2 <= run.wall_s <= summary.wall_s + 0.001
        assert run.wall_s == round(run.wall_s, 3)
        assert run.items_per_min is not None
        assert run.items_per_min == round(run.items_per_min, 1)
        # the rounded wall time is within half a millisecond of the one the speed came from
        fastest = 2 / (run.wall_s - 0.0005) * 60 + 0.05
        slowest = 2 / (run.wall_s + 0.0005) * 60 - 0.05
        assert slowest <= run.items_per_min <= fastest
        speeds.append(run.items_per_min)
    assert any(s != int(s) for s in speeds)  # tenths, not whole items per minute


async def test_a_run_that_fails_unexpectedly_is_recorded_as_failed(
    tmp_path: Path, moderator: Moderator
) -> None:
    """An exception nobody expected ends the run with it, and the manifest says ``failed``
    with what was written before."""
    records = load_records([_items(tmp_path / "in.jsonl", 3)])
    out = tmp_path / "out.jsonl"

    async def breaks(item: ModerationItem) -> dict[str, Any]:
        if item.answer == "a1":
            raise RuntimeError("a bug in the per-record function")
        return batch_result()

    with pytest.raises(ExceptionGroup):
        await _run(records, moderator, out, breaks, concurrency=1)
    manifest = read_manifest(out)
    assert manifest is not None
    assert (manifest.last.status, manifest.last.written) == ("failed", 1)
    assert set(_lines(out)) == {"p0"}


# -- resume --------------------------------------------------------------------------------------


async def test_a_resumed_runs_progress_starts_from_what_was_done_before(
    tmp_path: Path, moderator: Moderator
) -> None:
    """The first progress report of a resumed run counts every record already in the file,
    by outcome, against the total of records."""
    path = _items(tmp_path / "in.jsonl", 3)
    out = tmp_path / "out.jsonl"
    await _run(load_records([path]), moderator, out)
    records = load_records([_items(path, 4)])
    seen: list[tuple[int, int, dict[str, int]]] = []

    def progress(p: BatchProgress) -> None:
        seen.append((p.total, p.skipped, dict(p.counts)))

    summary = await _run(records, moderator, out, resume=True, on_progress=progress)
    assert seen[0] == (4, 3, {"KEEP_ORIGINAL": 3})
    assert seen[-1] == (4, 3, {"KEEP_ORIGINAL": 4})
    assert summary.counts["KEEP_ORIGINAL"] == 4


async def test_resume_logs_what_it_drops_and_rewrites_naming_the_file(
    tmp_path: Path, moderator: Moderator, caplog: pytest.LogCaptureFixture
) -> None:
    """A resume over a clean file says nothing; over a cut-off last line it warns that it drops
    it and says how many lines the rewritten file holds; a line that is not JSON is reported
    with the file and line number."""
    caplog.set_level(logging.INFO, logger="colmeia.apps.moderation")
    records = load_records([_items(tmp_path / "in.jsonl", 3)])
    out = tmp_path / "out.jsonl"
    await _run(records, moderator, out)
    caplog.clear()
    await _run(records, moderator, out, resume=True)
    assert [r for r in caplog.records if r.name == BATCH_LOG] == []

    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:2]) + lines[2][:10])
    caplog.clear()
    await _run(records, moderator, out, resume=True)
    said = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == BATCH_LOG]
    assert said == [
        ("WARNING", f"{out}: dropping a cut-off last line (the previous run was killed)"),
        ("INFO", f"{out}: rewritten with 2 result lines"),
    ]

    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(lines[0] + b"not json\n" + b"".join(lines[1:]))
    caplog.clear()
    summary = await _run(records, moderator, out, resume=True)
    assert summary.skipped == 3
    assert f"{out}:2: not a valid result line; ignored" in [r.getMessage() for r in caplog.records]


async def test_a_file_of_a_single_byte_without_a_manifest_is_not_resumed_blindly(
    tmp_path: Path, moderator: Moderator
) -> None:
    """Even one byte (a first line cut short) in a file without a manifest comes from a run
    whose settings are unknown: resuming it needs ``allow_mixed``."""
    records = load_records([_items(tmp_path / "in.jsonl", 2)])
    out = tmp_path / "out.jsonl"
    out.write_bytes(b"{")
    with pytest.raises(ConfigurationError, match="has no run manifest"):
        prepare_batch(records, moderator, out, resume=True)
    assert out.read_bytes() == b"{"


async def test_every_setting_that_differs_is_named_in_the_refusal(
    tmp_path: Path, moderator: Moderator
) -> None:
    """A resume refused for other settings lists each difference, separated by semicolons."""
    records = load_records([_items(tmp_path / "in.jsonl", 2)])
    out = tmp_path / "out.jsonl"
    await _run(records, moderator, out)
    other = Moderator(moderator.models, threshold=9.0, max_rewrites=2)
    with pytest.raises(ConfigurationError) as err:
        prepare_batch(records, other, out, resume=True)
    assert "(max_rewrites: 3 → 2; threshold: 8.0 → 9.0)" in str(err.value)


# -- records that cannot be moderated ------------------------------------------------------------


async def test_a_record_without_an_item_or_with_an_error_is_written_as_an_error_naming_it(
    tmp_path: Path, moderator: Moderator
) -> None:
    """A record that is not ok never reaches the model: one without an item and without a
    reason gets ``record could not be read``; one that carries an error gets that error,
    even if it also carries an item."""
    (good,) = load_records([_items(tmp_path / "in.jsonl", 1)])
    flagged = LoadedRecord("flagged", "in.jsonl:2", good.item, "refused by the caller")
    empty = LoadedRecord("empty", "in.jsonl:3", None)
    out = tmp_path / "out.jsonl"
    asked: list[str] = []

    async def moderate(item: ModerationItem) -> dict[str, Any]:
        asked.append(item.answer)
        return batch_result()

    summary = await _run([good, flagged, empty], moderator, out, moderate)
    assert asked == ["a0"]
    lines = _lines(out)
    assert (lines["empty"]["outcome"], lines["empty"]["error"]) == (
        "ERROR",
        "record could not be read",
    )
    assert (lines["empty"]["source"], lines["empty"]["error_kind"]) == ("in.jsonl:3", "input")
    assert (lines["flagged"]["outcome"], lines["flagged"]["error"]) == (
        "ERROR",
        "refused by the caller",
    )
    assert summary.status == "complete_with_errors"


# -- logging and the models a batch owns ---------------------------------------------------------


async def test_a_stopped_run_logs_its_reason_as_an_error(
    tmp_path: Path, moderator: Moderator, caplog: pytest.LogCaptureFixture
) -> None:
    """The reason a run stopped is logged, word for word, at ERROR."""
    records = load_records([_items(tmp_path / "in.jsonl", 3)])
    dead = batch_result("ERROR", error="connection refused", error_kind="unreachable")

    async def refused(item: ModerationItem) -> dict[str, Any]:
        return dead

    summary = await _run(
        records, moderator, tmp_path / "out.jsonl", refused, concurrency=1, stop_after=2
    )
    errors = [
        r.getMessage() for r in caplog.records if r.name == BATCH_LOG and r.levelname == "ERROR"
    ]
    assert errors == [summary.stop_reason]


class _Quiet:
    """A model client with nothing to close (a chat model need not have ``aclose``)."""

    model = "quiet"

    async def chat(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("never called: runs pass their own per-record function")


class _Closable(_Quiet):
    def __init__(self, name: str, closed: list[str]) -> None:
        self.model = name
        self._closed = closed

    async def aclose(self) -> None:
        self._closed.append(self.model)


async def test_a_batch_closes_every_client_it_owns_once_and_skips_those_without_aclose(
    tmp_path: Path, moderator: Moderator
) -> None:
    """Every distinct client a batch owns is closed once when the run ends (roles sharing a
    client close it once); a client without ``aclose`` is left alone."""
    records = load_records([_items(tmp_path / "in.jsonl", 1)])
    closed: list[str] = []
    first, second = _Closable("first", closed), _Closable("second", closed)
    owned: list[Any] = [
        RoleModel(first, None, None),
        RoleModel(second, None, None),
        RoleModel(first, 0.5, None),
        RoleModel(_Quiet(), None, None),
    ]
    with PreparedBatch(records, moderator, tmp_path / "out.jsonl", owned_models=owned) as batch:
        summary = await batch.run(moderate=_keep)
    assert summary.status == "complete"
    assert sorted(closed) == ["first", "second"]


async def test_a_new_results_folder_is_made_even_without_file_locks(
    tmp_path: Path, moderator: Moderator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where there are no advisory locks (Windows has no ``fcntl``), a results file in folders
    that do not exist yet is still written: the run makes the folders itself."""
    monkeypatch.setitem(sys.modules, "fcntl", None)  # ``import fcntl`` now fails, as on Windows
    records = load_records([_items(tmp_path / "in.jsonl", 2)])
    out = tmp_path / "new" / "deeper" / "out.jsonl"
    summary = await _run(records, moderator, out)
    assert (summary.done, summary.status) == (2, "complete")
    assert set(_lines(out)) == {"p0", "p1"}
    assert not (out.parent / ".out.jsonl.lock").exists()
