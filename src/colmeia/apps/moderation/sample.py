"""The paper's experiment sets from raw records: filter, balance, split, profile.

``sample_records`` rebuilds the sets the paper moderates from a pile of labelled records:

1. **filter** — keep records whose intent classifier was sure (``intent.confidence`` >
   ``min_confidence``, 0.9 by default); records without a confidence, invalid records and
   records without a label are left out and counted, each with its reason;
2. **balance** — draw as many answers labelled correct as incorrect, spread evenly over the
   groups of ``by`` (the intent by default, pt/es labels merged as in the report): groups take
   turns giving one record of each label, so no intent crowds out the others;
3. **split** — shuffle and write the sample as JSON files of ``file_size`` records
   (``OUT/sets/sample_001.json`` …), each a valid input of ``colmeia moderate run``; the
   ``sets`` folder holds nothing else, so ``moderate run OUT/sets`` reads exactly the sample;
4. **profile** — ``profile.html`` and ``profile.json``: the paper's Tables 1–2 (records per
   locale and label; per intent and category) for the input, the filtered pool and the sample.

Everything random comes from one ``random.Random(seed)``; the same inputs and seed write the
same files byte for byte. ``sample.json`` records the parameters, counts and each file's SHA-256.

``paper=True`` (``moderate sample --paper``) is the paper's own selection instead of steps 2–3:
no randomness at all — per label, the records of highest intent confidence (ties in input
order); every file holds as many correct as incorrect records, and each file lists its records
from the most to the least confident.
"""

from __future__ import annotations

import hashlib
import json
import random
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from colmeia.apps.moderation.io import LoadedRecord, load_records
from colmeia.apps.moderation.labels import LabelMap
from colmeia.errors import ConfigurationError
from colmeia.eval.report import HtmlReport, grouped_bar_figure, write_json

__all__ = ["SampleResult", "profile", "sample_records"]

Stratum = Literal["intent", "category", "none"]


@dataclass(slots=True)
class SampleResult:
    """What :func:`sample_records` wrote and why records were left out."""

    files: list[Path]  # OUT/sets/sample_NNN.json
    profile_html: Path
    manifest: Path
    pool: int
    sampled: int
    correct: int
    incorrect: int
    left_out: dict[str, int] = field(default_factory=dict)
    shortfall: int = 0  # records asked for that the pool could not give in balance


def _confidence(rec: LoadedRecord) -> float | None:
    item = rec.item
    if item is None or item.intent is None:
        return None
    value = getattr(item.intent, "confidence", None)
    return float(value) if isinstance(value, int | float) else None


def _group(rec: LoadedRecord, by: Stratum, labels: LabelMap) -> str:
    item = rec.item
    assert item is not None
    if by == "intent":
        return labels.group("intent", item.intent.name) if item.intent else "(none)"
    if by == "category":
        return labels.group("category", item.category) if item.category else "(none)"
    return "all"


def _balanced(
    pool: Sequence[LoadedRecord], size: int, by: Stratum, labels: LabelMap, rng: random.Random
) -> list[LoadedRecord]:
    """``size // 2`` records of each label, groups taking turns (round robin in a shuffled
    order), each group's records in a shuffled order."""
    buckets: dict[bool, dict[str, list[LoadedRecord]]] = {True: {}, False: {}}
    for rec in pool:
        assert rec.item is not None and rec.item.correct is not None
        buckets[rec.item.correct].setdefault(_group(rec, by, labels), []).append(rec)
    per_label = size // 2
    # Never more of one label than the other can match: the sample stays balanced.
    available = min(sum(len(v) for v in buckets[True].values()),
                    sum(len(v) for v in buckets[False].values()))  # fmt: skip
    per_label = min(per_label, available)
    out: list[LoadedRecord] = []
    for label in (True, False):
        groups = sorted(buckets[label])
        rng.shuffle(groups)
        queues = {g: rng.sample(buckets[label][g], len(buckets[label][g])) for g in groups}
        taken = 0
        while taken < per_label:
            progressed = False
            for g in groups:
                if queues[g] and taken < per_label:
                    out.append(queues[g].pop())
                    taken += 1
                    progressed = True
            if not progressed:
                break
    return out


def _most_confident(pool: Sequence[LoadedRecord], size: int, file_size: int) -> list[LoadedRecord]:
    """The paper's selection: per label the ``size // 2`` most confident records (ties in input
    order), laid out file by file with half of each label, each file most confident first."""
    by_label: dict[bool, list[LoadedRecord]] = {True: [], False: []}
    for rec in pool:
        assert rec.item is not None and rec.item.correct is not None
        by_label[rec.item.correct].append(rec)
    per_label = min(size // 2, len(by_label[True]), len(by_label[False]))
    ranked = {
        label: sorted(recs, key=lambda r: -(_confidence(r) or 0.0))[:per_label]
        for label, recs in by_label.items()
    }
    half = file_size // 2
    out: list[LoadedRecord] = []
    for start in range(0, per_label, half):
        part = ranked[True][start : start + half] + ranked[False][start : start + half]
        out += sorted(part, key=lambda r: -(_confidence(r) or 0.0))
    return out


def _record_json(rec: LoadedRecord) -> dict[str, Any]:
    assert rec.item is not None
    data = rec.item.model_dump(mode="json", exclude_none=False)
    if rec.raw_id is not None:
        data["id"] = rec.raw_id
    return data


def profile(records: Sequence[LoadedRecord], labels: LabelMap) -> dict[str, Any]:
    """Tables 1–2 of a set of valid records: per locale and label, per intent and category."""
    valid = [r for r in records if r.item is not None]
    by_locale: dict[str, Counter[str]] = defaultdict(Counter)
    by_intent: dict[str, Counter[str]] = defaultdict(Counter)
    by_category: dict[str, Counter[str]] = defaultdict(Counter)
    q_words, a_words = [], []
    for r in valid:
        item = r.item
        assert item is not None
        label = {True: "correct", False: "incorrect", None: "unlabelled"}[item.correct]
        by_locale[(item.locale or "(none)").casefold()][label] += 1
        intent = labels.group("intent", item.intent.name) if item.intent else "(none)"
        category = labels.group("category", item.category) if item.category else "(none)"
        by_intent[intent][label] += 1
        by_category[category][label] += 1
        q_words.append(len(item.question.split()))
        a_words.append(len(item.answer.split()))

    def rows(table: dict[str, Counter[str]], kind: str) -> list[dict[str, Any]]:
        out = []
        for key, c in sorted(table.items(), key=lambda kv: (-sum(kv[1].values()), kv[0])):
            name = labels.name("intent" if kind == "intent" else "category", key)
            out.append(
                {
                    "group": name if kind != "locale" else key,
                    "n": sum(c.values()),
                    "correct": c["correct"],
                    "incorrect": c["incorrect"],
                    "unlabelled": c["unlabelled"],
                }
            )
        return out

    return {
        "records": len(valid),
        "correct": sum(1 for r in valid if r.item and r.item.correct is True),
        "incorrect": sum(1 for r in valid if r.item and r.item.correct is False),
        "question_words_mean": round(statistics.fmean(q_words), 2) if q_words else None,
        "answer_words_mean": round(statistics.fmean(a_words), 2) if a_words else None,
        "locale": rows(by_locale, "locale"),
        "intent": rows(by_intent, "intent"),
        "category": rows(by_category, "category"),
    }


def sample_records(
    inputs: Sequence[str | Path],
    out_dir: Path,
    *,
    size: int = 200,
    file_size: int = 100,
    min_confidence: float = 0.9,
    by: Stratum = "intent",
    seed: int = 0,
    labels: LabelMap | None = None,
    overwrite: bool = False,
    paper: bool = False,
) -> SampleResult:
    """Filter, balance, split and profile; see the module's docstring."""
    if paper and file_size % 2:
        raise ConfigurationError(
            f"--file-size must be even with --paper (half of each label per file), not {file_size}"
        )
    if size < 2:
        raise ConfigurationError(f"--size must be at least 2 (one of each label), not {size}")
    if file_size < 1:
        raise ConfigurationError(f"--file-size must be at least 1, not {file_size}")
    if not 0 <= min_confidence < 1:
        raise ConfigurationError(f"--min-confidence must be in [0, 1), not {min_confidence}")
    sets = out_dir / "sets"
    existing = sorted(sets.glob("sample_*.json")) if sets.exists() else []
    if existing and not overwrite:
        raise ConfigurationError(
            f"{existing[0]}: a sample is already in {out_dir}; choose another folder or overwrite"
        )
    labels = labels or LabelMap.load()
    records = load_records(inputs)
    left_out: Counter[str] = Counter()
    pool: list[LoadedRecord] = []
    for rec in records:
        if rec.item is None:
            left_out["invalid record"] += 1
        elif rec.item.correct is None:
            left_out["no label"] += 1
        elif (conf := _confidence(rec)) is None:
            left_out["no intent confidence"] += 1
        elif conf <= min_confidence:
            left_out[f"intent confidence ≤ {min_confidence:g}"] += 1
        else:
            pool.append(rec)
    if paper:
        chosen = _most_confident(pool, size, file_size)
    else:
        rng = random.Random(seed)
        chosen = _balanced(pool, size, by, labels, rng)
        rng.shuffle(chosen)
    for old in existing:
        old.unlink()
    sets.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    for start in range(0, len(chosen), file_size):
        path = sets / f"sample_{start // file_size + 1:03d}.json"
        part = [_record_json(r) for r in chosen[start : start + file_size]]
        path.write_text(json.dumps(part, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        files.append(path)
    correct = sum(1 for r in chosen if r.item and r.item.correct)
    profiles = {
        "input": profile(records, labels),
        "filtered": profile(pool, labels),
        "sample": profile(chosen, labels),
    }
    params = {
        "inputs": [str(p) for p in inputs],
        "size": size,
        "file_size": file_size,
        "min_confidence": min_confidence,
        "by": "none" if paper else by,
        "seed": None if paper else seed,
        "selection": "paper: most confident per label, balanced per file"
        if paper
        else "random, balanced over groups",
    }
    manifest = write_json(
        out_dir / "sample.json",
        {
            **params,
            "read": len(records),
            "pool": len(pool),
            "sampled": len(chosen),
            "correct": correct,
            "incorrect": len(chosen) - correct,
            "shortfall": size - len(chosen),
            "left_out": dict(left_out),
            "files": {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in files},
        },
    )
    write_json(out_dir / "profile.json", profiles)
    html = _render_profile(profiles, params, dict(left_out), out_dir)
    return SampleResult(
        files=files,
        profile_html=html,
        manifest=manifest,
        pool=len(pool),
        sampled=len(chosen),
        correct=correct,
        incorrect=len(chosen) - correct,
        left_out=dict(left_out),
        shortfall=size - len(chosen),
    )


def _render_profile(
    profiles: dict[str, Any], params: dict[str, Any], left_out: dict[str, int], out_dir: Path
) -> Path:
    page = HtmlReport("Dataset profile")
    if params["seed"] is None:
        how = "the most confident of each label, half of each per file, most confident first"
    else:
        how = f"groups of {params['by']} taking turns, seed {params['seed']}"
    page.paragraph(
        f"Sample of {params['size']} records (half labelled correct, half incorrect; {how}), "
        f"intent confidence > {params['min_confidence']:g}, files of {params['file_size']}."
    )
    page.heading("Table 1: records per locale and label")
    rows = []
    for stage, prof in profiles.items():
        for r in prof["locale"]:
            rows.append([stage, r["group"], r["n"], r["correct"], r["incorrect"]])
        rows.append([stage, "all", prof["records"], prof["correct"], prof["incorrect"]])
    page.table(["set", "locale", "records", "correct", "incorrect"], rows)
    page.metrics(
        {
            "mean words per question (sample)": profiles["sample"]["question_words_mean"],
            "mean words per answer (sample)": profiles["sample"]["answer_words_mean"],
        }
    )
    if left_out:
        page.heading("Left out of the pool", level=3)
        page.table(["reason", "records"], [[k, v] for k, v in sorted(left_out.items())])
    page.heading("Table 2: records per intent and category")
    for kind in ("intent", "category"):
        page.heading(kind, level=3)
        sample = {r["group"]: r for r in profiles["sample"][kind]}
        page.table(
            [kind, "input", "filtered", "sample", "sample correct", "sample incorrect"],
            [
                [
                    r["group"],
                    r["n"],
                    next(
                        (f["n"] for f in profiles["filtered"][kind] if f["group"] == r["group"]), 0
                    ),
                    sample.get(r["group"], {}).get("n", 0),
                    sample.get(r["group"], {}).get("correct", 0),
                    sample.get(r["group"], {}).get("incorrect", 0),
                ]
                for r in profiles["input"][kind]
            ],
        )
    intents = profiles["sample"]["intent"]
    if intents:
        page.figure(
            "profile_intents",
            grouped_bar_figure(
                [r["group"][:24] for r in intents],
                {
                    "correct": [float(r["correct"]) for r in intents],
                    "incorrect": [float(r["incorrect"]) for r in intents],
                },
                title="Sample: records per intent and label",
                ylabel="records",
                integer_values=True,
                value_format="{:.0f}",
            ),
        )
    return page.write(out_dir, name="profile.html")
