"""`colmeia moderate sample`: the paper's experiment sets rebuilt from raw labelled records."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from colmeia.apps.moderation.io import load_records
from colmeia.apps.moderation.labels import LabelMap
from shared_data import DATA_DIR

SAMPLE = DATA_DIR / "moderation" / "sample_items.json"


def raw_pile(tmp_path: Path) -> Path:
    """The shipped records plus 40 low-confidence copies, 5 unlabelled and one broken record."""
    raw = json.loads(SAMPLE.read_text(encoding="utf-8"))
    unsure = [
        {**r, "id": 990000 + i, "intent": {**r["intent"], "confidence": 0.55}}
        for i, r in enumerate(raw[:40])
    ]
    borderline = [{**raw[40], "id": 991000, "intent": {**raw[40]["intent"], "confidence": 0.9}}]
    unlabelled = [{**r, "id": 992000 + i, "correct": None} for i, r in enumerate(raw[50:55])]
    broken = [{"id": 993000, "question": "Serve?"}]
    path = tmp_path / "pile.json"
    path.write_text(
        json.dumps([*raw, *unsure, *borderline, *unlabelled, *broken], ensure_ascii=False),
        encoding="utf-8",
    )
    return path


def test_sample_filters_balances_splits_and_profiles(tmp_path: Path, colmeia_cli: Any) -> None:
    pile = raw_pile(tmp_path)
    out = tmp_path / "s"
    code, stdout, err = colmeia_cli(
        "moderate", "sample", str(pile), "--out", str(out), "--size", "60",
        "--file-size", "25", "--seed", "3",
    )  # fmt: skip
    assert code == 0, err
    assert "sample 60 (30 correct, 30 incorrect) in 3 file(s)" in " ".join(stdout.split())
    files = sorted((out / "sets").glob("*"))
    assert [f.name for f in files] == ["sample_001.json", "sample_002.json", "sample_003.json"]
    sampled = [r for f in files for r in json.loads(f.read_text(encoding="utf-8"))]
    assert [len(json.loads(f.read_text("utf-8"))) for f in files] == [25, 25, 10]
    assert len({r["id"] for r in sampled}) == 60
    assert all(r["intent"]["confidence"] > 0.9 for r in sampled)  # 0.9 itself is not > 0.9
    assert Counter(r["correct"] for r in sampled) == {True: 30, False: 30}
    manifest = json.loads((out / "sample.json").read_text(encoding="utf-8"))
    assert manifest["left_out"] == {
        "intent confidence ≤ 0.9": 41,
        "no label": 5,
        "invalid record": 1,
    }
    assert manifest["pool"] == 200
    # Intents take turns: per label, a group gives at most one record more than any group
    # that still had records to give.
    labels = LabelMap.load()
    pool = [r for r in load_records([SAMPLE]) if r.item is not None]
    for label in (True, False):
        available = Counter(
            labels.group("intent", r.item.intent.name)  # type: ignore[union-attr]
            for r in pool
            if r.item is not None and r.item.correct is label
        )
        taken = Counter(
            labels.group("intent", r["intent"]["name"]) for r in sampled if r["correct"] is label
        )
        not_exhausted = [taken[g] for g in available if taken[g] < available[g]]
        assert max(taken.values()) - min(not_exhausted) <= 1, (label, taken, available)
    # Every file is a valid moderation input.
    assert all(r.ok for r in load_records(files))
    page = (out / "profile.html").read_text(encoding="utf-8")
    assert "Table 1: records per locale and label" in page
    assert "Table 2: records per intent and category" in page
    profile = json.loads((out / "profile.json").read_text(encoding="utf-8"))
    assert profile["sample"]["records"] == 60 and profile["input"]["records"] == 246
    assert sum(r["n"] for r in profile["sample"]["locale"]) == 60


def test_the_same_seed_writes_the_same_files(tmp_path: Path, colmeia_cli: Any) -> None:
    pile = raw_pile(tmp_path)
    runs = {}
    for name, seed in (("a", "5"), ("b", "5"), ("c", "6")):
        code, _, err = colmeia_cli(
            "moderate", "sample", str(pile), "--out", str(tmp_path / name), "--size", "40",
            "--seed", seed,
        )  # fmt: skip
        assert code == 0, err
        runs[name] = (tmp_path / name / "sets" / "sample_001.json").read_bytes()
    assert runs["a"] == runs["b"]
    assert runs["a"] != runs["c"]
    code, _, err = colmeia_cli(
        "moderate", "sample", str(pile), "--out", str(tmp_path / "a"), "--size", "40"
    )
    assert code == 2 and "a sample is already in" in err


def test_the_papers_selection_is_the_most_confident_half_of_each_label_in_every_file(
    tmp_path: Path, colmeia_cli: Any
) -> None:
    # The paper: highest-confidence records, correct and incorrect balanced per file, each file
    # ordered by confidence. A random draw gave a file of 31 correct / 19 incorrect.
    pile = raw_pile(tmp_path)
    out = tmp_path / "paper"
    code, stdout, err = colmeia_cli(
        "moderate", "sample", str(pile), "--out", str(out), "--size", "100",
        "--file-size", "50", "--paper",
    )  # fmt: skip
    assert code == 0, err
    assert "sample 100 (50 correct, 50 incorrect) in 2 file(s)" in " ".join(stdout.split())
    files = sorted((out / "sets").glob("*.json"))
    parts = [json.loads(f.read_text(encoding="utf-8")) for f in files]
    assert [Counter(r["correct"] for r in part) for part in parts] == [
        {True: 25, False: 25},
        {True: 25, False: 25},
    ]
    for part in parts:
        confidences = [r["intent"]["confidence"] for r in part]
        assert confidences == sorted(confidences, reverse=True)
    # Nothing left out of a label is more confident than what was taken of it.
    pool = [
        r for r in json.loads(SAMPLE.read_text(encoding="utf-8")) if r["intent"]["confidence"] > 0.9
    ]
    taken = {r["id"] for part in parts for r in part}
    for label in (True, False):
        chosen = [
            r["intent"]["confidence"] for r in pool if r["correct"] is label and r["id"] in taken
        ]
        rest = [
            r["intent"]["confidence"]
            for r in pool
            if r["correct"] is label and r["id"] not in taken
        ]
        assert len(chosen) == 50
        assert not rest or min(chosen) >= max(rest)
    # No randomness: a second run writes the same bytes, whatever the seed.
    again = tmp_path / "again"
    code, _, err = colmeia_cli(
        "moderate", "sample", str(pile), "--out", str(again), "--size", "100",
        "--file-size", "50", "--paper", "--seed", "7",
    )  # fmt: skip
    assert code == 0, err
    assert [f.read_bytes() for f in files] == [
        f.read_bytes() for f in sorted((again / "sets").glob("*.json"))
    ]


def test_the_papers_selection_needs_an_even_file_size(tmp_path: Path, colmeia_cli: Any) -> None:
    code, _, err = colmeia_cli(
        "moderate", "sample", str(SAMPLE), "--out", str(tmp_path / "x"), "--file-size", "25",
        "--paper",
    )  # fmt: skip
    assert code == 2
    assert "--file-size must be even with --paper" in err
