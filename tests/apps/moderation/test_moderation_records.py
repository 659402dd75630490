"""Reading moderation records: every record gets a verdict, bad ones never stop the rest."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from colmeia.apps.moderation.io import load_records
from colmeia.apps.moderation.records import ModerationItem, agent_view, parse_item
from colmeia.errors import InputError, RecordError
from shared_data import DATA_DIR

DATA = DATA_DIR / "moderation"


@pytest.fixture
def malformed(tmp_path: Path) -> Path:
    return Path(shutil.copy(DATA / "malformed_items.jsonl", tmp_path / "malformed.jsonl"))


def _by_key(path: Path) -> dict[str, str | None]:
    return {r.key: r.error for r in load_records([path])}


def test_malformed_file_gives_one_verdict_per_record_and_keeps_valid_ones(malformed: Path) -> None:
    records = load_records([malformed])
    lines = [ln for ln in malformed.read_bytes().split(b"\n") if ln.strip()]
    assert len(records) == len(lines)
    assert len({r.key for r in records}) == len(records)
    valid = [r for r in records if r.ok]
    assert [r.key for r in valid] == ["13000100000", "13000100001", "13000100002", "2"]


def test_malformed_file_errors_name_the_record_and_the_problem(malformed: Path) -> None:
    errors = _by_key(malformed)
    name = str(malformed)
    assert "question: required field is missing" in (errors["1"] or "")
    assert "answer: must be a string, got null" in (errors[f"2@{name}:5"] or "")
    assert "context: must be an object, got a string" in (errors["3"] or "")
    assert "longer than the 20,000 allowed" in (errors["4"] or "")
    assert "id: required field is missing" in (errors[f"{name}:8"] or "")
    assert f"the valid record with this id, {name}:9, is used" in (errors[f"2@{name}:5"] or "")
    assert errors["2"] is None  # line 9: a corrected copy of the broken line 5
    assert "question: is empty" in (errors["7"] or "")
    assert "NUL byte" in (errors["8"] or "")
    assert "lone UTF-16 surrogate" in (errors["8"] or "")
    assert "intent: must be an object" in (errors["9"] or "")
    assert "metadata: must be an array" in (errors["9"] or "")
    assert "truncated JSON" in (errors[f"{name}:13"] or "")
    assert "looks like record 10" in (errors[f"{name}:13"] or "")
    assert "not JSON" in (errors[f"{name}:14"] or "")
    for key, err in errors.items():
        if err:
            assert name in err, f"{key}: error does not say where the record is: {err}"


def test_an_invalid_record_does_not_take_the_id_from_a_valid_one_after_it(tmp_path: Path) -> None:
    """A broken export followed by a corrected copy: the corrected record is moderated."""
    path = tmp_path / "items.jsonl"
    broken = {"id": 7, "question": "Serve no Gol?", "answer": None}
    fixed = {"id": 7, "question": "Serve no Gol?", "answer": "Sim, serve."}
    again = {"id": 7, "question": "Serve no Gol?", "answer": "Sim."}
    path.write_text("\n".join(json.dumps(r) for r in (broken, fixed, again)) + "\n")
    first, second, third = load_records([path])
    assert (second.key, second.ok) == ("7", True)
    assert second.item is not None and second.item.answer == "Sim, serve."
    assert (first.key, first.ok) == (f"7@{path}:1", False)
    assert "answer: must be a string" in (first.error or "")
    assert f"the valid record with this id, {path}:2, is used" in (first.error or "")
    # A second *valid* record with the id is still a duplicate of the first valid one.
    assert (third.key, third.ok) == (f"7@{path}:3", False)
    assert f"duplicate id 7, first seen at {path}:2" in (third.error or "")
    # Two valid records in the usual order keep the old behaviour: the first owns the id.
    path.write_text("\n".join(json.dumps(r) for r in (fixed, again)) + "\n")
    assert [r.key for r in load_records([path])] == ["7", f"7@{path}:2"]


def test_json_array_folder_and_unknown_fields(tmp_path: Path) -> None:
    folder = tmp_path / "batch"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(DATA / "sample_items.json", folder / "a.json")
    extra = {"id": "x-1", "question": "Serve?", "answer": "Sim.", "canal": "app", "correct": False}
    (folder / "sub" / "b.jsonl").write_text(json.dumps(extra) + "\n", encoding="utf-8")
    (folder / "notes.txt").write_text("not a record file")
    records = load_records([folder])
    assert len(records) == 201
    assert all(r.ok for r in records)
    last = records[-1].item
    assert last is not None
    assert last.model_extra == {"canal": "app"}  # unknown fields are kept


def test_a_broken_array_keeps_the_records_before_the_break(tmp_path: Path) -> None:
    good = {"id": 1, "question": "Serve?", "answer": "Sim."}
    path = tmp_path / "cut.json"
    path.write_text("[" + json.dumps(good) + ', {"id": 2, "question": "Se', encoding="utf-8")
    records = load_records([path])
    assert [r.ok for r in records] == [True, False]
    assert "could not be read" in (records[1].error or "")


def test_invalid_utf8_line_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "bytes.jsonl"
    path.write_bytes(b'{"id": 1, "question": "ok?", "answer": "sim"}\n\xff\xfe{"id": 2}\n')
    records = load_records([path])
    assert [r.ok for r in records] == [True, False]
    assert "not valid UTF-8" in (records[1].error or "")


def test_missing_input_path_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file or folder"):
        load_records([tmp_path / "nope.json"])


def test_boolean_id_is_refused() -> None:
    with pytest.raises(RecordError, match="id: must be an integer or a string"):
        parse_item({"id": True, "question": "q", "answer": "a"}, "r")


def test_agents_never_see_labels_or_generation_bookkeeping() -> None:
    raw = json.loads((DATA / "sample_items.json").read_text(encoding="utf-8"))[2]
    item = ModerationItem.model_validate(raw)
    assert item.correct is False
    assert item.feedback
    view = dataclasses.asdict(agent_view(item))
    assert item.feedback not in json.dumps(view, ensure_ascii=False)
    assert "correct" not in view
    assert "feedback" not in view
    assert all("inference" not in entry and "cost" not in entry for entry in view["rules"])
    assert view["context"]["title"] == raw["context"]["title"]
