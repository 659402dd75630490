"""`colmeia eval assistant --set independent2` and `--set independent3`: the second and third
sets of conversations written by hand apart from the code (and from the sets before them), on
the same imported four-case registry. The sets are frozen; these tests only check that each is
what it says — it loads, it covers every kind of turn, it reuses no sentence of the earlier
sets, and every case, registry fact, phrase and article it expects is really in the registry's
CSV files or in the shipped law texts — never that the assistant passes it."""

from __future__ import annotations

import asyncio
import csv
import json
import re
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from colmeia.apps.assistant.conversations import load_conversations
from colmeia.apps.assistant.evaluation import FOLDER_SETS
from colmeia.apps.assistant.ids import parse_case_id
from colmeia.apps.assistant.registry_io import import_registry
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from shared_data import DATA_DIR

DATA = Path(__file__).resolve().parents[3] / "src/colmeia/apps/assistant/data"
#: each set, with the sets written before it (none of their sentences may come back)
SETS = {"independent2": ("independent",), "independent3": ("independent", "independent2")}
KINDS = {"case", "law", "mixed", "clarify", "scope", "missing_norm", "institutional", "search_list"}


def _fold(text: str) -> str:
    """Lower case without accents: how the set's expectations are typed."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()


def _rows(folder: str, name: str) -> list[dict[str, str]]:
    with (DATA / folder / "registry" / name).open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _turns(folder: str) -> list[dict[str, Any]]:
    body = json.loads((DATA / folder / f"conversations_{folder}.json").read_text(encoding="utf-8"))
    return [turn for conv in body["conversations"] for turn in conv["turns"]]


def _articles(law: str) -> set[str]:
    """Article numbers of one shipped law (`13709`, `4657` for the LINDB, `95` for LC 95)."""
    files = [p for p in (DATA_DIR / "laws/lexml").glob("*.csv") if p.stem.split("_")[-2] == law]
    assert len(files) == 1, f"law {law}: {files}"
    with files[0].open(encoding="utf-8", newline="") as handle:
        labels = [row["Rotulo"] for row in csv.DictReader(handle)]
    return {m.group(1) for label in labels if (m := re.search(r"Art\. (\d+)", label))}


@pytest.mark.parametrize("folder", sorted(SETS))
def test_the_set_loads_is_wired_and_plays_on_a_copy_of_the_independent_registry(
    folder: str, tmp_path: Path
) -> None:
    here = DATA / folder
    conversations, problems = load_conversations(here)
    assert problems == []
    assert FOLDER_SETS[folder] == folder
    assert len(conversations) == 24
    assert {c.registry_folder for c in conversations} == {here / "registry"}
    assert 60 <= sum(len(c.turns) for c in conversations) <= 75
    for name in ("processes.csv", "parties.csv", "movements.csv", "documents.csv"):
        copy = (here / "registry" / name).read_bytes()
        assert copy == (DATA / "independent/registry" / name).read_bytes(), name
    registry = SQLiteCaseRegistry(tmp_path / "registry.db")
    report = import_registry(registry, [here / "registry"])
    assert report.problems == []
    named = {parse_case_id(t.case) for c in conversations for t in c.turns if t.case}
    held = [asyncio.run(registry.process(case)) for case in sorted(named, key=str)]
    assert len(named) == 4 and None not in held
    registry.close_sync()


@pytest.mark.parametrize("folder", sorted(SETS))
def test_every_kind_of_turn_is_covered_and_no_sentence_of_the_earlier_sets_is_reused(
    folder: str,
) -> None:
    kinds = Counter(turn["expect"]["kind"] for turn in _turns(folder))
    assert set(kinds) == KINDS
    earlier = {_fold(t["user"]) for name in SETS[folder] for t in _turns(name)}
    mine = [_fold(turn["user"]) for turn in _turns(folder)]
    assert len(earlier) > 50
    assert not earlier & set(mine)
    assert len(set(mine)) == len(mine)


@pytest.mark.parametrize("folder", sorted(SETS))
def test_every_expected_fact_and_phrase_is_in_the_registry_rows_of_its_case(folder: str) -> None:
    processes = {row["number"]: row for row in _rows(folder, "processes.csv")}
    parties, movements, documents = (
        _rows(folder, "parties.csv"),
        _rows(folder, "movements.csv"),
        _rows(folder, "documents.csv"),
    )
    checked = 0
    for turn in _turns(folder):
        expect = turn["expect"]
        if not expect.get("case"):
            continue
        number = str(parse_case_id(expect["case"]))
        record = processes[number]
        moves = [m for m in movements if m["number"] == number]
        docs = [d for d in documents if d["number"] == number]
        for field, value in expect.get("facts", {}).items():
            checked += 1
            if field == "party":
                names = [p["name"] for p in parties if p["number"] == number]
                assert any(_fold(value) in _fold(name) for name in names), (number, value)
            elif field == "since":
                # the first movement into the unit where the case is now (none of the four
                # cases left its unit and came back, so this is where its latest stay began)
                stay = [m["at"] for m in moves if m["to_unit"] == record["location"]]
                assert value == min(stay), (number, value)
            else:
                assert _fold(value) in _fold(record[field]), (number, field, value)
        rows = [record, *moves, *docs]
        texts = [v for row in rows for v in row.values()]
        texts += [
            f"{v[8:10]}/{v[5:7]}/{v[:4]}" for v in texts if re.fullmatch(r"\d{4}-\d\d-\d\d", v)
        ]
        for phrase in expect.get("says", []):
            checked += 1
            assert any(_fold(phrase) in _fold(text) for text in texts), (number, phrase)
    assert checked >= 40


@pytest.mark.parametrize("folder", sorted(SETS))
def test_every_expected_article_is_in_the_shipped_law_texts(folder: str) -> None:
    expected = [t["expect"]["article"] for t in _turns(folder) if t["expect"].get("article")]
    assert len(expected) >= 10
    for article in expected:
        law, number = article.split(":")
        assert number in _articles(law), article
