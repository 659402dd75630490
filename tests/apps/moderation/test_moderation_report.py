"""The report a moderation team reads, and the comparison of two runs.

The runs come from the ``sample_runs`` fixture (conftest.py): the shipped sample moderated by two simulated
models. Figures asserted here are exact counts derived from the files, not tuned numbers.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from moderation_helpers import SampleRuns, copy_run, read_json

from colmeia.apps.moderation.labels import LabelMap
from colmeia.apps.moderation.report import (
    ReportOptions,
    build_summary,
    load_results_and_gold,
    render_summary,
    write_report,
)
from colmeia.apps.moderation.report_text import PT_BR, translator
from colmeia.apps.moderation.results import read_results
from colmeia.apps.moderation.review import VerdictLog, VerdictRecord, review_items, verdicts_path
from colmeia.errors import InputError
from colmeia.eval.report import histogram_figure
from shared_data import DATA_DIR


@pytest.fixture(scope="module")
def report_a(sample_runs: SampleRuns, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of run A, with five human verdicts recorded beside the results first."""
    folder = tmp_path_factory.mktemp("report_a")
    results_path = copy_run(sample_runs.a, folder)
    items = {i.key: i for i in review_items(read_results(results_path))}
    revised = [k for k, i in items.items() if i.outcome == "ANSWER_REVISED"][:3]
    withheld = [k for k, i in items.items() if i.outcome == "DO_NOT_ANSWER"][:2]
    log = VerdictLog(verdicts_path(results_path))
    verdicts = ["accept", "accept", "edit", "reject", "accept"]
    for key, verdict in zip(revised + withheld, verdicts, strict=True):
        log.append(VerdictRecord.of(items[key], verdict, by="ana", edited_answer="Olá! Sim."))
    write_report(results_path, [sample_runs.gold], folder / "report")
    return folder / "report"


def test_the_report_merges_portuguese_and_spanish_labels_of_one_group(report_a: Path) -> None:
    summary = read_json(report_a / "summary.json")
    raw = read_json(DATA_DIR / "moderation" / "sample_items.json")
    categories = {r["group"]: r["n"] for r in summary["accuracy_by"]["category"]}
    tools = sum(1 for r in raw if r["category"] in ("Ferramentas", "Herramientas"))
    assert categories["Ferramentas / Herramientas"] == tools == 39
    assert not any(g in ("Herramientas", "Ferramentas") for g in categories)
    intents = {r["group"]: r["n"] for r in summary["accuracy_by"]["intent"]}
    assert intents["Compatibilidade / Compatibilidad"] == 60
    assert intents["Garantía / Garantia"] == 12  # joined with no mapping: accents only differ
    assert sum(r["n"] for r in summary["accuracy_by"]["category"]) == summary["items"]["evaluated"]
    page = (report_a / "report.html").read_text(encoding="utf-8")
    assert "Ferramentas / Herramientas" in page
    assert "(n=39)" not in page or "accuracy_category.png" in page


def test_percentages_and_reasons_for_withholding(report_a: Path, sample_runs: SampleRuns) -> None:
    summary = read_json(report_a / "summary.json")
    results = read_results(sample_runs.a)
    withheld = [r for r in results.values() if r["outcome"] == "DO_NOT_ANSWER"]
    reasons = summary["withheld_reasons"]
    assert sum(v["n"] for v in reasons.values()) == len(withheld) > 0
    for code, v in reasons.items():
        assert v["n"] == sum(1 for r in withheld if r["reason_code"] == code)
        assert v["share"] == pytest.approx(v["n"] / len(withheld))
    assert sum(v["share"] for v in summary["outcomes"].values()) == pytest.approx(1.0)
    flagged = summary["flagged"]["by_outcome"]["ANSWER_REVISED"]
    accepted = [r for r in results.values() if r["outcome"] == "ANSWER_REVISED"]
    assert flagged["total"] == len(accepted)
    assert flagged["mean_rewrites"] == pytest.approx(
        sum(r["revisions"] for r in accepted) / len(accepted), abs=1e-4
    )
    sc = summary["score_change_accepted"]
    assert sc["improved"]["n"] + sc["unchanged"]["n"] + sc["worse"]["n"] == sc["n"] > 0
    page = (report_a / "report.html").read_text(encoding="utf-8")
    assert "the rewriter could not answer from the context" in page
    assert "the decider withheld the answer" in page
    assert re.search(r"\d+ \(\d+\.\d%\)", page)  # counts with their shares
    assert "improved" in page and "% of flagged" in page


def test_the_header_says_which_models_ran_and_that_they_were_simulated(report_a: Path) -> None:
    page = (report_a / "report.html").read_text(encoding="utf-8")
    assert "colmeia&#x27;s simulated model" in page
    assert "semantic.j2" in page  # prompt template hashes
    summary = read_json(report_a / "summary.json")
    assert summary["run"]["roles"]["decider"]["model"] == "sim"
    assert summary["run"]["runs"][0]["items_per_min"] > 0
    assert set(summary["latency"]["by_role"]) == {
        "semantic",
        "contextual",
        "suggester",
        "rewriter",
        "decider",
    }


def test_the_report_in_portuguese_translates_every_text(
    sample_runs: SampleRuns, tmp_path: Path
) -> None:
    write_report(sample_runs.a, [sample_runs.gold], tmp_path, options=ReportOptions("pt-BR"))
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert '<html lang="pt-BR">' in page
    for text in ("Relatório de moderação", "Por que respostas foram retidas", "Acurácia por"):
        assert text in page
    assert "Why answers were withheld" not in page
    # Every text the report looks up has a translation (placeholders stay the same).
    for english, portuguese in PT_BR.items():
        assert set(re.findall(r"{\w+}", english)) == set(re.findall(r"{\w+}", portuguese))
    english_only = [
        s
        for s in re.findall(r"<(?:h[1-3]|th|dt|p)[^>]*>([^<]+)<", page)
        if s in _english_texts() and s not in PT_BR.values()
    ]
    assert english_only == []


def _english_texts() -> set[str]:
    t = translator("en")
    return {t(k) for k in PT_BR if "{" not in k}


def test_nothing_evaluated_shows_n_a_not_zero(sample_runs: SampleRuns, tmp_path: Path) -> None:
    unlabelled = tmp_path / "unlabelled.json"
    raw = read_json(sample_runs.gold)
    unlabelled.write_text(json.dumps([{**r, "correct": None} for r in raw]), encoding="utf-8")
    results, gold = load_results_and_gold(sample_runs.a, [unlabelled])
    summary = build_summary(results, gold)
    fr = summary["first_review"]
    assert (fr["accuracy"], fr["precision"], fr["recall"], fr["f1"]) == (None, None, None, None)
    page = render_summary(summary, "a.jsonl", ReportOptions()).render()
    assert "<dt>accuracy</dt><dd>n/a</dd>" in page
    assert "<dt>F1</dt><dd>n/a</dd>" in page


def test_swapped_files_fail_with_one_clear_message(
    sample_runs: SampleRuns, tmp_path: Path, colmeia_cli: Any
) -> None:
    with pytest.raises(InputError, match="look swapped"):
        write_report(sample_runs.gold, [sample_runs.a], tmp_path)
    code, _, stderr = colmeia_cli(
        "moderate", "report", str(sample_runs.gold), "--gold", str(sample_runs.a), "--out", "r"
    )
    assert code == 2
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(" ".join(lines).split("error:")) == 2  # one message, no traceback
    assert "holds input records, not moderation results" in " ".join(lines)
    assert "Traceback" not in stderr
    with pytest.raises(InputError, match="holds moderation results, not labelled input"):
        write_report(sample_runs.a, [sample_runs.b], tmp_path)


def test_small_groups_fold_into_other_with_their_items(sample_runs: SampleRuns) -> None:
    results, gold = load_results_and_gold(sample_runs.a, [sample_runs.gold])
    summary = build_summary(results, gold, options=ReportOptions(top=2, min_group=45))
    rows = summary["accuracy_by"]["category"]
    assert [r["group"] for r in rows] == ["Informática / Computación", "other"]
    assert rows[0]["n"] == 45 and rows[1]["n"] == 200 - 45
    portuguese = build_summary(results, gold, options=ReportOptions("pt-BR", top=2, min_group=45))
    assert portuguese["accuracy_by"]["category"][-1]["group"] == "outros"


def test_a_label_mapping_of_ones_own_joins_more_groups(
    sample_runs: SampleRuns, tmp_path: Path
) -> None:
    mapping = tmp_path / "labels.toml"
    mapping.write_text('[intents]\n"Problema" = "Outros"\n"Frete" = "Outros"\n', encoding="utf-8")
    results, gold = load_results_and_gold(sample_runs.a, [sample_runs.gold])
    summary = build_summary(
        results, gold, options=ReportOptions(labels=LabelMap.load(mapping), min_group=1)
    )
    intents = {frozenset(r["group"].split(" / ")): r["n"] for r in summary["accuracy_by"]["intent"]}
    # Envío joins Frete (shipped mapping), which joins Outros (this file): chains are followed.
    joined = frozenset({"Frete", "Problema", "Outros", "Envío", "Otros"})
    assert intents[joined] == 9 + 7 + 4 + 5 + 2


def test_score_change_histogram_counts_whole_items() -> None:
    fig = histogram_figure(
        [1, 1, 2, 0, -1], title="t", xlabel="x", bins=[-1.5, -0.5, 0.5, 1.5, 2.5]
    )
    ticks = fig.axes[0].get_yticks()
    assert all(float(t).is_integer() for t in ticks)


def test_invalid_records_do_not_dilute_the_cost_per_item(sample_runs: SampleRuns) -> None:
    results, gold = load_results_and_gold(sample_runs.a, [sample_runs.gold])
    base = build_summary(results, gold)["cost"]
    padded = dict(results)
    for i in range(50):  # fifty invalid input records: ERROR lines with no model call
        padded[f"bad-{i}"] = {"key": f"bad-{i}", "outcome": "ERROR", "error_kind": "input"}
    diluted = build_summary(padded, gold)["cost"]
    assert diluted["moderated_items"] == base["moderated_items"] == 200
    assert diluted["invalid_inputs"] == 50
    assert diluted["per_item"]["prompt_tokens"] == base["per_item"]["prompt_tokens"]


def test_per_role_prices_price_the_tokens_of_each_role(sample_runs: SampleRuns) -> None:
    results, gold = load_results_and_gold(sample_runs.a, [sample_runs.gold])
    prices = {"semantic": (1.0, 0.0), "decider": (0.0, 10.0)}
    cost = build_summary(results, gold, options=ReportOptions(prices=prices))["cost"]["by_role"]
    assert cost["semantic"]["cost"] == pytest.approx(cost["semantic"]["prompt_tokens"] / 1e6)
    assert cost["decider"]["cost"] == pytest.approx(cost["decider"]["completion_tokens"] * 10 / 1e6)
    assert cost["rewriter"]["cost"] == 0.0  # no price given: the recorded (zero) cost


def test_human_verdicts_show_agreement_with_the_system(report_a: Path) -> None:
    review = read_json(report_a / "summary.json")["review"]
    assert review["reviewed"] == 5
    assert review["by_outcome"]["ANSWER_REVISED"] == {"accept": 2, "edit": 1, "reject": 0}
    assert review["by_outcome"]["DO_NOT_ANSWER"] == {"accept": 1, "edit": 0, "reject": 1}
    assert review["agreement"] == pytest.approx(3 / 5)
    page = (report_a / "report.html").read_text(encoding="utf-8")
    assert "Human review" in page and "60.0%" in page


def test_compare_shows_two_runs_side_by_side_with_the_differences(
    sample_runs: SampleRuns, tmp_path: Path, colmeia_cli: Any
) -> None:
    code, _, stderr = colmeia_cli(
        "moderate",
        "compare",
        str(sample_runs.a),
        str(sample_runs.b),
        "--gold",
        str(sample_runs.gold),
        "--out",
        str(tmp_path / "cmp"),
    )
    assert code == 0, stderr
    data = read_json(tmp_path / "cmp" / "compare.json")
    assert data["names"] == ["a (sim)", "b (strict-sim)"]
    a, b = (read_results(p) for p in (sample_runs.a, sample_runs.b))
    differing = [k for k in a if a[k]["outcome"] != b[k]["outcome"]]
    assert data["differences"]["differing"] == len(differing) > 0
    assert {d["key"] for d in data["differences"]["items"]} == set(differing)
    assert sum(map(sum, data["differences"]["matrix"])) == 200
    metrics = {m["metric"]: m for m in data["metrics"]}
    kept_b = sum(1 for r in b.values() if r["outcome"] == "KEEP_ORIGINAL") / 200
    assert metrics["share kept"]["b"] == pytest.approx(kept_b)
    assert metrics["accuracy"]["delta"] == pytest.approx(
        metrics["accuracy"]["b"] - metrics["accuracy"]["a"], abs=1e-6
    )
    page = (tmp_path / "cmp" / "compare.html").read_text(encoding="utf-8")
    assert "a (sim)" in page and "b (strict-sim)" in page
    assert "Differences per item" in page
    assert {p.name for p in (tmp_path / "cmp").glob("*.png")} >= {
        "compare_first_review.png",
        "compare_outcomes.png",
        "compare_matrix.png",
    }


def test_merchant_feedback_is_shown_beside_the_original_in_report_and_review(
    sample_runs: SampleRuns, tmp_path: Path
) -> None:
    from colmeia.apps.moderation.review import export

    raw = read_json(sample_runs.gold)
    with_feedback = next(r for r in raw if r.get("feedback"))
    key = str(with_feedback["id"])
    results = read_results(sample_runs.a)
    assert results[key]["feedback"] == with_feedback["feedback"]  # carried on the result line
    item = next(i for i in review_items(results) if i.key == key)
    assert item.feedback == with_feedback["feedback"]
    path = export([item], {}, tmp_path / "queue.csv")
    header, row = path.read_text(encoding="utf-8-sig").splitlines()[:2]
    columns = header.split(",")
    assert columns.index("merchant_feedback") == columns.index("original_answer") + 1
    assert with_feedback["feedback"] in row

    write_report(sample_runs.a, [sample_runs.gold], tmp_path / "r")
    summary = read_json(tmp_path / "r" / "summary.json")
    row = next(r for r in summary["feedback"] if r["key"] == key)
    assert (row["original"], row["feedback"]) == (
        with_feedback["answer"],
        with_feedback["feedback"],
    )
    page = (tmp_path / "r" / "report.html").read_text(encoding="utf-8")
    assert "Merchant feedback beside the original" in page
    # Table 4: shares are of each label group, and each group adds up to its labelled items.
    groups = summary["label_groups"]
    n_correct = sum(1 for r in raw if r["correct"] is True)
    assert groups["label correct"]["n"] == n_correct
    outcomes = ("KEEP_ORIGINAL", "ANSWER_REVISED", "DO_NOT_ANSWER")
    assert sum(groups["label correct"][o]["share"] for o in outcomes) == pytest.approx(1.0)
    assert "Outcomes by label group (Table 4)" in page
    assert "mean rewrites of flagged items" in page
