"""Two moderation runs side by side (e.g. two models), on the same labelled inputs.

A comparison is only fair on the same items. ``compare_runs(A, B, gold)`` therefore computes
every metric on the **shared items**: valid, labelled gold records that have a non-``ERROR``
result in both runs. It says how many items were left out and why (no result line in a run, an
``ERROR`` in a run, invalid input, no label) and shows each run's own evaluated count beside it,
so "accuracy 45 % vs 100 %" can never hide that one run evaluated a single item.

On the shared items it shows, per run and as B − A: first-review accuracy, precision, recall,
F1 of the flagged class, F1 of the keep class and their macro average, the TP/FP/FN/TN counts;
outcome shares; mean rewrites; withholding reasons; calls, tokens, cost and latency per item;
the paper's Table 4 (outcomes as shares of each label group), Table 5 (accuracy per segment:
locale, category, intent), Fig. 4 (score change of accepted rewrites) and McNemar's test on the
paired first-review verdicts. Then the items whose outcome differs and the A × B outcome
matrix. Output: ``compare.html``, PNGs and ``compare.json``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from colmeia.apps.moderation.io import LoadedRecord
from colmeia.apps.moderation.manifest import differences, read_manifest
from colmeia.apps.moderation.report import (
    WITHHOLD_REASONS,
    ReportFiles,
    ReportOptions,
    build_summary,
    label_groups,
    load_results_and_gold,
    render_run,
)
from colmeia.apps.moderation.report_text import translator
from colmeia.errors import ConfigurationError
from colmeia.eval.classification import ratio_or_none
from colmeia.eval.report import (
    HtmlReport,
    confusion_figure,
    grouped_bar_figure,
    percent,
    write_json,
)
from colmeia.eval.stats import mcnemar

__all__ = [
    "compare_runs",
    "compare_summaries",
    "item_differences",
    "label_groups",
    "run_metrics",
    "shared_items",
]

_OUTCOMES = ("KEEP_ORIGINAL", "ANSWER_REVISED", "DO_NOT_ANSWER", "ERROR")
_SHORT = {
    "KEEP_ORIGINAL": "share kept",
    "ANSWER_REVISED": "share revised",
    "DO_NOT_ANSWER": "share withheld",
    "ERROR": "share ERROR",
}
_RATES = ("accuracy", "precision", "recall", "F1 (flagged)", "F1 (keep)", "macro F1")
_MAX_ROWS = 200


def shared_items(
    runs: Sequence[Mapping[str, Mapping[str, Any]]],
    gold: Sequence[LoadedRecord],
    names: Sequence[str],
) -> tuple[list[str], list[dict[str, str]]]:
    """Keys every run evaluated (valid, labelled, a non-ERROR result in each run), and each
    left-out gold record with the first reason it was left out."""
    keys: list[str] = []
    left_out: list[dict[str, str]] = []
    for rec in gold:
        reason = None
        if rec.item is None:
            reason = "invalid input"
        elif rec.item.correct is None:
            reason = "no label (correct is missing)"
        else:
            for name, results in zip(names, runs, strict=True):
                res = results.get(rec.key)
                if res is None:
                    reason = f"no result line in {name}"
                    break
                if res.get("outcome") == "ERROR":
                    reason = f"ERROR in {name}"
                    break
        if reason is None:
            keys.append(rec.key)
        else:
            left_out.append({"key": rec.key, "reason": reason})
    return keys, left_out


def _f1_keep(counts: Mapping[str, int]) -> float | None:
    tn, fp, fn = counts.get("tn", 0), counts.get("fp", 0), counts.get("fn", 0)
    return ratio_or_none(2 * tn, 2 * tn + fp + fn)


def run_metrics(summary: Mapping[str, Any], own: Mapping[str, Any]) -> dict[str, float | None]:
    """Every metric of a run: ``summary`` over the items compared, ``own`` over all its items."""
    fr, cost = summary["first_review"], summary["cost"]
    counts = fr["counts"]
    f1_keep = _f1_keep(counts)
    runs = (own.get("run") or {}).get("runs") or []
    speeds = [r["items_per_min"] for r in runs if r.get("items_per_min")]
    macro = None if fr["f1"] is None or f1_keep is None else (fr["f1"] + f1_keep) / 2
    out: dict[str, float | None] = {
        "items evaluated in this run": own["items"]["evaluated"],
        "ERROR results in this run": own["outcomes"]["ERROR"]["n"],
        "shared items compared": fr["counts"]["n"],
        "accuracy": fr["accuracy"],
        "precision": fr["precision"],
        "recall": fr["recall"],
        "F1 (flagged)": fr["f1"],
        "F1 (keep)": None if f1_keep is None else round(f1_keep, 6),
        "macro F1": None if macro is None else round(macro, 6),
        "TP (flagged, label incorrect)": counts["tp"],
        "FP (flagged, label correct)": counts["fp"],
        "FN (kept, label incorrect)": counts["fn"],
        "TN (kept, label correct)": counts["tn"],
    }
    for o in _OUTCOMES[:3]:
        out[_SHORT[o]] = summary["outcomes"][o]["share"]
    out["mean rewrites of flagged items"] = summary["flagged"]["mean_rewrites"]
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
    shared: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Items whose outcome differs, the A × B outcome matrix over the valid gold records, and
    McNemar's test on the first-review verdicts of the ``shared`` items (all valid labelled
    items that both runs finished when not given)."""
    matrix = [[0] * len(_OUTCOMES) for _ in _OUTCOMES]
    rows = []
    only_a = only_b = 0
    in_shared = set(shared) if shared is not None else None
    for rec in gold:
        if rec.item is None:
            continue
        ra, rb = a.get(rec.key), b.get(rec.key)
        oa = str(ra.get("outcome")) if ra else "—"
        ob = str(rb.get("outcome")) if rb else "—"
        if oa in _OUTCOMES and ob in _OUTCOMES:
            matrix[_OUTCOMES.index(oa)][_OUTCOMES.index(ob)] += 1
        ca, cb = _correct(ra, rec.item.correct), _correct(rb, rec.item.correct)
        if in_shared is None or rec.key in in_shared:
            only_a += bool(ca and cb is False)
            only_b += bool(cb and ca is False)
        if oa != ob:
            rows.append(
                {
                    "key": rec.key,
                    "question": rec.item.question,
                    "label": None if rec.item.correct is None else rec.item.correct,
                    "feedback": rec.item.feedback,
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
        "mcnemar": mcnemar(only_a, only_b).as_dict(),
        "items": rows,
    }


def compare_summaries(
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    own: tuple[Mapping[str, Any], Mapping[str, Any]] | None = None,
) -> list[dict[str, float | str | None]]:
    """Each metric of the two runs and the difference B − A (``own``: each run's summary over
    all its items, for the per-run counts; the shared summaries when not given)."""
    own_a, own_b = own or (a, b)
    ma, mb = run_metrics(a, own_a), run_metrics(b, own_b)
    out: list[dict[str, float | str | None]] = []
    for name in ma:
        va, vb = ma[name], mb[name]
        delta = None if va is None or vb is None else round(vb - va, 6)
        out.append({"metric": name, "a": va, "b": vb, "delta": delta})
    return out


def _segments(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The paper's Table 5: first-review accuracy per segment, both runs, on the shared items."""
    out: dict[str, list[dict[str, Any]]] = {}
    for segment in ("locale", "category", "intent"):
        rows_a = {r["group"]: r for r in a["accuracy_by"][segment]}
        rows_b = {r["group"]: r for r in b["accuracy_by"][segment]}
        out[segment] = [
            {
                "group": g,
                "n": (rows_a.get(g) or rows_b.get(g) or {}).get("n"),
                "a": (rows_a.get(g) or {}).get("accuracy"),
                "b": (rows_b.get(g) or {}).get("accuracy"),
            }
            for g in dict.fromkeys([*rows_a, *rows_b])
        ]
    return out


def _fmt(name: str, v: float | str | None) -> str | float | None:
    if isinstance(v, float) and (name.startswith("share") or name in _RATES):
        return percent(v)
    return v


def _render(
    names: tuple[str, str],
    data: Mapping[str, Any],
    page: HtmlReport,
    t: Callable[..., str],
) -> None:
    a, b = names
    summaries = data["summaries"]
    shared, left_out = data["shared"], data["left_out"]
    page.paragraph(
        t(
            "Same labelled inputs, two results files. Every metric is computed on the items "
            "both runs evaluated (the shared items); differences per item list the items whose "
            "outcome differs, with the label."
        )
    )
    page.heading(t("What differs between the runs"))
    changed = data.get("settings_differences")
    if changed is None:
        page.paragraph(
            t("A run has no manifest: which settings, templates and policy it used is unknown."),
            note=True,
        )
    elif not changed:
        page.paragraph(t("Same settings, templates and policy."))
    else:
        page.table([t("setting")], [[c] for c in changed])
    if any(s.get("simulated") for s in summaries.values()):
        page.notice(
            t(
                "Answers in this run came from colmeia's simulated model: placeholder text, not "
                "a real model's. The figures show how the system behaves, not how good a model is."
            ),
            alert=True,
        )
    page.heading(t("Items compared"))
    page.metrics(
        {
            t("gold records"): data["gold_records"],
            t("shared items (evaluated in both runs)"): shared["n"],
            t("left out"): left_out["n"],
            **{
                t("items evaluated in {run}", run=name): n
                for name, n in zip(names, data["evaluated"], strict=True)
            },
        }
    )
    if left_out["n"]:
        page.notice(
            t(
                "{n} items were left out of every metric: {reasons}.",
                n=left_out["n"],
                reasons="; ".join(f"{k}: {v}" for k, v in left_out["by_reason"].items()),
            ),
            alert=True,
        )
    rows = data["metrics"]
    page.heading(t("Metrics side by side"))
    page.table(
        [t("metric"), a, b, f"{b} − {a}"],
        [
            [
                t(str(r["metric"])),
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

    page.figure(
        "compare_first_review",
        grouped_bar_figure(
            [t(m) for m in _RATES],
            series(list(_RATES)),
            title=t("First-review metrics"),
            limit=(0.0, 1.1),
        ),
    )
    shares = [_SHORT[o] for o in _OUTCOMES[:3]]
    page.figure(
        "compare_outcomes",
        grouped_bar_figure(
            [t(m) for m in shares], series(shares), title=t("Outcome shares"), limit=(0.0, 1.1)
        ),
    )
    mc = data["differences"]["mcnemar"]
    page.heading(t("Significance of the difference (McNemar)"))
    page.metrics(
        {
            t("first review right in {a} only", a=a): mc["b"],
            t("first review right in {b} only", b=b): mc["c"],
            t("p-value"): "–" if mc["p_value"] is None else mc["p_value"],
            t("test"): t(str(mc["method"])),
        }
    )
    page.paragraph(
        t(
            "On the shared items, only the items one run's first review got right and the "
            "other's wrong count; a p-value below 0.05 means a difference this large is "
            "unlikely if the two runs were equally accurate."
        ),
        note=True,
    )

    page.heading(t("Outcomes by label group (Table 4)"))
    table4 = []
    for name in names:
        for group, row in data["label_groups"][name].items():
            table4.append(
                [
                    name,
                    t(group),
                    row["n"],
                    *(
                        f"{row[o]['n']} ({percent(row[o]['share'])})"
                        if row[o]["share"] is not None
                        else "0"
                        for o in _OUTCOMES[:3]
                    ),
                ]
            )
    page.table([t("run"), t("label group"), "n", *_OUTCOMES[:3]], table4)

    page.heading(t("Accuracy by segment (Table 5)"))
    for segment, seg_rows in data["segments"].items():
        page.heading(t(segment), level=3)
        page.table(
            [t(segment), "n", a, b, f"{b} − {a}"],
            [
                [
                    r["group"],
                    r["n"],
                    percent(r["a"]) if r["a"] is not None else "–",
                    percent(r["b"]) if r["b"] is not None else "–",
                    None if r["a"] is None or r["b"] is None else round(r["b"] - r["a"], 4),
                ]
                for r in seg_rows
            ],
        )

    page.heading(t("Score change of accepted rewrites (Fig. 4)"))
    changes = {name: summaries[name]["score_change_accepted"] for name in names}
    values = sorted({v for c in changes.values() for v in c["values"]})
    if values:
        page.figure(
            "compare_score_change",
            grouped_bar_figure(
                [f"{v:+d}" for v in values],
                {
                    name: [float(c["values"].count(v)) for v in values]
                    for name, c in changes.items()
                },
                title=t("Score change (final − original, out of 10) of accepted rewrites"),
                ylabel=t("items"),
                integer_values=True,
                value_format="{:.0f}",
            ),
        )
    page.table(
        [t("run"), t("accepted rewrites"), t("mean change"), t("improved"), t("unchanged"),
         t("worse")],
        [
            [
                name,
                c["n"],
                c["mean"],
                c["improved"]["n"],
                c["unchanged"]["n"],
                c["worse"]["n"],
            ]
            for name, c in changes.items()
        ],
    )  # fmt: skip

    diff = data["differences"]
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
    page.metrics({t("items whose outcome differs"): diff["differing"]})
    items = diff["items"]
    if not items:
        page.paragraph(t("No item differs."))
    else:
        if len(items) > _MAX_ROWS:
            page.paragraph(t("(first {n} of {total})", n=_MAX_ROWS, total=len(items)), note=True)
        page.table(
            [t("key"), t("question"), t("label"), t("merchant feedback"), a, b],
            [
                [
                    r["key"],
                    r["question"][:90],
                    "" if r["label"] is None else ("correct" if r["label"] else "incorrect"),
                    (r["feedback"] or "")[:90],
                    r["a"],
                    r["b"],
                ]
                for r in items[:_MAX_ROWS]
            ],
        )
    for name in names:
        page.heading(f"{t('Run')} {name}", level=3)
        render_run(data["own"][name].get("run"), page, t)


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
    manifests = (read_manifest(a_path), read_manifest(b_path))
    keys, left_out = shared_items((results_a, results_b), gold, names)
    in_shared = set(keys)
    shared_gold = [r for r in gold if r.key in in_shared]
    own, shared = {}, {}
    for name, results, manifest in zip(names, (results_a, results_b), manifests, strict=True):
        own[name] = build_summary(results, gold, manifest=manifest, options=options)
        only = {k: v for k, v in results.items() if k in in_shared}
        shared[name] = build_summary(only, shared_gold, manifest=manifest, options=options)
    sa, sb = shared[names[0]], shared[names[1]]
    data: dict[str, Any] = {
        "names": list(names),
        "files": [str(a_path), str(b_path)],
        "gold_records": len(gold),
        "evaluated": [own[n]["items"]["evaluated"] for n in names],
        "shared": {"n": len(keys)},
        "left_out": {
            "n": len(left_out),
            "by_reason": dict(Counter(r["reason"] for r in left_out)),
            "items": left_out[:500],
        },
        "metrics": compare_summaries(sa, sb, (own[names[0]], own[names[1]])),
        "label_groups": {
            name: label_groups({k: r for k, r in res.items() if k in in_shared}, shared_gold)
            for name, res in zip(names, (results_a, results_b), strict=True)
        },
        "segments": _segments(sa, sb),
        "differences": item_differences(results_a, results_b, gold, keys),
        # What was changed between the runs: settings, templates, policy (None: a run has no
        # manifest, so nothing can be said).
        "settings_differences": (
            differences(manifests[0].settings, manifests[1].settings)
            if manifests[0] is not None and manifests[1] is not None
            else None
        ),
        "summaries": shared,
        "own": own,
    }
    t = translator(options.language)
    page = HtmlReport(
        f"{t('Comparison of two moderation runs')} — {names[0]} / {names[1]}",
        lang=options.language,
    )
    _render(names, data, page, t)
    html_path = page.write(out_dir, name="compare.html")
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
