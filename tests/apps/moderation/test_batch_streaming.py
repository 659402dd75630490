"""A batch run reads its records from disk as it goes: memory holds the records in flight, never
the batch (issue 34: a 19 MB upload of records held ~600 MB in the server).

The records carry 40 × 19,000 characters each in ``metadata[].inference``, which is valid (each
string is under the 20,000-character limit) and never reaches the agents (generation
bookkeeping), so the files are big and the model calls small. Memory is measured with
``tracemalloc`` (Python allocations: the decoded records), against the size of the files.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from colmeia.apps.moderation.batch import moderate_files
from colmeia.apps.moderation.io import RecordStream, load_records
from colmeia.apps.moderation.results import read_results
from colmeia.apps.moderation.roles import ModerationConfig
from colmeia.config import LLMSettings
from colmeia.errors import InputError
from colmeia.sim.engine import SimulatedModel

BIG = 19_000  # characters per string, under records.MAX_STRING_CHARS


def _big_record(i: int) -> dict[str, Any]:
    return {
        "id": f"r{i}",
        "question": f"Pergunta {i}: serve no meu carro?",
        "answer": "Sim, serve.",
        "metadata": [{"inference": chr(ord("a") + j % 26) * BIG} for j in range(40)],
    }


def _write_batch(folder: Path, records: int) -> list[Path]:
    """Half the records in a JSON array, half in a JSONL file: both readers stream."""
    folder.mkdir()
    half = records // 2
    array = folder / "a.json"
    with array.open("w", encoding="utf-8") as fh:
        fh.write("[")
        for i in range(half):
            fh.write(("," if i else "") + json.dumps(_big_record(i)))
        fh.write("]")
    lines = folder / "b.jsonl"
    with lines.open("w", encoding="utf-8") as fh:
        for i in range(half, records):
            fh.write(json.dumps(_big_record(i)) + "\n")
    return [array, lines]


async def test_a_batch_run_holds_the_records_in_flight_not_the_batch(
    tmp_path: Path, sim_server: Any
) -> None:
    files = _write_batch(tmp_path / "in", 60)
    on_disk = sum(p.stat().st_size for p in files)
    assert on_disk > 40 << 20  # 60 records of ~760 KB
    srv = sim_server(SimulatedModel(schema_mode=True, seed=5))
    llm = LLMSettings(base_url=srv.base_url, model="sim", max_retries=0)
    config = ModerationConfig(policy=Path("none"))
    out = tmp_path / "out.jsonl"
    tracemalloc.start()
    try:
        # a warm-up batch of two records: the modules a first run imports and the caches it
        # fills are not the batch's
        warm = _write_batch(tmp_path / "warm", 2)
        await moderate_files(warm, tmp_path / "warm.jsonl", config=config, llm=llm, concurrency=4)
        base, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        summary = await moderate_files(files, out, config=config, llm=llm, concurrency=4)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    grew = peak - base
    # every record moderated, each once (lines in the order they finished)
    assert (summary.total, summary.done, summary.missing) == (60, 60, [])
    results = read_results(out)
    assert sorted(results) == sorted(f"r{i}" for i in range(60))
    assert {r["outcome"] for r in results.values()} <= {
        "KEEP_ORIGINAL",
        "ANSWER_REVISED",
        "DO_NOT_ANSWER",
    }
    # four records in flight (~3 MB of text each once decoded) and one read ahead; the batch
    # held whole is over 45 MB
    print(f"peak +{grew >> 20} MB for {on_disk >> 20} MB of records")
    assert grew < on_disk // 4, f"peak +{grew >> 20} MB for {on_disk >> 20} MB of records"


def test_a_stream_gives_the_keys_and_errors_of_a_full_load(tmp_path: Path) -> None:
    """Repeated ids, an invalid record before its corrected copy, a line too long and a broken
    array element: the stream and the list read the same records, under the same keys."""
    folder = tmp_path / "in"
    folder.mkdir()
    ok = {"question": "Serve?", "answer": "Sim."}
    (folder / "a.jsonl").write_text(
        "\n".join(
            [
                json.dumps({"id": 7, "question": "Serve?", "answer": None}),
                json.dumps({"id": 7, **ok}),
                json.dumps({"id": 7, **ok}),
                json.dumps({"id": 8, **ok, "context": {"t": "x" * 1_100_000}}),
                "",
                json.dumps({"no_id": True}),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    # an element split across read chunks, then a broken one
    big = {"id": 9, **ok, "context": {f"t{i}": "y" * 19_000 for i in range(10)}}
    (folder / "b.json").write_text(
        "[" + json.dumps(big) + ", " + json.dumps({"id": 10, **ok}) + ', {"id": 11, "q',
        encoding="utf-8",
    )
    listed = load_records([folder])
    stream = RecordStream([folder])
    streamed = list(stream)
    assert len(stream) == len(listed) == 8
    assert [(r.key, r.ok, r.error) for r in streamed] == [(r.key, r.ok, r.error) for r in listed]
    by_key = {r.key: r for r in streamed}
    a, b = folder / "a.jsonl", folder / "b.json"
    assert by_key["7"].ok and by_key["7"].source == f"{a}:2"
    assert f"duplicate id 7, first seen at {a}:2" in (by_key[f"7@{a}:3"].error or "")
    assert "over the 1 MB limit" in (by_key[f"{a}:4"].error or "")
    assert by_key["9"].ok and by_key["10"].ok
    broken = by_key[f"{b}[2]"].error or ""
    assert "not valid JSON" in broken and "line 1 column" in broken
    assert "could not be read" in broken


def test_files_changed_between_passes_are_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps({"id": 1, "question": "q", "answer": "a"}) + "\n")
    stream = RecordStream([path])
    assert len(stream) == 1
    with path.open("a") as fh:
        fh.write(json.dumps({"id": 2, "question": "q", "answer": "a"}) + "\n")
    with pytest.raises(InputError, match="changed while they were being read"):
        list(stream)


def test_an_array_read_in_chunks_gives_every_element_once(tmp_path: Path) -> None:
    """Elements cut by the chunks the file is read in (numbers too: ``12|345`` is one element,
    not two) come out whole, in order, as json reads the whole file."""
    path = tmp_path / "many.json"
    elements: list[Any] = [
        {"id": i, "question": f"Pergunta {i}?", "answer": "Sim." * (i % 7 + 1)}
        for i in range(6_000)
    ]
    # 60,000 numbers of 15 digits: the chunk boundaries fall inside some (refused as records)
    elements[3_001:3_001] = [123456789012345 + i for i in range(60_000)]
    path.write_text(json.dumps(elements), encoding="utf-8")
    assert path.stat().st_size > 5 * (1 << 16)  # several chunks
    records = list(RecordStream([path]))
    assert len(records) == len(elements)
    assert [r.raw_id for r in records if r.ok] == list(range(6_000))
    assert [r.source for r in records] == [f"{path}[{i}]" for i in range(len(elements))]
    numbers = [r.error or "" for r in records[3_001:63_001]]
    assert all("expected a JSON object, got int" in e for e in numbers)


def test_a_broken_element_far_into_a_pretty_file_is_named_by_its_line_and_column(
    tmp_path: Path,
) -> None:
    path = tmp_path / "pretty.json"
    good = json.dumps(
        [{"id": i, "question": "Serve?", "answer": "Sim."} for i in range(3_000)], indent=2
    )
    text = good[:-2] + ',\n  {"id": 3000, "question": "Serve?" "answer": "Sim."}\n]'
    path.write_text(text, encoding="utf-8")
    start = text.rindex('{"id": 3000')
    try:
        json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as exc:
        expected = f"at line {exc.lineno} column {exc.colno}"
    assert int(expected.split()[2]) > 10_000  # deep into the file, past many chunks
    records = list(RecordStream([path]))
    assert len(records) == 3_001 and all(r.ok for r in records[:3_000])
    assert expected in (records[-1].error or ""), records[-1].error
