"""Evaluation reports people look at: an HTML page with PNG plots, and a JSON summary.

Generic helpers any app can reuse: build an :class:`HtmlReport` section by section (headings,
paragraphs, notices, metric lists, tables, figures), then :meth:`HtmlReport.write` it into a
folder; plots are drawn with matplotlib's object API on the Agg canvas (no display, no global
pyplot state, safe in threads) and saved as PNG files beside the page. A value of ``None`` is
shown as "n/a": a metric nothing was measured for is not a 0.
"""

from __future__ import annotations

import html
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

__all__ = [
    "HtmlReport",
    "bar_figure",
    "confusion_figure",
    "grouped_bar_figure",
    "histogram_figure",
    "percent",
    "stacked_bar_figure",
    "write_json",
]

_COLORS = ("#e0a800", "#3b6ea5", "#7a5c00", "#8fb3d9", "#c0504d", "#9bbb59")

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{border-bottom:2px solid #e0a800;padding-bottom:.2em}h2{margin-top:1.8em;color:#444}
table{border-collapse:collapse;margin:.6em 0 1.2em}th,td{border:1px solid #ccc;padding:.3em .7em;text-align:left}
th{background:#f5f5f5}td.num{text-align:right;font-variant-numeric:tabular-nums}
dl.metrics{display:grid;grid-template-columns:max-content auto;gap:.2em 1.2em}dl.metrics dt{font-weight:600}
figure{margin:1em 0}figure img{max-width:100%;border:1px solid #eee}figcaption{color:#666;font-size:.9em}
p.note{color:#666;font-size:.9em}
p.notice{background:#fff4d6;border-left:4px solid #e0a800;padding:.5em .8em}
p.notice.alert{background:#fde8e8;border-left-color:#c0504d}
"""


def percent(value: float | None, digits: int = 1) -> str:
    """``0.4213`` → ``"42.1%"``; ``None`` → ``"n/a"``."""
    return "n/a" if value is None else f"{100 * value:.{digits}f}%"


def _fmt(value: object) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        return f"{value:,.4f}".rstrip("0").rstrip(".") if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


@dataclass
class HtmlReport:
    """A report page built in order; figures become PNG files next to ``report.html``."""

    title: str
    lang: str = "en"
    _parts: list[str] = field(default_factory=list)
    _figures: list[tuple[str, Figure]] = field(default_factory=list)

    def heading(self, text: str, level: int = 2) -> None:
        self._parts.append(f"<h{level}>{html.escape(text)}</h{level}>")

    def paragraph(self, text: str, *, note: bool = False) -> None:
        cls = ' class="note"' if note else ""
        self._parts.append(f"<p{cls}>{html.escape(text)}</p>")

    def notice(self, text: str, *, alert: bool = False) -> None:
        """A highlighted line (e.g. "answers came from the simulated model")."""
        cls = "notice alert" if alert else "notice"
        self._parts.append(f'<p class="{cls}">{html.escape(text)}</p>')

    def metrics(self, values: Mapping[str, object]) -> None:
        """A definition list of name → value."""
        rows = "".join(
            f"<dt>{html.escape(k)}</dt><dd>{html.escape(_fmt(v))}</dd>" for k, v in values.items()
        )
        self._parts.append(f'<dl class="metrics">{rows}</dl>')

    def table(self, headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
        body = "".join(
            "<tr>"
            + "".join(
                f'<td class="num">{html.escape(_fmt(c))}</td>'
                if isinstance(c, int | float) and not isinstance(c, bool)
                else f"<td>{html.escape(_fmt(c))}</td>"
                for c in row
            )
            + "</tr>"
            for row in rows
        )
        self._parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")

    def html(self, fragment: str) -> None:
        """Add an HTML fragment the caller built (and escaped) itself."""
        self._parts.append(fragment)

    def figure(self, name: str, fig: Figure, caption: str = "") -> None:
        """Add a plot, saved as ``<name>.png`` beside the page."""
        if not name.replace("_", "").replace("-", "").isalnum():
            raise ValueError(f"figure name {name!r} must be letters, digits, '-' or '_'")
        self._figures.append((name, fig))
        cap = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
        self._parts.append(
            f'<figure><img src="{name}.png" alt="{html.escape(caption or name)}">{cap}</figure>'
        )

    def render(self) -> str:
        body = "\n".join(self._parts)
        title = html.escape(self.title)
        return (
            f'<!doctype html>\n<html lang="{html.escape(self.lang)}"><head><meta charset="utf-8">'
            f"<title>{title}</title><style>{_CSS}</style></head>"
            f"<body><h1>{title}</h1>\n{body}\n</body></html>\n"
        )

    def write(self, folder: Path, name: str = "report.html") -> Path:
        """Write the page and its PNGs into ``folder``; return the page's path."""
        folder.mkdir(parents=True, exist_ok=True)
        for fig_name, fig in self._figures:
            FigureCanvasAgg(fig)
            fig.savefig(folder / f"{fig_name}.png", dpi=110, bbox_inches="tight")
        page = folder / name
        _replace_text(page, self.render())
        return page


def _replace_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_json(path: Path, data: Any) -> Path:
    """Write a JSON summary (UTF-8, indented, keys in insertion order), replacing atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _replace_text(path, json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")
    return path


def _figure(width: float = 6.4, height: float = 4.0) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def confusion_figure(
    matrix: Sequence[Sequence[int]],
    labels: Sequence[str],
    *,
    title: str = "Confusion matrix",
    xlabel: str = "predicted",
    ylabel: str = "gold",
) -> Figure:
    """A confusion matrix heat map with counts in the cells (rows gold, columns predicted)."""
    fig = _figure(4.8, 4.0)
    ax = fig.add_subplot()
    data = [list(r) for r in matrix]
    image = ax.imshow(data, cmap="Blues", vmin=0)
    peak = max((max(r) for r in data if r), default=0)
    for i, row in enumerate(data):
        for j, v in enumerate(row):
            ax.text(
                j,
                i,
                str(v),
                ha="center",
                va="center",
                color="white" if peak and v > peak / 2 else "black",
                fontsize=12,
            )
    ax.set_xticks(range(len(labels)), labels)
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    fig.colorbar(image, ax=ax, shrink=0.8)
    return fig


def bar_figure(
    labels: Sequence[str],
    values: Sequence[float],
    *,
    title: str,
    xlabel: str = "",
    annotations: Sequence[str] | None = None,
    horizontal: bool = True,
    limit: tuple[float, float] | None = None,
    integer_values: bool = False,
) -> Figure:
    """Bars, horizontal by default (long category names stay readable).

    ``integer_values`` puts only whole numbers on the value axis (for counts).
    """
    n = max(len(labels), 1)
    fig = _figure(7.0, max(2.2, 0.35 * n + 1.0) if horizontal else 4.0)
    ax = fig.add_subplot()
    if horizontal:
        positions = list(range(len(labels)))[::-1]
        bars = ax.barh(positions, values, color="#e0a800")
        ax.set_yticks(positions, labels)
        if limit:
            ax.set_xlim(*limit)
        ax.set_xlabel(xlabel)
    else:
        bars = ax.bar(range(len(labels)), values, color="#e0a800")
        ax.set_xticks(range(len(labels)), labels)
        if limit:
            ax.set_ylim(*limit)
        ax.set_ylabel(xlabel)
    if integer_values:
        (ax.xaxis if horizontal else ax.yaxis).set_major_locator(MaxNLocator(integer=True))
    if annotations:
        ax.bar_label(bars, labels=list(annotations), padding=3, fontsize=8)
        if not limit and values:
            # room for the labels beside the longest bar
            peak = max(max(values), 0.0) or 1.0
            (ax.set_xlim if horizontal else ax.set_ylim)(0, peak * 1.25)
    ax.set_title(title)
    return fig


def grouped_bar_figure(
    categories: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    *,
    title: str,
    ylabel: str = "",
    limit: tuple[float, float] | None = None,
    integer_values: bool = False,
    value_format: str = "{:.2f}",
) -> Figure:
    """Vertical bars side by side: one group per category, one bar per series (e.g. run A
    and run B). A ``None`` value draws no bar and is labelled "n/a"."""
    n_series = max(len(series), 1)
    fig = _figure(max(6.4, 1.1 * len(categories) * n_series + 1.5), 4.2)
    ax = fig.add_subplot()
    width = 0.8 / n_series
    for i, (name, values) in enumerate(series.items()):
        xs = [c + (i - (n_series - 1) / 2) * width for c in range(len(categories))]
        heights = [0.0 if v is None else float(v) for v in values]
        bars = ax.bar(xs, heights, width, label=name, color=_COLORS[i % len(_COLORS)])
        labels = ["n/a" if v is None else value_format.format(v) for v in values]
        ax.bar_label(bars, labels=labels, padding=2, fontsize=7)
    ax.set_xticks(range(len(categories)), list(categories))
    if len(categories) > 4:
        ax.tick_params(axis="x", labelrotation=20)
    if limit:
        ax.set_ylim(*limit)
    if integer_values:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    # Beside the axes, not loc="best": matplotlib times its search for the best place and warns
    # when it takes over a second, so on a busy machine a report came with a UserWarning.
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    return fig


def stacked_bar_figure(
    categories: Sequence[str],
    series: Mapping[str, Sequence[float]],
    *,
    title: str,
    xlabel: str = "",
) -> Figure:
    """Horizontal stacked bars: each category's total split into the series (counts), with
    each segment labelled by its count when it is wide enough to hold it."""
    fig = _figure(7.0, max(2.2, 0.5 * len(categories) + 1.4))
    ax = fig.add_subplot()
    positions = list(range(len(categories)))[::-1]
    left = [0.0] * len(categories)
    peak = max((sum(col) for col in zip(*series.values(), strict=True)), default=0.0) or 1.0
    for i, (name, values) in enumerate(series.items()):
        bars = ax.barh(positions, values, left=left, label=name, color=_COLORS[i % len(_COLORS)])
        labels = [f"{v:g}" if v and v / peak > 0.04 else "" for v in values]
        ax.bar_label(bars, labels=labels, label_type="center", fontsize=8)
        left = [a + b for a, b in zip(left, values, strict=True)]
    ax.set_yticks(positions, list(categories))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="lower right")
    return fig


def histogram_figure(
    values: Sequence[float],
    *,
    title: str,
    xlabel: str,
    bins: int | Sequence[float] = 20,
    note: str = "",
    ylabel: str = "items",
) -> Figure:
    """A histogram of counts (whole numbers on the y axis); an empty series gives an empty,
    labelled plot rather than an error. ``note`` is printed in the top corner."""
    fig = _figure(6.4, 3.6)
    ax = fig.add_subplot()
    if values:
        ax.hist(
            list(values),
            bins=bins if isinstance(bins, int) else list(bins),
            color="#e0a800",
            edgecolor="#7a5c00",
        )
    else:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    if note:
        ax.text(
            0.02,
            0.97,
            note,
            ha="left",
            va="top",
            transform=ax.transAxes,
            fontsize=8,
            bbox={"facecolor": "white", "edgecolor": "#ccc"},
        )
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return fig
