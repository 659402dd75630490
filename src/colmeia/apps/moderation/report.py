"""The moderation evaluation report: results file + labelled inputs → summary, HTML and PNGs.

What it measures (labels are the records' ``correct`` field):

* the first review as a classifier — kept (sum above the threshold) vs flagged — against the
  labels, with "flagged" as the positive class (an answer that should not go out as is);
* for flagged items: rewritten and accepted vs withheld, split by whether the label agreed the
  original was wrong, and the mean number of rewrites;
* accuracy of the first review per locale, intent and category;
* how much accepted rewrites moved the score (final − original, out of 10);
* items not evaluated and why; tokens, calls and cost per item and per role.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from colmeia.apps.moderation.io import LoadedRecord, load_records
from colmeia.apps.moderation.results import read_results
from colmeia.errors import InputError
from colmeia.eval.classification import (
    accuracy,
    binary_metrics,
    confusion_matrix,
    grouped_accuracy,
)
from colmeia.eval.report import (
    HtmlReport,
    bar_figure,
    confusion_figure,
    histogram_figure,
    write_json,
)

__all__ = ["ReportFiles", "build_summary", "write_report"]

_LABELS = ("keep", "flag")
_AGREED = ("label agrees (incorrect)", "label disagrees (correct)")
_OUTCOMES = ("KEEP_ORIGINAL", "ANSWER_REVISED", "DO_NOT_ANSWER", "ERROR")


@dataclass(frozen=True, slots=True)
class ReportFiles:
    """Where the report went."""

    html: Path
    summary: Path
    images: list[Path]


def _stats(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {"n": 0, "mean": 0.0, "median": 0.0, "p95": 0.0, "total": 0.0}
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "n": len(values),
        "mean": round(statistics.fmean(values), 4),
        "median": round(statistics.median(values), 4),
        "p95": round(p95, 4),
        "total": round(sum(values), 6),
    }


def _score_sum(s: Mapping[str, Any] | None) -> int | None:
    if not s:
        return None
    return int(s.get("semantic", 0)) + int(s.get("contextual", 0))


def build_summary(
    results: Mapping[str, Mapping[str, Any]], gold: Sequence[LoadedRecord]
) -> dict[str, Any]:
    """Every figure of the report, as plain JSON-able data."""
    gold_by_key = {r.key: r for r in gold}
    not_evaluated: list[dict[str, str]] = []
    y_true: list[str] = []
    y_pred: list[str] = []
    groups: dict[str, list[str]] = {"locale": [], "intent": [], "category": []}
    flagged: Counter[tuple[str, str]] = Counter()
    flagged_revisions: list[int] = []
    score_change: list[int] = []

    for rec in gold:
        res = results.get(rec.key)
        if res is None:
            not_evaluated.append({"key": rec.key, "reason": "no result line (run not finished?)"})
            continue
        if rec.item is None:
            not_evaluated.append({"key": rec.key, "reason": f"invalid input: {rec.error}"})
            continue
        if res.get("outcome") == "ERROR":
            not_evaluated.append({"key": rec.key, "reason": f"ERROR: {res.get('error')}"})
            continue
        if rec.item.correct is None:
            not_evaluated.append({"key": rec.key, "reason": "no label (correct is missing)"})
            continue
        truth = "keep" if rec.item.correct else "flag"
        pred = "keep" if res["outcome"] == "KEEP_ORIGINAL" else "flag"
        y_true.append(truth)
        y_pred.append(pred)
        groups["locale"].append(rec.item.locale or "(none)")
        groups["intent"].append(rec.item.intent.name if rec.item.intent else "(none)")
        groups["category"].append(rec.item.category or "(none)")
        if pred == "flag":
            agreed = "label agrees (incorrect)" if truth == "flag" else "label disagrees (correct)"
            flagged[(str(res["outcome"]), agreed)] += 1
            flagged_revisions.append(int(res.get("revisions", 0)))
        if res["outcome"] == "ANSWER_REVISED":
            scores = res.get("scores") or {}
            before = _score_sum(scores.get("original"))
            rewrites = scores.get("rewrites") or []
            after = _score_sum(rewrites[-1]) if rewrites else None
            if before is not None and after is not None:
                score_change.append(after - before)

    for key in results.keys() - gold_by_key.keys():
        not_evaluated.append({"key": key, "reason": "not in the gold inputs"})

    bm = binary_metrics(y_true, y_pred, positive="flag")
    reasons = Counter(
        r["reason"].split(":", 1)[0]
        if r["reason"].startswith(("ERROR", "invalid"))
        else r["reason"]
        for r in not_evaluated
    )

    usage_rows = [r.get("usage") or {} for r in results.values()]
    by_role: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for r in results.values():
        for step in r.get("trail") or []:
            role = by_role[str(step.get("role"))]
            role["calls"] += 1
            role["prompt_tokens"] += step.get("prompt_tokens") or 0
            role["completion_tokens"] += step.get("completion_tokens") or 0
            role["cost"] += step.get("cost") or 0.0
    n_results = max(len(results), 1)

    return {
        "items": {
            "results": len(results),
            "gold_records": len(gold),
            "evaluated": len(y_true),
            "not_evaluated": len(not_evaluated),
        },
        "outcomes": {
            o: sum(1 for r in results.values() if r.get("outcome") == o) for o in _OUTCOMES
        },
        "first_review": {
            "positive_class": "flag (the original should not go out as is)",
            "accuracy": round(accuracy(y_true, y_pred), 6),
            "precision": round(bm.precision, 6),
            "recall": round(bm.recall, 6),
            "f1": round(bm.f1, 6),
            "labels": list(_LABELS),
            "confusion_matrix": confusion_matrix(y_true, y_pred, _LABELS),
            "counts": bm.as_dict(),
        },
        "flagged": {
            "total": len(flagged_revisions),
            "by_outcome_and_label": {
                o: {c: flagged[(o, c)] for c in _AGREED}
                for o in ("ANSWER_REVISED", "DO_NOT_ANSWER")
            },
            "mean_rewrites": round(statistics.fmean(flagged_revisions), 4)
            if flagged_revisions
            else 0.0,
        },
        "accuracy_by": {
            name: [
                {"group": str(g.group), "n": g.n, "accuracy": round(g.accuracy, 4)}
                for g in grouped_accuracy(values, y_true, y_pred)
            ]
            for name, values in groups.items()
        },
        "score_change_accepted": {
            "values": score_change,
            **_stats([float(v) for v in score_change]),
        },
        "not_evaluated": {"by_reason": dict(reasons), "items": not_evaluated[:500]},
        "cost": {
            "per_item": {
                "calls": _stats([float(u.get("calls", 0)) for u in usage_rows]),
                "prompt_tokens": _stats([float(u.get("prompt_tokens", 0)) for u in usage_rows]),
                "completion_tokens": _stats(
                    [float(u.get("completion_tokens", 0)) for u in usage_rows]
                ),
                "cost": _stats([float(u.get("cost", 0.0)) for u in usage_rows]),
            },
            "by_role": {
                role: {
                    "calls": int(v["calls"]),
                    "prompt_tokens_per_item": round(v["prompt_tokens"] / n_results, 2),
                    "completion_tokens_per_item": round(v["completion_tokens"] / n_results, 2),
                    "cost": round(v["cost"], 8),
                }
                for role, v in sorted(by_role.items())
            },
        },
    }


def _render(summary: Mapping[str, Any], page: HtmlReport) -> None:
    items, fr = summary["items"], summary["first_review"]
    page.paragraph(
        f"{items['results']} result lines, {items['gold_records']} labelled input records, "
        f"{items['evaluated']} evaluated, {items['not_evaluated']} not evaluated."
    )
    page.heading("Outcomes")
    outcomes = summary["outcomes"]
    page.table(["outcome", "items"], [[o, n] for o, n in outcomes.items()])
    page.figure(
        "outcomes",
        bar_figure(
            list(outcomes),
            [float(v) for v in outcomes.values()],
            title="Outcomes",
            xlabel="items",
            annotations=[str(v) for v in outcomes.values()],
        ),
        "How every item ended.",
    )

    page.heading("First review vs labels")
    page.paragraph(
        "Kept = semantic + contextual above the threshold on the original answer; flagged = "
        "everything else. Positive class: flagged (the label says the answer is incorrect)."
    )
    page.metrics({k: fr[k] for k in ("accuracy", "precision", "recall", "f1")})
    m = fr["confusion_matrix"]
    page.table(
        ["gold \\ predicted", "keep", "flag"],
        [["keep (label correct)", m[0][0], m[0][1]], ["flag (label incorrect)", m[1][0], m[1][1]]],
    )
    page.figure(
        "confusion",
        confusion_figure(m, list(fr["labels"]), title="First review"),
        "Rows: label; columns: first review.",
    )

    fl = summary["flagged"]
    page.heading("What happened to flagged items")
    rows = [[o, *cols.values()] for o, cols in fl["by_outcome_and_label"].items()]
    page.table(["outcome", *_AGREED], rows)
    page.metrics(
        {"flagged items": fl["total"], "mean rewrites per flagged item": fl["mean_rewrites"]}
    )

    page.heading("Accuracy of the first review by group")
    for name, rows_ in summary["accuracy_by"].items():
        if not rows_:
            continue
        page.figure(
            f"accuracy_{name}",
            bar_figure(
                [r["group"] for r in rows_],
                [r["accuracy"] for r in rows_],
                title=f"Accuracy by {name}",
                xlabel="accuracy",
                annotations=[f"{r['accuracy']:.2f} (n={r['n']})" for r in rows_],
                limit=(0.0, 1.15),
            ),
        )

    sc = summary["score_change_accepted"]
    page.heading("Score change of accepted rewrites")
    page.metrics({k: sc[k] for k in ("n", "mean", "median")})
    page.figure(
        "score_change",
        histogram_figure(
            sc["values"],
            title="Final − original score (out of 10)",
            xlabel="score change",
            bins=[x - 0.5 for x in range(-10, 12)],
        ),
    )

    ne = summary["not_evaluated"]
    page.heading("Not evaluated")
    if ne["by_reason"]:
        by_reason: dict[str, int] = ne["by_reason"]
        ranked = sorted(by_reason.items(), key=lambda kv: -kv[1])
        page.table(["reason", "items"], ranked)
        page.table(["key", "reason"], [[r["key"], r["reason"]] for r in ne["items"][:50]])
    else:
        page.paragraph("Every item was evaluated.")

    cost = summary["cost"]
    page.heading("Tokens, calls and cost per item")
    page.table(
        ["figure", "mean", "median", "p95", "total"],
        [
            [name, s["mean"], s["median"], s["p95"], s["total"]]
            for name, s in cost["per_item"].items()
        ],
    )
    roles = cost["by_role"]
    if roles:
        page.table(
            ["role", "calls", "prompt tokens / item", "completion tokens / item", "cost"],
            [
                [
                    r,
                    v["calls"],
                    v["prompt_tokens_per_item"],
                    v["completion_tokens_per_item"],
                    v["cost"],
                ]
                for r, v in roles.items()
            ],
        )
        page.figure(
            "tokens_by_role",
            bar_figure(
                list(roles),
                [v["prompt_tokens_per_item"] for v in roles.values()],
                title="Prompt tokens per item, by role",
                xlabel="tokens",
            ),
        )


def write_report(
    results_path: Path, gold_inputs: Sequence[str | Path], out_dir: Path
) -> ReportFiles:
    """Read a results file and the labelled inputs; write report.html, PNGs and summary.json."""
    if not results_path.is_file():
        raise InputError(f"{results_path}: no such results file; run `colmeia moderate run` first")
    results = read_results(results_path)
    gold = load_records(gold_inputs)
    summary = build_summary(results, gold)
    page = HtmlReport(f"Moderation report — {results_path.name}")
    _render(summary, page)
    html_path = page.write(out_dir)
    summary_path = write_json(out_dir / "summary.json", summary)
    images = sorted(out_dir.glob("*.png"))
    return ReportFiles(html=html_path, summary=summary_path, images=images)
