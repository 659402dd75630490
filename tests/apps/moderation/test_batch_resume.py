"""Resume over an input whose records are not neatly keyed: ids missing, ids repeated, and the
previous run killed in the middle of a line.

Records are keyed by :func:`load_records` (the id when it is the first with it, the file and
line otherwise), and resume must use those keys: 14 records give exactly 14 result lines,
each record once, the finished lines kept byte for byte, and only the missing ones moderated.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from colmeia.apps.moderation.batch import run_batch
from colmeia.apps.moderation.graph import Moderator
from colmeia.apps.moderation.io import load_records
from colmeia.llm.openai_compat import OpenAIChatModel
from colmeia.sim.engine import SimulatedModel
from shared_data import DATA_DIR

SAMPLE = json.loads((DATA_DIR / "moderation" / "sample_items.json").read_text(encoding="utf-8"))


def messy_items(path: Path) -> Path:
    """14 records: 8 with their own id, 3 with none, 3 repeating an id (2 of them a copy)."""
    rows: list[dict[str, Any]] = []
    for i in range(8):
        rows.append({**SAMPLE[i], "id": f"item-{i}"})
    for i in range(3):
        row = {**SAMPLE[8 + i]}
        row.pop("id", None)
        rows.append(row)
    rows.append({**SAMPLE[11], "id": "item-2"})  # another record under an existing id
    rows.append({**SAMPLE[2], "id": "item-5"})
    rows.append({**SAMPLE[0], "id": "item-0"})  # an exact copy
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def keys_of(path: Path) -> list[str]:
    return [json.loads(line)["key"] for line in lines_of(path)]


@pytest.fixture
async def moderator(sim_server: Any) -> AsyncIterator[Moderator]:
    srv = sim_server(SimulatedModel(schema_mode=True, seed=5))
    model = OpenAIChatModel(base_url=srv.base_url, model="sim", max_repairs=4, backoff_base=0.01)
    yield Moderator(model)
    await model.aclose()


async def test_resume_over_missing_and_repeated_ids_and_a_cut_line(
    tmp_path: Path, moderator: Moderator
) -> None:
    records = load_records([messy_items(tmp_path / "items.jsonl")])
    keys = [r.key for r in records]
    assert len(records) == 14 and len(set(keys)) == 14  # every record its own key
    assert sum(r.raw_id is None for r in records) == 3
    repeats = [r for r in records if r.raw_id is not None and r.key != str(r.raw_id)]
    assert len(repeats) == 3 and not any(r.ok for r in repeats)  # errors, reported, not dropped

    out = tmp_path / "out.jsonl"
    first = await run_batch(records, moderator, out, concurrency=3)
    assert first.done == 14
    before = lines_of(out)
    assert sorted(keys_of(out)) == sorted(keys)
    # killed while writing line 8: seven whole lines and part of the next
    out.write_bytes(b"".join(before[:7]) + before[7][: len(before[7]) // 3])

    again = await run_batch(records, moderator, out, resume=True)
    after = lines_of(out)
    assert len(after) == 14  # one line per record, none twice
    assert sorted(keys_of(out)) == sorted(keys)
    assert after[:7] == before[:7]  # finished work kept byte for byte
    assert (again.skipped, again.done) == (7, 7)
    assert all(line.endswith(b"\n") for line in after)


async def test_a_resume_of_a_finished_run_moderates_nothing(
    tmp_path: Path, moderator: Moderator
) -> None:
    records = load_records([messy_items(tmp_path / "items.jsonl")])
    out = tmp_path / "out.jsonl"
    await run_batch(records, moderator, out, concurrency=3)
    before = out.read_bytes()
    again = await run_batch(records, moderator, out, resume=True)
    assert (again.skipped, again.done) == (14, 0)
    assert out.read_bytes() == before


async def test_a_file_holding_a_key_twice_is_cleaned_to_one_line_each(
    tmp_path: Path, moderator: Moderator
) -> None:
    records = load_records([messy_items(tmp_path / "items.jsonl")])
    out = tmp_path / "out.jsonl"
    await run_batch(records, moderator, out, concurrency=3)
    lines = lines_of(out)
    out.write_bytes(b"".join([*lines, lines[0], lines[4]]))  # two lines written twice
    again = await run_batch(records, moderator, out, resume=True)
    assert (again.skipped, again.done) == (14, 0)
    assert sorted(keys_of(out)) == sorted(r.key for r in records)
