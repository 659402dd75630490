"""`colmeia eval assistant --set independent`: conversations written apart from the code, on a
four-case registry imported from the CSV files beside them. The set itself is frozen (never
edited or tuned on); these tests check that it is what it says — enough conversations, every
case it names in its registry — and that a conversations file can name registry CSVs to play
on, a bad row being a clear error, never a silently smaller registry."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from colmeia.apps.assistant.conversations import load_conversations
from colmeia.apps.assistant.evaluation import FOLDER_SETS, evaluate
from colmeia.apps.assistant.ids import parse_case_id
from colmeia.apps.assistant.registry_io import import_registry
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.errors import ConfigurationError
from shared_data import DATA_DIR

SET = Path(__file__).resolve().parents[3] / "src/colmeia/apps/assistant/data/independent"


def test_the_independent_set_has_24_or_more_conversations_on_its_imported_registry(
    tmp_path: Path,
) -> None:
    conversations, problems = load_conversations(SET)
    assert problems == []
    assert "independent" in FOLDER_SETS
    assert len(conversations) >= 24
    assert {c.registry_folder for c in conversations} == {SET / "registry"}
    registry = SQLiteCaseRegistry(tmp_path / "registry.db")
    report = import_registry(registry, [SET / "registry"])
    assert report.problems == []
    named = {parse_case_id(t.case) for c in conversations for t in c.turns if t.case}
    held = [asyncio.run(registry.process(case)) for case in sorted(named, key=str)]
    assert len(named) == 4 and None not in held  # every case a turn expects is in the registry
    registry.close_sync()


def _one_conversation(folder: Path, registry: str) -> None:
    folder.mkdir()
    conversation = {
        "id": "imported-1",
        "turns": [
            {
                "user": "qual a situacao do processo TC/004506/2023?",
                "expect": {"kind": "case", "case": "TC/004506/2023"},
            }
        ],
    }
    body = {
        "registry": {"import": registry, "as_of": "2026-11-01"},
        "conversations": [conversation],
    }
    (folder / "conversations_x.json").write_text(json.dumps(body), encoding="utf-8")


def test_a_set_is_played_on_the_registry_it_imports(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    _one_conversation(folder, "registry")
    shutil.copytree(SET / "registry", folder / "registry")

    report = asyncio.run(evaluate("conversations", DATA_DIR, None, conversations_dir=folder))

    # TC/004506/2023 exists only in the imported registry, not in any synthetic one
    assert report.problems == []
    assert report.metrics["turns_passed"] == 1, report.as_dict()["failures"]


def test_a_missing_folder_or_a_bad_registry_row_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    _one_conversation(missing, "nowhere")
    conversations, problems = load_conversations(missing)
    assert conversations == []
    assert len(problems) == 1 and "conversations_x.json" in problems[0]
    assert "nowhere" in problems[0] and "not a folder" in problems[0]

    bad = tmp_path / "bad"
    _one_conversation(bad, "registry")
    shutil.copytree(SET / "registry", bad / "registry")
    processes = bad / "registry" / "processes.csv"
    processes.write_text(
        processes.read_text(encoding="utf-8") + "TC/999999/2023,nao e data,,,,,,,,\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigurationError, match=r"1 registry rows could not be imported"):
        asyncio.run(evaluate("conversations", DATA_DIR, None, conversations_dir=bad))
