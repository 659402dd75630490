"""The moderation evaluation report: results file + labelled inputs → summary, HTML and PNGs.

What it measures (labels are the records' ``correct`` field), in the report's order:

* the run: colmeia version, models and endpoints per role, threshold, cap, policy, prompt
  hashes, each run's status and throughput (from the run manifest), and notices when the answers
  came from the simulated model, the file mixes settings, or the run did not finish;
* outcomes, with shares;
* the first review as a classifier — kept vs flagged — against the labels, with "flagged" as
  the positive class: confusion matrix with row shares, accuracy/precision/recall/F1 ("n/a"
  when undefined, never a 0 nobody measured);
* flagged items: accepted / withheld / error × whether the label agreed that the original was
  wrong, with shares and the mean number of rewrites of accepted and of withheld items;
* why answers were withheld (rewriter could not / decider withheld / cap reached / cap reached
  on a rewrite that breaks the policy) and what the policy checks found;
* accuracy per locale and for the top-N intents and categories, Portuguese and Spanish labels
  of one group merged (:mod:`~colmeia.apps.moderation.labels`), n shown, small groups folded
  into "other";
* score change of accepted rewrites with % improved / unchanged / worse;
* agreement of human verdicts (:mod:`~colmeia.apps.moderation.review`) with the system;
* latency per role and items per minute; tokens and cost per role (per-role prices), per item
  over the moderated items only — invalid input records do not dilute them;
* items not evaluated and why.

The report is written in English or Brazilian Portuguese (``language="pt-BR"``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from colmeia.apps.moderation.io import LoadedRecord, iter_files, load_records
from colmeia.apps.moderation.labels import LabelKind, LabelMap
from colmeia.apps.moderation.manifest import Manifest, read_manifest
from colmeia.apps.moderation.report_text import REPORT_LANGUAGES, translator
from colmeia.apps.moderation.results import read_results, sniff
from colmeia.apps.moderation.review import (
    VerdictLog,
    VerdictRecord,
    agreement,
    review_items,
    verdicts_path,
)
from colmeia.errors import ConfigurationError, InputError
from colmeia.eval.classification import (
    binary_metrics,
    change_shares,
    confusion_matrix,
    fold_groups,
    grouped_accuracy,
    ratio_or_none,
)
from colmeia.eval.report import (
    HtmlReport,
    bar_figure,
    confusion_figure,
    grouped_bar_figure,
    histogram_figure,
    percent,
    stacked_bar_figure,
    write_json,
)
from colmeia.eval.stats import describe

__all__ = [
    "ReportFiles",
    "ReportOptions",
    "build_summary",
    "check_report_inputs",
    "load_results_and_gold",
    "render_summary",
    "write_report",
]

_LABELS = ("keep", "flag")
_OUTCOMES = ("KEEP_ORIGINAL", "ANSWER_REVISED", "DO_NOT_ANSWER", "ERROR")
_AGREES, _DISAGREES = "agrees", "disagrees"
WITHHOLD_REASONS = {
    "rewriter_could_not": "the rewriter could not answer from the context",
    "decider_withheld": "the decider withheld the answer",
    "cap_reached": "the rewrite cap was reached",
    "policy": "the cap was reached with a rewrite that breaks the policy",
}
_MODEL_ROLES = ("semantic", "contextual", "suggester", "rewriter", "decider")


@dataclass(frozen=True, slots=True)
class ReportFiles:
    """Where the report went."""

    html: Path
    summary: Path
    images: list[Path]


@dataclass(slots=True)
class ReportOptions:
    """How to build the report.

    ``prices``: role → (USD per 1M prompt tokens, per 1M completion tokens) to price the tokens
    with; ``None`` uses the cost recorded at run time.
    """

    language: str = "en"
    top: int = 8
    min_group: int = 5
    labels: LabelMap = field(default_factory=LabelMap.load)
    prices: dict[str, tuple[float, float]] | None = None

    def __post_init__(self) -> None:
        if self.language not in REPORT_LANGUAGES:
            raise ConfigurationError(
                f"report language must be one of {', '.join(REPORT_LANGUAGES)}, not "
                f"{self.language!r}"
            )
        if self.top < 1 or self.min_group < 1:
            raise ConfigurationError("--top and --min-group must be at least 1")


def _score_sum(s: Mapping[str, Any] | None) -> int | None:
    if not s:
        return None
    return int(s.get("semantic", 0)) + int(s.get("contextual", 0))


def withhold_reason(result: Mapping[str, Any]) -> str:
    """The reason code of a DO_NOT_ANSWER line (inferred from the text for older lines)."""
    code = result.get("reason_code")
    if code in WITHHOLD_REASONS:
        return str(code)
    reason = str(result.get("reason") or "")
    if reason.startswith("rewriter cannot rewrite"):
        return "rewriter_could_not"
    if reason.startswith("rewrite cap reached"):
        return "cap_reached"
    return "decider_withheld"


def _is_invalid_input(result: Mapping[str, Any]) -> bool:
    return result.get("error_kind") == "input" or (
        result.get("outcome") == "ERROR" and not result.get("trail")
    )


def _share_table(counts: Mapping[str, int]) -> dict[str, dict[str, float | int | None]]:
    total = sum(counts.values())
    return {k: {"n": n, "share": ratio_or_none(n, total)} for k, n in counts.items()}


def _policy_label(policy: Mapping[str, Any], t: Callable[..., str]) -> str:
    if policy.get("source") == "none":
        return t("none: pure-model review, no rule checked")
    if policy.get("source"):
        return f"{policy.get('source')} (sha256 {str(policy.get('sha256'))[:12]})"
    return t("built-in default (no policy file)")


def _prompts_label(prompts: Mapping[str, Any] | None, t: Callable[..., str]) -> str:
    if not prompts:
        return t("packaged templates only")
    names = ", ".join(prompts.get("overrides") or [])
    return f"{prompts.get('dir')} (sha256 {str(prompts.get('sha256'))[:12]}): {names}"


def _run_info(manifest: Manifest | None) -> dict[str, Any] | None:
    if manifest is None:
        return None
    s = manifest.settings
    policy = s.get("policy") or {}
    return {
        "colmeia_version": manifest.runs[0].colmeia_version if manifest.runs else "",
        "created_at": manifest.created_at,
        "updated_at": manifest.updated_at,
        "threshold": s.get("threshold"),
        "max_rewrites": s.get("max_rewrites"),
        "audit_language": s.get("audit_language"),
        "policy": {
            "source": policy.get("source"),
            "sha256": policy.get("sha256"),
            "label": policy.get("label"),
            "checks": policy.get("checks"),
        },
        "roles": s.get("roles", {}),
        "prompts_dir": s.get("prompts_dir"),
        "prompts": {k: str(v)[:12] for k, v in (s.get("prompts") or {}).items()},
        "mixed": manifest.mixed,
        "simulated": manifest.simulated,
        "runs": [
            {
                "index": r.index,
                "started_at": r.started_at,
                "ended_at": r.ended_at,
                "status": r.status,
                "written": r.written,
                "wall_s": r.wall_s,
                "items_per_min": r.items_per_min,
                "simulated_answers": r.simulated_answers,
                "mixed": r.mixed,
                "differences": r.differences,
                "stop_reason": r.stop_reason,
            }
            for r in manifest.runs
        ],
    }


def label_groups(
    results: Mapping[str, Mapping[str, Any]], gold: Sequence[LoadedRecord]
) -> dict[str, dict[str, Any]]:
    """The paper's Table 4: for the items labelled correct and those labelled incorrect, how
    many ended in each outcome, as counts and as shares of the label group (ERROR results and
    unlabelled items are not in either group)."""
    out: dict[str, dict[str, Any]] = {}
    for label, name in ((True, "label correct"), (False, "label incorrect")):
        outcomes = Counter(
            str(results[r.key]["outcome"])
            for r in gold
            if r.item is not None
            and r.item.correct is label
            and r.key in results
            and results[r.key].get("outcome") != "ERROR"
        )
        n = sum(outcomes.values())
        out[name] = {
            "n": n,
            **{
                o: {"n": outcomes.get(o, 0), "share": ratio_or_none(outcomes.get(o, 0), n)}
                for o in _OUTCOMES[:3]
            },
        }
    return out


def _feedback_rows(
    results: Mapping[str, Mapping[str, Any]], gold: Sequence[LoadedRecord], limit: int = 100
) -> list[dict[str, Any]]:
    """Items whose record carries the merchant's feedback, with the original and the outcome."""
    rows = []
    for rec in gold:
        res = results.get(rec.key)
        if rec.item is None or not rec.item.feedback or res is None:
            continue
        rows.append(
            {
                "key": rec.key,
                "question": rec.item.question,
                "original": rec.item.answer,
                "feedback": rec.item.feedback,
                "outcome": res.get("outcome"),
                "final_answer": res.get("final_answer"),
            }
        )
    return rows[:limit]


def build_summary(
    results: Mapping[str, Mapping[str, Any]],
    gold: Sequence[LoadedRecord],
    *,
    manifest: Manifest | None = None,
    verdicts: Mapping[str, VerdictRecord] | None = None,
    options: ReportOptions | None = None,
) -> dict[str, Any]:
    """Every figure of the report, as plain JSON-able data."""
    options = options or ReportOptions()
    labels = options.labels
    gold_by_key = {r.key: r for r in gold}
    not_evaluated: list[dict[str, str]] = []
    y_true: list[str] = []
    y_pred: list[str] = []
    groups: dict[str, list[str]] = {"locale": [], "intent": [], "category": []}
    flagged: Counter[tuple[str, str]] = Counter()
    rewrites_by_outcome: dict[str, list[int]] = defaultdict(list)
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
        groups["locale"].append((rec.item.locale or "(none)").casefold())
        groups["intent"].append(
            labels.group("intent", rec.item.intent.name) if rec.item.intent else "(none)"
        )
        groups["category"].append(
            labels.group("category", rec.item.category) if rec.item.category else "(none)"
        )
        if pred == "flag":
            flagged[(str(res["outcome"]), _AGREES if truth == "flag" else _DISAGREES)] += 1
            rewrites_by_outcome[str(res["outcome"])].append(int(res.get("revisions", 0)))
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
    rates = bm.rates()
    reasons = Counter(
        r["reason"].split(":", 1)[0]
        if r["reason"].startswith(("ERROR", "invalid"))
        else r["reason"]
        for r in not_evaluated
    )
    n_flagged = sum(flagged.values())
    flagged_rows = {}
    for outcome in ("ANSWER_REVISED", "DO_NOT_ANSWER", "ERROR"):
        agrees, disagrees = flagged[(outcome, _AGREES)], flagged[(outcome, _DISAGREES)]
        revs = rewrites_by_outcome.get(outcome, [])
        flagged_rows[outcome] = {
            "agrees": agrees,
            "disagrees": disagrees,
            "total": agrees + disagrees,
            "share_of_flagged": ratio_or_none(agrees + disagrees, n_flagged),
            "share_agrees": ratio_or_none(agrees, agrees + disagrees),
            "mean_rewrites": describe([float(x) for x in revs])["mean"],
        }
    all_revs = [float(x) for v in rewrites_by_outcome.values() for x in v]

    withheld = Counter(
        withhold_reason(r) for r in results.values() if r.get("outcome") == "DO_NOT_ANSWER"
    )
    shares = change_shares(score_change)

    return {
        "language": options.language,
        "run": _run_info(manifest),
        "simulated": bool(manifest and manifest.simulated)
        or any(step.get("simulated") for r in results.values() for step in r.get("trail") or []),
        "items": {
            "results": len(results),
            "gold_records": len(gold),
            "evaluated": len(y_true),
            "not_evaluated": len(not_evaluated),
            "missing": sum(1 for r in gold if r.key not in results),
        },
        "outcomes": _share_table(
            {o: sum(1 for r in results.values() if r.get("outcome") == o) for o in _OUTCOMES}
        ),
        "first_review": {
            "positive_class": "flag (the original should not go out as is)",
            **{k: None if v is None else round(v, 6) for k, v in rates.items()},
            "labels": list(_LABELS),
            "confusion_matrix": confusion_matrix(y_true, y_pred, _LABELS),
            "counts": {k: v for k, v in bm.as_dict().items() if k in ("n", "tp", "fp", "fn", "tn")},
        },
        "flagged": {
            "total": n_flagged,
            "by_outcome": flagged_rows,
            "mean_rewrites": describe(all_revs)["mean"],
        },
        "label_groups": label_groups(results, gold),
        "feedback": _feedback_rows(results, gold),
        "withheld_reasons": _share_table({k: withheld.get(k, 0) for k in WITHHOLD_REASONS}),
        "policy": _policy_summary(results),
        "accuracy_by": {
            name: _group_rows(name, values, y_true, y_pred, options)
            for name, values in groups.items()
        },
        "label_mapping": labels.as_dict(),
        "score_change_accepted": {
            "values": score_change,
            **describe([float(v) for v in score_change]),
            "improved": {"n": shares.improved, "share": shares.shares()["improved"]},
            "unchanged": {"n": shares.unchanged, "share": shares.shares()["unchanged"]},
            "worse": {"n": shares.worse, "share": shares.shares()["worse"]},
        },
        "review": None if verdicts is None else agreement(review_items(results), verdicts),
        "latency": _latency(results, manifest),
        "cost": _cost(results, options.prices),
        "not_evaluated": {"by_reason": dict(reasons), "items": not_evaluated[:500]},
    }


def _group_rows(
    name: str,
    values: list[str],
    y_true: list[str],
    y_pred: list[str],
    options: ReportOptions,
) -> list[dict[str, Any]]:
    rows = grouped_accuracy(values, y_true, y_pred)
    t = translator(options.language)
    if name == "locale":
        folded = fold_groups(rows, top=max(options.top, len(rows)), other=t("other"))
    else:
        folded = fold_groups(rows, top=options.top, min_n=options.min_group, other=t("other"))
    out = []
    for g in folded:
        if name in ("intent", "category") and g.group != t("other") and g.group != "(none)":
            shown = options.labels.name(_kind(name), str(g.group))
        else:
            shown = str(g.group)
        out.append({"group": shown, "n": g.n, "accuracy": round(g.accuracy, 4)})
    return out


def _kind(name: str) -> LabelKind:
    return "intent" if name == "intent" else "category"


def _policy_summary(results: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    by_rule: dict[str, Counter[str]] = defaultdict(Counter)
    originals = blocked = 0
    for r in results.values():
        found = (r.get("policy") or {}).get("violations") or []
        if any(v.get("checked") == "original" for v in found):
            originals += 1
        blocked += len({v.get("round") for v in found if v.get("checked") != "original"})
        for v in found:
            kind = "original" if v.get("checked") == "original" else "rewrite"
            by_rule[str(v.get("rule"))][kind] += 1
    return {
        "originals_with_violations": originals,
        "rewrites_blocked": blocked,
        "by_rule": {
            rule: {"original": c["original"], "rewrite": c["rewrite"]}
            for rule, c in sorted(by_rule.items())
        },
    }


def _model_steps(results: Mapping[str, Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [
        step
        for r in results.values()
        for step in r.get("trail") or []
        if step.get("role") in _MODEL_ROLES
    ]


def _latency(results: Mapping[str, Mapping[str, Any]], manifest: Manifest | None) -> dict[str, Any]:
    per_role: dict[str, list[float]] = defaultdict(list)
    for step in _model_steps(results):
        per_role[str(step["role"])].append(float(step.get("latency_s") or 0.0))
    return {
        "by_role": {role: describe(per_role[role]) for role in _MODEL_ROLES if per_role.get(role)},
        "per_call": describe([v for vs in per_role.values() for v in vs]),
        "throughput": [
            {
                "run": r.index,
                "written": r.written,
                "wall_s": r.wall_s,
                "items_per_min": r.items_per_min,
            }
            for r in (manifest.runs if manifest else [])
        ],
    }


def _cost(
    results: Mapping[str, Mapping[str, Any]], prices: Mapping[str, tuple[float, float]] | None
) -> dict[str, Any]:
    # Invalid input records cost nothing and were not moderated: counting them as items would
    # lower every per-item figure.
    moderated = [r for r in results.values() if not _is_invalid_input(r)]
    n = len(moderated)
    fields = ("calls", "retries", "repairs", "prompt_tokens", "completion_tokens", "cost")
    by_role: dict[str, dict[str, float]] = {}
    per_item: dict[str, list[float]] = {
        k: [] for k in ("calls", "prompt_tokens", "completion_tokens", "cost")
    }
    for r in moderated:
        item = dict.fromkeys(fields, 0.0)
        for step in r.get("trail") or []:
            role = str(step.get("role"))
            if role not in _MODEL_ROLES:
                continue
            pt, ct = int(step.get("prompt_tokens") or 0), int(step.get("completion_tokens") or 0)
            if prices is not None and role in prices:
                cost = (pt * prices[role][0] + ct * prices[role][1]) / 1_000_000
            else:
                cost = float(step.get("cost") or 0.0)
            values = {
                "calls": 1,
                "retries": int(step.get("retries") or 0),
                "repairs": int(step.get("repairs") or 0),
                "prompt_tokens": pt,
                "completion_tokens": ct,
                "cost": cost,
            }
            acc = by_role.setdefault(role, dict.fromkeys(fields, 0.0))
            for k, v in values.items():
                acc[k] += v
                item[k] += v
        for k in per_item:
            per_item[k].append(item[k])
    return {
        "moderated_items": n,
        "invalid_inputs": len(results) - n,
        "priced_with": "config" if prices is not None else "run",
        "per_item": {k: describe(v, digits=8 if k == "cost" else 2) for k, v in per_item.items()},
        "by_role": {
            role: {
                "calls": int(c["calls"]),
                "retries": int(c["retries"]),
                "repairs": int(c["repairs"]),
                "prompt_tokens": int(c["prompt_tokens"]),
                "completion_tokens": int(c["completion_tokens"]),
                "prompt_tokens_per_item": round(c["prompt_tokens"] / n, 2) if n else None,
                "completion_tokens_per_item": round(c["completion_tokens"] / n, 2) if n else None,
                "cost": round(c["cost"], 8),
                "cost_per_item": round(c["cost"] / n, 10) if n else None,
            }
            for role in _MODEL_ROLES
            if (c := by_role.get(role))
        },
        "total_cost": round(sum(per_item["cost"]), 8),
    }


# ---------------------------------------------------------------------------------- rendering


def _cell(n: int, share: float | None) -> str:
    return f"{n} ({percent(share)})"


def render_run(run: Mapping[str, Any] | None, page: HtmlReport, t: Callable[..., str]) -> None:
    """The run section: settings, models per role, and each run's status and throughput."""
    page.heading(t("Run"))
    if run is None:
        page.notice(
            t(
                "No run manifest was found beside the results: models, prompts and settings are "
                "unknown."
            )
        )
        return
    policy = run["policy"] or {}
    page.table(
        [t("setting"), t("value")],
        [
            [t("colmeia version"), run["colmeia_version"]],
            [t("started"), run["created_at"]],
            [t("ended"), run["runs"][-1]["ended_at"] if run["runs"] else ""],
            [t("threshold"), run["threshold"]],
            [t("rewrite cap"), run["max_rewrites"]],
            [t("audit language"), run["audit_language"]],
            [t("policy"), _policy_label(policy, t)],
            [
                t("policy checks"),
                ", ".join(policy["checks"]) if policy.get("checks") else t("none"),
            ]
            if policy.get("checks") is not None
            else [t("policy checks"), t("not recorded")],
            [
                t("prompt templates"),
                ", ".join(f"{k} {v}" for k, v in run["prompts"].items()),
            ],
            [t("prompts folder"), _prompts_label(run.get("prompts_dir"), t)],
        ],
    )
    page.table(
        [t("role"), t("model"), t("endpoint"), t("temperature"), t("price in / out per 1M tokens")],
        [
            [
                role,
                cfg.get("model"),
                cfg.get("base_url"),
                "" if cfg.get("temperature") is None else cfg.get("temperature"),
                f"{cfg.get('price_input_per_mtok', 0):g} / {cfg.get('price_output_per_mtok', 0):g}",
            ]
            for role, cfg in run["roles"].items()
        ],
    )
    page.table(
        [
            t("run"),
            t("started"),
            t("ended"),
            t("status"),
            t("written"),
            t("items/min"),
            t("simulated answers"),
        ],
        [
            [
                r["index"],
                r["started_at"],
                r["ended_at"] or "",
                r["status"] + (" (mixed)" if r["mixed"] else ""),
                r["written"],
                r["items_per_min"],
                r["simulated_answers"],
            ]
            for r in run["runs"]
        ],
    )


def _notices(summary: Mapping[str, Any], page: HtmlReport, t: Callable[..., str]) -> None:
    run = summary.get("run")
    if summary.get("simulated"):
        page.notice(
            t(
                "Answers in this run came from colmeia's simulated model: placeholder text, not a "
                "real model's. The figures show how the system behaves, not how good a model is."
            ),
            alert=True,
        )
    if run and run["mixed"]:
        details = "; ".join(d for r in run["runs"] for d in r["differences"])
        page.notice(
            t(
                "This results file mixes runs made with different settings (--allow-mixed): "
                "{details}.",
                details=details,
            ),
            alert=True,
        )
    missing = summary["items"].get("missing", 0)
    last = run["runs"][-1] if run and run["runs"] else None
    if missing and last and last["status"] not in ("complete", "complete_with_errors"):
        page.notice(
            t(
                "The last run did not finish ({status}): {missing} records have no result line.",
                status=last["status"]
                + (f" — {last['stop_reason']}" if last["stop_reason"] else ""),
                missing=missing,
            ),
            alert=True,
        )


def _render(summary: Mapping[str, Any], page: HtmlReport) -> None:
    t = translator(summary["language"])
    items, fr = summary["items"], summary["first_review"]
    _notices(summary, page, t)
    page.paragraph(
        t(
            "{results} result lines, {gold} labelled input records, {evaluated} evaluated, "
            "{not_evaluated} not evaluated.",
            results=items["results"],
            gold=items["gold_records"],
            evaluated=items["evaluated"],
            not_evaluated=items["not_evaluated"],
        )
    )
    render_run(summary.get("run"), page, t)

    page.heading(t("Outcomes"))
    outcomes = summary["outcomes"]
    page.table(
        [t("outcome"), t("items"), t("share")],
        [[o, v["n"], percent(v["share"])] for o, v in outcomes.items()],
    )
    page.figure(
        "outcomes",
        bar_figure(
            list(outcomes),
            [float(v["n"]) for v in outcomes.values()],
            title=t("Outcomes"),
            xlabel=t("items"),
            annotations=[f"{v['n']} ({percent(v['share'])})" for v in outcomes.values()],
            integer_values=True,
        ),
        t("How every item ended."),
    )

    page.heading(t("First review vs labels"))
    page.paragraph(
        t(
            "Kept = semantic + contextual above the threshold on the original answer (and no "
            "policy violation); flagged = everything else. Positive class: flagged (the label "
            "says the answer is incorrect). n/a: nothing to measure."
        )
    )
    page.metrics(
        {
            t("accuracy"): fr["accuracy"],
            t("precision"): fr["precision"],
            t("recall"): fr["recall"],
            t("F1"): fr["f1"],
        }
    )
    m = fr["confusion_matrix"]
    rows_ = []
    for name, row in zip(
        (t("keep (label: correct)"), t("flag (label: incorrect)")), m, strict=True
    ):
        total = sum(row)
        rows_.append([name, *(_cell(v, ratio_or_none(v, total)) for v in row)])
    page.table([t("label \\ first review"), t("keep"), t("flag")], rows_)
    page.figure(
        "confusion",
        confusion_figure(
            m,
            [t("keep"), t("flag")],
            title=t("First review"),
            xlabel=t("predicted"),
            ylabel=t("label"),
        ),
        t("Rows: label; columns: first review; each cell with its share of the row."),
    )

    fl = summary["flagged"]
    page.heading(t("What happened to flagged items"))
    page.paragraph(
        t(
            "Items the first review flagged, by how they ended and whether the label agreed that "
            "the original answer was incorrect."
        )
    )
    names = {
        "ANSWER_REVISED": t("accepted (ANSWER_REVISED)"),
        "DO_NOT_ANSWER": t("withheld (DO_NOT_ANSWER)"),
        "ERROR": t("error (ERROR)"),
    }
    page.table(
        [
            t("outcome"),
            t("label agrees (incorrect)"),
            t("label disagrees (correct)"),
            t("total"),
            t("% of flagged"),
            t("mean rewrites"),
        ],
        [
            [
                names[o],
                _cell(r["agrees"], r["share_agrees"]),
                _cell(r["disagrees"], ratio_or_none(r["disagrees"], r["total"])),
                r["total"],
                percent(r["share_of_flagged"]),
                r["mean_rewrites"],
            ]
            for o, r in fl["by_outcome"].items()
            if o != "ERROR" or r["total"]
        ],
    )
    page.metrics(
        {
            t("flagged items"): fl["total"],
            t("mean rewrites of flagged items"): fl["mean_rewrites"],
            t("mean rewrites of accepted items"): fl["by_outcome"]["ANSWER_REVISED"][
                "mean_rewrites"
            ],
            t("mean rewrites of withheld items"): fl["by_outcome"]["DO_NOT_ANSWER"][
                "mean_rewrites"
            ],
        }
    )
    shown = [o for o in ("ANSWER_REVISED", "DO_NOT_ANSWER") if fl["by_outcome"][o]["total"]]
    if shown:
        page.figure(
            "flagged",
            stacked_bar_figure(
                [names[o] for o in shown],
                {
                    t("label agrees (incorrect)"): [
                        float(fl["by_outcome"][o]["agrees"]) for o in shown
                    ],
                    t("label disagrees (correct)"): [
                        float(fl["by_outcome"][o]["disagrees"]) for o in shown
                    ],
                },
                title=t("Flagged items"),
                xlabel=t("items"),
            ),
        )

    _render_label_groups(summary, page, t)
    _render_withheld(summary, page, t)
    _render_policy(summary, page, t)
    _render_feedback(summary, page, t)
    _render_groups(summary, page, t)
    _render_score_change(summary, page, t)
    _render_review(summary, page, t)
    render_latency(summary, page, t)
    render_cost(summary, page, t)

    ne = summary["not_evaluated"]
    page.heading(t("Not evaluated"))
    if ne["by_reason"]:
        by_reason: dict[str, int] = ne["by_reason"]
        ranked = sorted(by_reason.items(), key=lambda kv: -kv[1])
        page.table([t("reason"), t("items")], [[t(k), v] for k, v in ranked])
        page.table([t("key"), t("reason")], [[r["key"], r["reason"]] for r in ne["items"][:50]])
    else:
        page.paragraph(t("Every item was evaluated."))


def _render_label_groups(
    summary: Mapping[str, Any], page: HtmlReport, t: Callable[..., str]
) -> None:
    page.heading(t("Outcomes by label group (Table 4)"))
    rows = []
    for group, row in summary["label_groups"].items():
        rows.append(
            [
                t(group),
                row["n"],
                *(
                    f"{row[o]['n']} ({percent(row[o]['share'])})" if row["n"] else "0"
                    for o in _OUTCOMES[:3]
                ),
            ]
        )
    page.table([t("label group"), "n", *_OUTCOMES[:3]], rows)


def _render_feedback(summary: Mapping[str, Any], page: HtmlReport, t: Callable[..., str]) -> None:
    rows = summary["feedback"]
    if not rows:
        return
    page.heading(t("Merchant feedback beside the original"))
    page.table(
        [t("key"), t("question"), t("original"), t("merchant feedback"), t("outcome"),
         t("final answer")],
        [
            [r["key"], r["question"], r["original"], r["feedback"], r["outcome"],
             r["final_answer"] or "—"]
            for r in rows
        ],
    )  # fmt: skip


def _render_withheld(summary: Mapping[str, Any], page: HtmlReport, t: Callable[..., str]) -> None:
    wr = summary["withheld_reasons"]
    page.heading(t("Why answers were withheld"))
    if not any(v["n"] for v in wr.values()):
        page.paragraph(t("Nothing was withheld."))
        return
    page.table(
        [t("reason"), t("items"), t("share")],
        [[t(WITHHOLD_REASONS[k]), v["n"], percent(v["share"])] for k, v in wr.items()],
    )
    page.figure(
        "withheld_reasons",
        bar_figure(
            [t(WITHHOLD_REASONS[k]) for k in wr],
            [float(v["n"]) for v in wr.values()],
            title=t("Withheld answers by reason"),
            xlabel=t("items"),
            annotations=[f"{v['n']} ({percent(v['share'])})" for v in wr.values()],
            integer_values=True,
        ),
    )


def _render_policy(summary: Mapping[str, Any], page: HtmlReport, t: Callable[..., str]) -> None:
    pol = summary["policy"]
    page.heading(t("Store policy"))
    page.paragraph(
        t(
            "Deterministic checks on every original answer (before any model) and every rewrite "
            "(after the rewriter); a rewrite that breaks the policy is never accepted."
        )
    )
    if not pol["by_rule"]:
        page.paragraph(t("No policy violation was found."))
        return
    page.table(
        [t("rule"), t("originals"), t("rewrites")],
        [[rule, c["original"], c["rewrite"]] for rule, c in pol["by_rule"].items()],
    )
    page.figure(
        "policy",
        stacked_bar_figure(
            list(pol["by_rule"]),
            {
                t("originals"): [float(c["original"]) for c in pol["by_rule"].values()],
                t("rewrites"): [float(c["rewrite"]) for c in pol["by_rule"].values()],
            },
            title=t("Policy violations by rule"),
            xlabel=t("violations"),
        ),
    )


def _render_groups(summary: Mapping[str, Any], page: HtmlReport, t: Callable[..., str]) -> None:
    page.heading(t("Accuracy of the first review by group"))
    mapping = summary.get("label_mapping") or {}
    opts = summary.get("groups_shown", {})
    page.paragraph(
        t(
            "Labels of one intent or category in Portuguese and Spanish are merged ({n} "
            "mappings; shown as 'pt / es'); the {top} largest groups with at least {min_n} items "
            "are shown, the rest is folded into '{other}'.",
            n=sum(len(v) for v in mapping.values()),
            top=opts.get("top", "N"),
            min_n=opts.get("min_group", 1),
            other=t("other"),
        )
    )
    for name, rows in summary["accuracy_by"].items():
        if not rows:
            continue
        page.heading(t("Accuracy by {name}", name=t(name)), level=3)
        page.table(
            [t("group"), "n", t("accuracy")],
            [[r["group"], r["n"], r["accuracy"]] for r in rows],
        )
        page.figure(
            f"accuracy_{name}",
            bar_figure(
                [r["group"] for r in rows],
                [r["accuracy"] for r in rows],
                title=t("Accuracy by {name}", name=t(name)),
                xlabel=t("accuracy"),
                annotations=[f"{r['accuracy']:.2f} (n={r['n']})" for r in rows],
                limit=(0.0, 1.2),
            ),
        )


def _render_score_change(
    summary: Mapping[str, Any], page: HtmlReport, t: Callable[..., str]
) -> None:
    sc = summary["score_change_accepted"]
    page.heading(t("Score change of accepted rewrites"))
    page.paragraph(
        t("Final minus original score (semantic + contextual, out of 10) of each accepted rewrite.")
    )
    page.metrics(
        {
            "n": sc["n"],
            t("mean"): sc["mean"],
            t("median"): sc["median"],
            t("improved"): _cell(sc["improved"]["n"], sc["improved"]["share"]),
            t("unchanged"): _cell(sc["unchanged"]["n"], sc["unchanged"]["share"]),
            t("worse"): _cell(sc["worse"]["n"], sc["worse"]["share"]),
        }
    )
    note = " · ".join(
        f"{t(k)} {percent(sc[k]['share'], 0)}" for k in ("improved", "unchanged", "worse")
    )
    page.figure(
        "score_change",
        histogram_figure(
            sc["values"],
            title=t("Final − original score (out of 10)"),
            xlabel=t("score change"),
            ylabel=t("items"),
            bins=[x - 0.5 for x in range(-10, 12)],
            note=note if sc["n"] else "",
        ),
    )


def _render_review(summary: Mapping[str, Any], page: HtmlReport, t: Callable[..., str]) -> None:
    rv = summary.get("review")
    if rv is None:
        return
    page.heading(t("Human review"))
    page.paragraph(
        t(
            "Verdicts of people on the review queue (`colmeia moderate review`); a verdict on an "
            "answer that was moderated again since is stale and not counted."
        )
    )
    if not rv["reviewed"]:
        page.paragraph(t("No verdicts yet."))
        return
    page.metrics(
        {
            t("reviewed"): rv["reviewed"],
            t("stale"): rv["stale"],
            t("agreement (accepted)"): percent(rv["agreement"]),
            t("accepted or edited"): percent(rv["accepted_or_edited"]),
        }
    )
    rows = rv["by_outcome"]
    page.table(
        [t("outcome"), t("accept"), t("edit"), t("reject")],
        [[o, c["accept"], c["edit"], c["reject"]] for o, c in rows.items()],
    )
    page.figure(
        "review",
        stacked_bar_figure(
            list(rows),
            {t(v): [float(c[v]) for c in rows.values()] for v in ("accept", "edit", "reject")},
            title=t("Human verdicts by outcome"),
            xlabel=t("items"),
        ),
    )


def render_latency(summary: Mapping[str, Any], page: HtmlReport, t: Callable[..., str]) -> None:
    lat = summary["latency"]
    page.heading(t("Latency and throughput"))
    page.paragraph(
        t(
            "Model call latency per role (seconds, including retries) and items per minute of "
            "each run."
        )
    )
    roles = lat["by_role"]
    if roles:
        page.table(
            [t("role"), t("calls"), t("mean"), t("median"), "p95"],
            [[r, s["n"], s["mean"], s["median"], s["p95"]] for r, s in roles.items()],
        )
        page.figure(
            "latency",
            grouped_bar_figure(
                list(roles),
                {
                    t("mean"): [s["mean"] for s in roles.values()],
                    "p95": [s["p95"] for s in roles.values()],
                },
                title=t("Latency per role (s)"),
                ylabel=t("seconds"),
            ),
        )
    if lat["throughput"]:
        page.table(
            [t("run"), t("written"), "s", t("items/min")],
            [[r["run"], r["written"], r["wall_s"], r["items_per_min"]] for r in lat["throughput"]],
        )


def render_cost(summary: Mapping[str, Any], page: HtmlReport, t: Callable[..., str]) -> None:
    cost = summary["cost"]
    page.heading(t("Tokens and cost"))
    page.paragraph(
        t(
            "Per item over the {n} moderated items ({invalid} invalid input records are left "
            "out, so they do not dilute the figures). Cost uses each role's price ({source}).",
            n=cost["moderated_items"],
            invalid=cost["invalid_inputs"],
            source=t(
                "prices of the given config"
                if cost["priced_with"] == "config"
                else "prices recorded at run time"
            ),
        )
    )
    names = {
        "calls": t("calls"),
        "prompt_tokens": t("prompt tokens"),
        "completion_tokens": t("completion tokens"),
        "cost": t("cost"),
    }
    page.table(
        [t("figure"), t("mean"), t("median"), "p95", t("total")],
        [
            [names[k], s["mean"], s["median"], s["p95"], s["total"]]
            for k, s in cost["per_item"].items()
        ],
    )
    roles = cost["by_role"]
    if roles:
        page.table(
            [
                t("role"),
                t("calls"),
                t("prompt tokens / item"),
                t("completion tokens / item"),
                t("cost"),
                t("cost / item"),
            ],
            [
                [
                    r,
                    v["calls"],
                    v["prompt_tokens_per_item"],
                    v["completion_tokens_per_item"],
                    v["cost"],
                    v["cost_per_item"],
                ]
                for r, v in roles.items()
            ],
        )
        page.figure(
            "tokens_by_role",
            grouped_bar_figure(
                list(roles),
                {
                    t("prompt tokens"): [v["prompt_tokens_per_item"] for v in roles.values()],
                    t("completion tokens"): [
                        v["completion_tokens_per_item"] for v in roles.values()
                    ],
                },
                title=t("Tokens per item, by role"),
                ylabel=t("tokens"),
                value_format="{:.0f}",
            ),
        )


# ---------------------------------------------------------------------------------- files


def render_summary(summary: dict[str, Any], name: str, options: ReportOptions) -> HtmlReport:
    """The report page of a summary (figures are drawn; they are saved by ``write``)."""
    summary["groups_shown"] = {"top": options.top, "min_group": options.min_group}
    t = translator(options.language)
    page = HtmlReport(f"{t('Moderation report')} — {name}", lang=options.language)
    _render(summary, page)
    return page


def check_report_inputs(results_path: Path, gold_inputs: Sequence[str | Path]) -> None:
    """Refuse, in one message, a results file and labelled inputs given the wrong way round."""
    usage = "usage: colmeia moderate report RESULTS.jsonl --gold INPUTS… --out DIR"
    if not results_path.is_file():
        raise InputError(f"{results_path}: no such results file; run `colmeia moderate run` first")
    kind = sniff(results_path)
    gold_kinds = {sniff(p) for p in iter_files(list(gold_inputs))}
    if kind == "records" or (kind != "results" and "results" in gold_kinds):
        swapped = " — the files look swapped" if "results" in gold_kinds else ""
        raise InputError(
            f"{results_path} holds input records, not moderation results{swapped} ({usage})"
        )
    if kind != "results" and results_path.stat().st_size:
        raise InputError(
            f"{results_path} is not a results file of `colmeia moderate run` ({usage})"
        )
    if "results" in gold_kinds:
        bad = [str(p) for p in iter_files(list(gold_inputs)) if sniff(p) == "results"]
        raise InputError(
            f"--gold {', '.join(bad)} holds moderation results, not labelled input records; "
            f"give the records the run read ({usage})"
        )


def load_results_and_gold(
    results_path: Path, gold_inputs: Sequence[str | Path]
) -> tuple[dict[str, dict[str, Any]], list[LoadedRecord]]:
    """Read a results file and the labelled inputs, after :func:`check_report_inputs`."""
    check_report_inputs(results_path, gold_inputs)
    return read_results(results_path), load_records(gold_inputs)


def write_report(
    results_path: Path,
    gold_inputs: Sequence[str | Path],
    out_dir: Path,
    *,
    options: ReportOptions | None = None,
    verdicts_file: Path | None = None,
) -> ReportFiles:
    """Read a results file and the labelled inputs; write report.html, PNGs and summary.json.

    The run manifest and the verdicts file beside the results are read when they exist.
    """
    options = options or ReportOptions()
    results, gold = load_results_and_gold(results_path, gold_inputs)
    verdict_log = VerdictLog(verdicts_file or verdicts_path(results_path))
    verdicts = verdict_log.latest() if verdict_log.path.exists() else None
    summary = build_summary(
        results,
        gold,
        manifest=read_manifest(results_path),
        verdicts=verdicts,
        options=options,
    )
    page = render_summary(summary, results_path.name, options)
    html_path = page.write(out_dir)
    summary_path = write_json(out_dir / "summary.json", summary)
    images = sorted(out_dir.glob("*.png"))
    return ReportFiles(html=html_path, summary=summary_path, images=images)
