"""Two moderation runs side by side (e.g. two models), on the same labelled inputs.

``compare_runs(A, B, gold)`` builds the report summary of each run and puts them next to each
other — first-review metrics, outcome shares, mean rewrites, withholding reasons, calls, tokens,
cost and latency per item, throughput — with the difference B − A, then lists the items whose
outcome differs (with the label, and whether each run's first review was right) and the
A-outcome × B-outcome matrix. Output: ``compare.html``, PNGs and ``compare.json``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from colmeia.apps.moderation.io import LoadedRecord
from colmeia.apps.moderation.manifest import read_manifest
from colmeia.apps.moderation.report import (
    WITHHOLD_REASONS,
    ReportFiles,
    ReportOptions,
    build_summary,
    load_results_and_gold,
    render_run,
)
from colmeia.apps.moderation.report_text import translator
from colmeia.errors import ConfigurationError
from colmeia.eval.report import (
    HtmlReport,
    confusion_figure,
    grouped_bar_figure,
    percent,
    write_json,
)

__all__ = ["compare_runs", "compare_summaries", "item_differences"]

_OUTCOMES = ("KEEP_ORIGINAL", "ANSWER_REVISED", "DO_NOT_ANSWER", "ERROR")
_SHORT = {
    "KEEP_ORIGINAL": "share kept",
    "ANSWER_REVISED": "share revised",
    "DO_NOT_ANSWER": "share withheld",
    "ERROR": "share ERROR",
}
_MAX_ROWS = 200


def _metrics(summary: Mapping[str, Any]) -> dict[str, float | None]:
    fr, cost = summary["first_review"], summary["cost"]
    runs = (summary.get("run") or {}).get("runs") or []
    speeds = [r["items_per_min"] for r in runs if r.get("items_per_min")]
    out: dict[str, float | None] = {
        "accuracy": fr["accuracy"],
        "precision": fr["precision"],
        "recall": fr["recall"],
        "F1": fr["f1"],
    }
    for o in _OUTCOMES:
        out[_SHORT[o]] = summary["outcomes"][o]["share"]
    out["mean rewrites of accepted items"] = summary["flagged"]["by_outcome"]["ANSWER_REVISED"][
        "mean_rewrites"
    ]
    out["mean rewrites of withheld items"] = summary["flagged"]["by_outcome"]["DO_NOT_ANSWER"][
        "mean_rewrites"
    ]
    for code, text in WITHHOLD_REASONS.items():
        out[text] = summary["withheld_reasons"][code]["n"]
    out["calls / item"] = cost["per_item"]["calls"]["mean"]
    out["prompt tokens / item"] = cost["per_item"]["prompt_tokens"]["mean"]
    out["completion tokens / item"] = cost["per_item"]["completion_tokens"]["mean"]
    out["cost / item"] = cost["per_item"]["cost"]["mean"]
    out["mean latency per call (s)"] = summary["latency"]["per_call"]["mean"]
    out["items/min"] = speeds[-1] if speeds else None
    return out


def _correct(result: Mapping[str, Any] | None, label: bool | None) -> bool | None:
    if result is None or label is None or result.get("outcome") in (None, "ERROR"):
        return None
    return bool((result["outcome"] == "KEEP_ORIGINAL") == label)


def item_differences(
    a: Mapping[str, Mapping[str, Any]],
    b: Mapping[str, Mapping[str, Any]],
    gold: Sequence[LoadedRecord],
) -> dict[str, Any]:
    """Items whose outcome differs, and the A × B outcome matrix over the valid gold records."""
    matrix = [[0] * len(_OUTCOMES) for _ in _OUTCOMES]
    rows = []
    only_a = only_b = 0
    for rec in gold:
        if rec.item is None:
            continue
        ra, rb = a.get(rec.key), b.get(rec.key)
        oa = str(ra.get("outcome")) if ra else "—"
        ob = str(rb.get("outcome")) if rb else "—"
        if oa in _OUTCOMES and ob in _OUTCOMES:
            matrix[_OUTCOMES.index(oa)][_OUTCOMES.index(ob)] += 1
        ca, cb = _correct(ra, rec.item.correct), _correct(rb, rec.item.correct)
        only_a += bool(ca and cb is False)
        only_b += bool(cb and ca is False)
        if oa != ob:
            rows.append(
                {
                    "key": rec.key,
                    "question": rec.item.question,
                    "label": None if rec.item.correct is None else rec.item.correct,
                    "a": oa,
                    "b": ob,
                    "a_first_review_right": ca,
                    "b_first_review_right": cb,
                    "a_answer": (ra or {}).get("final_answer"),
                    "b_answer": (rb or {}).get("final_answer"),
                }
            )
    return {
        "outcomes": list(_OUTCOMES),
        "matrix": matrix,
        "differing": len(rows),
        "first_review_right_only_in_a": only_a,
        "first_review_right_only_in_b": only_b,
        "items": rows,
    }


def compare_summaries(
    a: Mapping[str, Any], b: Mapping[str, Any]
) -> list[dict[str, float | str | None]]:
    """Each metric of the two runs and the difference B − A."""
    ma, mb = _metrics(a), _metrics(b)
    out: list[dict[str, float | str | None]] = []
    for name in ma:
        va, vb = ma[name], mb[name]
        delta = None if va is None or vb is None else round(vb - va, 6)
        out.append({"metric": name, "a": va, "b": vb, "delta": delta})
    return out


def _fmt(name: str, v: float | str | None) -> str | float | None:
    if isinstance(v, float) and (
        name.startswith("share") or name in ("accuracy", "precision", "recall", "F1")
    ):
        return percent(v)
    return v


def _render(
    names: tuple[str, str],
    summaries: tuple[Mapping[str, Any], Mapping[str, Any]],
    rows: list[dict[str, float | str | None]],
    diff: Mapping[str, Any],
    page: HtmlReport,
    t: Callable[..., str],
) -> None:
    a, b = names
    page.paragraph(
        t(
            "Same labelled inputs, two results files. Differences per item list the items "
            "whose outcome differs, with the label."
        )
    )
    if any(s.get("simulated") for s in summaries):
        page.notice(
            t(
                "Answers in this run came from colmeia's simulated model: placeholder text, not "
                "a real model's. The figures show how the system behaves, not how good a model is."
            ),
            alert=True,
        )
    page.heading(t("Metrics side by side"))
    page.table(
        [t("metric"), a, b, f"{b} − {a}"],
        [
            [
                t(r["metric"]),
                _fmt(str(r["metric"]), r["a"]),
                _fmt(str(r["metric"]), r["b"]),
                r["delta"],
            ]
            for r in rows
        ],
    )
    by = {str(r["metric"]): r for r in rows}

    def series(metrics: Sequence[str]) -> dict[str, list[float | None]]:
        return {
            a: [_num(by[m]["a"]) for m in metrics],
            b: [_num(by[m]["b"]) for m in metrics],
        }

    quality = ["accuracy", "precision", "recall", "F1"]
    page.figure(
        "compare_first_review",
        grouped_bar_figure(
            [t(m) for m in quality],
            series(quality),
            title=t("First-review metrics"),
            limit=(0.0, 1.1),
        ),
    )
    shares = [_SHORT[o] for o in _OUTCOMES]
    page.figure(
        "compare_outcomes",
        grouped_bar_figure(
            [t(m) for m in shares], series(shares), title=t("Outcome shares"), limit=(0.0, 1.1)
        ),
    )
    page.heading(t("Outcomes of {a} (rows) and {b} (columns)", a=a, b=b))
    page.table(
        [t("{a} outcome \\ {b} outcome", a=a, b=b), *diff["outcomes"]],
        [[o, *row] for o, row in zip(diff["outcomes"], diff["matrix"], strict=True)],
    )
    page.figure(
        "compare_matrix",
        confusion_figure(
            diff["matrix"],
            [o.replace("_", " ").title() for o in diff["outcomes"]],
            title=t("Outcomes of {a} (rows) and {b} (columns)", a=a, b=b),
            xlabel=b,
            ylabel=a,
        ),
    )
    page.heading(t("Differences per item"))
    page.metrics(
        {
            t("items whose outcome differs"): diff["differing"],
            t("first review right in {a} only", a=a): diff["first_review_right_only_in_a"],
            t("first review right in {b} only", b=b): diff["first_review_right_only_in_b"],
        }
    )
    items = diff["items"]
    if not items:
        page.paragraph(t("No item differs."))
    else:
        if len(items) > _MAX_ROWS:
            page.paragraph(t("(first {n} of {total})", n=_MAX_ROWS, total=len(items)), note=True)
        page.table(
            [t("key"), t("question"), t("label"), a, b],
            [
                [
                    r["key"],
                    r["question"][:90],
                    "" if r["label"] is None else ("correct" if r["label"] else "incorrect"),
                    r["a"],
                    r["b"],
                ]
                for r in items[:_MAX_ROWS]
            ],
        )
    for name, summary in zip(names, summaries, strict=True):
        page.heading(f"{t('Run')} {name}", level=3)
        render_run(summary.get("run"), page, t)


def _num(v: float | str | None) -> float | None:
    return v if isinstance(v, int | float) else None


def compare_runs(
    a_path: Path,
    b_path: Path,
    gold_inputs: Sequence[str | Path],
    out_dir: Path,
    *,
    names: tuple[str, str] | None = None,
    options: ReportOptions | None = None,
) -> ReportFiles:
    """Write ``compare.html``, its PNGs and ``compare.json`` for runs A and B."""
    if a_path.resolve() == b_path.resolve():
        raise ConfigurationError(f"{a_path}: compare two different results files")
    options = options or ReportOptions()
    names = names or _default_names(a_path, b_path)
    results_a, gold = load_results_and_gold(a_path, gold_inputs)
    results_b, _ = load_results_and_gold(b_path, gold_inputs)
    summary_a = build_summary(results_a, gold, manifest=read_manifest(a_path), options=options)
    summary_b = build_summary(results_b, gold, manifest=read_manifest(b_path), options=options)
    rows = compare_summaries(summary_a, summary_b)
    diff = item_differences(results_a, results_b, gold)
    t = translator(options.language)
    page = HtmlReport(
        f"{t('Comparison of two moderation runs')} — {names[0]} / {names[1]}",
        lang=options.language,
    )
    _render(names, (summary_a, summary_b), rows, diff, page, t)
    html_path = page.write(out_dir, name="compare.html")
    data = {
        "names": list(names),
        "files": [str(a_path), str(b_path)],
        "metrics": rows,
        "differences": diff,
        "summaries": {names[0]: summary_a, names[1]: summary_b},
    }
    json_path = write_json(out_dir / "compare.json", data)
    images = sorted(out_dir.glob("compare_*.png"))
    return ReportFiles(html=html_path, summary=json_path, images=images)


def _default_names(a: Path, b: Path) -> tuple[str, str]:
    """The runs' models when the manifests say them, else the file names."""
    out = []
    for path in (a, b):
        manifest = read_manifest(path)
        models = (
            sorted({str(r.get("model")) for r in (manifest.settings.get("roles") or {}).values()})
            if manifest
            else []
        )
        out.append(f"{path.stem} ({', '.join(models)})" if models else path.stem)
    if out[0] == out[1]:
        out = [f"A: {out[0]}", f"B: {out[1]}"]
    return out[0], out[1]
