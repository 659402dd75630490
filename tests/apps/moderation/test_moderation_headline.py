"""What a team reads in the terminal after `moderate report` and `moderate compare`.

The HTML and JSON hold everything; the terminal must hold the headline: accuracy and both F1s,
outcome shares, rewrites, cost and speed; for two runs, B − A, whether the difference is
significant, and what was changed between the runs (a threshold, a template, the policy).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from moderation_helpers import SampleRuns, copy_run, read_json

from colmeia.apps.moderation.headline import comparison_headline


def _flat(text: str) -> str:
    """The words of the output, the table's box drawing (U+2500–U+257F) taken out."""
    return " ".join(re.sub("[\u2500-\u257f]", " ", text).split())


def test_report_prints_the_headline_figures_of_the_summary(
    sample_runs: SampleRuns, tmp_path: Path, colmeia_cli: Any
) -> None:
    out = tmp_path / "rep"
    code, stdout, err = colmeia_cli(
        "moderate", "report", str(sample_runs.a), "--gold", str(sample_runs.gold), "--out", str(out)
    )  # fmt: skip
    assert code == 0, err
    summary = read_json(out / "summary.json")
    accuracy = summary["first_review"]["accuracy"]
    f1 = summary["first_review"]["f1"]
    flat = _flat(stdout)
    assert f"accuracy {100 * accuracy:.1f}%" in flat
    assert f"F1 (flagged) {100 * f1:.1f}%" in flat
    for metric in ("F1 (keep)", "share revised", "mean rewrites of flagged items", "cost / item"):
        assert metric in flat
    assert "report: " in flat  # and where the rest is
    assert "simulated model: these figures are about answers of colmeia's simulated" in flat


def _compare(sample_runs: SampleRuns, a: Path, b: Path, out: Path, colmeia_cli: Any) -> str:
    code, stdout, err = colmeia_cli(
        "moderate", "compare", str(a), str(b), "--gold", str(sample_runs.gold), "--out", str(out)
    )  # fmt: skip
    assert code == 0, err
    return _flat(stdout)


def test_compare_prints_both_runs_the_difference_and_its_significance(
    sample_runs: SampleRuns, tmp_path: Path, colmeia_cli: Any
) -> None:
    flat = _compare(sample_runs, sample_runs.a, sample_runs.b, tmp_path / "cmp", colmeia_cli)
    data = read_json(tmp_path / "cmp" / "compare.json")
    acc = next(m for m in data["metrics"] if m["metric"] == "accuracy")
    assert (
        f"accuracy {100 * acc['a']:.1f}% {100 * acc['b']:.1f}% {100 * acc['delta']:+.1f} pp" in flat
    )
    mc = data["differences"]["mcnemar"]
    assert f"first review right only in A: {mc['b']}, only in B: {mc['c']}" in flat
    word = "not significant" if mc["p_value"] >= 0.05 else "significant"
    assert f"— {word} (p = {mc['p_value']:.3g}" in flat
    # The two sample runs were made with different models: said as a change.
    assert "what changed between the runs:" in flat
    assert "≠ model of all roles: 'sim' → 'strict-sim'" in flat


def test_compare_names_a_threshold_and_a_template_changed_between_the_runs(
    sample_runs: SampleRuns, tmp_path: Path, colmeia_cli: Any
) -> None:
    a = copy_run(sample_runs.a, tmp_path)
    (tmp_path / "b").mkdir()
    b = copy_run(sample_runs.a, tmp_path / "b")  # the same run, then two settings changed
    manifest_path = b.with_name(f"{b.stem}.manifest.json")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    settings = manifest["settings"]
    settings["threshold"] = 7.0 if settings["threshold"] != 7.0 else 6.0
    settings["prompts"]["moderation/decider.j2"] = "0" * 64
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    flat = _compare(sample_runs, a, b, tmp_path / "cmp", colmeia_cli)
    before = read_json(a.with_name(f"{a.stem}.manifest.json"))["settings"]["threshold"]
    assert f"≠ threshold: {before!r} → {settings['threshold']!r}" in flat
    assert "≠ prompt template moderation/decider.j2 changed" in flat
    assert "model of all roles" not in flat  # nothing else was changed
    page = (tmp_path / "cmp" / "compare.html").read_text(encoding="utf-8")
    assert "What differs between the runs" in page and "decider.j2 changed" in page


def test_a_comparison_without_manifests_says_what_changed_is_unknown(
    sample_runs: SampleRuns, tmp_path: Path, colmeia_cli: Any
) -> None:
    a = copy_run(sample_runs.a, tmp_path)
    a.with_name(f"{a.stem}.manifest.json").unlink()
    flat = _compare(sample_runs, a, sample_runs.b, tmp_path / "cmp", colmeia_cli)
    assert "what changed: unknown (a run has no manifest)" in flat


@pytest.mark.parametrize(("p", "word"), [(0.01, "significant (p = 0.01 < 0.05)"),
                                         (0.2, "not significant (p = 0.2 ≥ 0.05)")])  # fmt: skip
def test_the_verdict_on_significance_follows_the_p_value(p: float, word: str) -> None:
    data = {
        "names": ["A", "B"],
        "metrics": [{"metric": "accuracy", "a": 0.5, "b": 0.6, "delta": 0.1}],
        "shared": {"n": 10},
        "differences": {"mcnemar": {"b": 1, "c": 4, "p_value": p, "method": "exact"}},
        "settings_differences": [],
    }
    head = comparison_headline(data)
    assert head.verdict == word
    assert head.rows == [("accuracy", "50.0%", "60.0%", "+10.0 pp")]
