"""The figures a team looks at first, for the terminal: a report's and a comparison's headline.

``moderate report`` and ``moderate compare`` write HTML and JSON; a team at a terminal wants the
headline without opening them: accuracy and both F1s, outcome shares, rewrites, cost and speed;
for two runs the difference B − A, whether it is significant (McNemar's p on the paired
first-review verdicts), and every setting, template and policy that differs between the runs.
The rows are data; the CLI lays them out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from colmeia.apps.moderation.compare import run_metrics
from colmeia.eval.report import percent

__all__ = [
    "HEADLINE",
    "SIMULATED",
    "ComparisonHeadline",
    "comparison_headline",
    "report_headline",
]

SIMULATED = (
    "simulated model: these figures are about answers of colmeia's simulated server, placeholder "
    "text, not a language model's"
)

# In the order a team reads them: quality, what happened to the answers, what it cost.
HEADLINE = (
    "accuracy",
    "F1 (flagged)",
    "F1 (keep)",
    "macro F1",
    "share kept",
    "share revised",
    "share withheld",
    "mean rewrites of flagged items",
    "calls / item",
    "cost / item",
    "items/min",
)
_RATES = frozenset(
    {"accuracy", "F1 (flagged)", "F1 (keep)", "macro F1", "share kept", "share revised",
     "share withheld"}
)  # fmt: skip
SIGNIFICANCE = 0.05


def _show(metric: str, value: Any, *, signed: bool = False) -> str:
    if value is None:
        return "n/a"
    if metric in _RATES and isinstance(value, int | float):
        text = percent(float(value))
        if signed:  # a difference of rates is in percentage points
            return f"{100 * value:+.1f} pp"
        return text
    if isinstance(value, float):
        return f"{value:+.4g}" if signed else f"{value:.4g}"
    return f"{value:+d}" if signed and isinstance(value, int) else str(value)


def report_headline(summary: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(metric, value)`` rows of one run's summary (``summary.json``)."""
    metrics = run_metrics(summary, summary)
    return [(name, _show(name, metrics.get(name))) for name in HEADLINE]


@dataclass(frozen=True, slots=True)
class ComparisonHeadline:
    names: tuple[str, str]
    rows: list[tuple[str, str, str, str]]  # metric, A, B, B − A
    shared: int
    right_only: tuple[int, int]  # first review right only in A / only in B
    p_value: float | None
    test: str
    settings: list[str] | None  # None: a run has no manifest, so settings are unknown
    simulated: bool = False  # a run's answers came from colmeia's simulated model

    @property
    def verdict(self) -> str:
        """Whether the accuracy difference is significant, in words."""
        if self.p_value is None:
            return "no item was judged differently by the two runs: no test"
        if self.p_value < SIGNIFICANCE:
            return f"significant (p = {self.p_value:.3g} < {SIGNIFICANCE})"
        return f"not significant (p = {self.p_value:.3g} ≥ {SIGNIFICANCE})"


def comparison_headline(data: Mapping[str, Any]) -> ComparisonHeadline:
    """The headline of a comparison (``compare.json``)."""
    by_name = {row["metric"]: row for row in data["metrics"]}
    rows = []
    for name in HEADLINE:
        row = by_name.get(name)
        if row is None:
            continue
        rows.append(
            (
                name,
                _show(name, row["a"]),
                _show(name, row["b"]),
                _show(name, row["delta"], signed=True),
            )
        )
    mc = data["differences"]["mcnemar"]
    a, b = data["names"]
    return ComparisonHeadline(
        names=(a, b),
        rows=rows,
        shared=int(data["shared"]["n"]),
        right_only=(int(mc["b"]), int(mc["c"])),
        p_value=mc["p_value"],
        test=str(mc["method"]),
        settings=data.get("settings_differences"),
        simulated=any(s.get("simulated") for s in (data.get("summaries") or {}).values()),
    )
