"""One progress display for every long command: count, rate and ETA, on a terminal or in a log.

On a terminal it is a Rich bar that fits 80 columns (``ingest ━━━━━━ 120/500 24% 12.3 files/s
ETA 0:00:31 lei.pdf``); when its stream is not a terminal (a CI log, ``2> file``) it prints a
plain line at most every ``interval`` seconds (10 by default; ``COLMEIA_PROGRESS_INTERVAL``
sets it for every command) and one at the end, so logs stay readable.
Nothing is drawn before the first :meth:`Progress.update`: a command that fails on its
configuration reports the error on a clean screen. Ctrl-C inside the ``with`` block ends the
command with exit code 130 and one line saying how far it got and how to continue::

    with Progress("moderate", unit="records", resume="rerun with --resume") as bar:
        run(on_progress=lambda p: bar.update(p.finished, p.total, info=counts(p)))
"""

from __future__ import annotations

import os
import time
from types import TracebackType
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, ProgressColumn, Task, TaskProgressColumn, TextColumn
from rich.progress import Progress as RichProgress
from rich.table import Column
from rich.text import Text

from colmeia.errors import ConfigurationError

__all__ = ["Progress", "format_eta", "format_rate"]

_INTERRUPTED_EXIT = 130  # the shell's code for "ended by SIGINT"
_INTERVAL_SETTING = "COLMEIA_PROGRESS_INTERVAL"


def plain_line_interval() -> float:
    """Seconds between plain progress lines: ``COLMEIA_PROGRESS_INTERVAL``, else 10."""
    raw = os.environ.get(_INTERVAL_SETTING, "").strip()
    if not raw:
        return 10.0
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 86_400:
        raise ConfigurationError(
            f"{_INTERVAL_SETTING}={raw!r}: give the seconds between progress lines (e.g. 10)"
        )
    return value


def format_rate(per_second: float | None, unit: str) -> str:
    """``12.3 files/s``; ``2.0 files/min`` when slower than one per 10 s; ``… files/s`` unknown."""
    if per_second is None or per_second <= 0:
        return f"… {unit}/s"
    if per_second < 0.1:
        return f"{per_second * 60:.1f} {unit}/min"
    if per_second < 100:
        return f"{per_second:.1f} {unit}/s"
    return f"{per_second:,.0f} {unit}/s"


def format_eta(seconds: float | None) -> str:
    """``ETA 0:04:05``; ``ETA …`` while unknown."""
    if seconds is None or seconds < 0 or seconds != seconds:
        return "ETA …"
    s = round(seconds)
    return f"ETA {s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


class _RateColumn(ProgressColumn):
    def __init__(self, unit: str) -> None:
        super().__init__(table_column=Column(no_wrap=True))
        self.unit = unit

    def render(self, task: Task) -> Text:
        return Text(format_rate(task.speed, self.unit), style="progress.data.speed")


class _EtaColumn(ProgressColumn):
    def __init__(self) -> None:
        super().__init__(table_column=Column(no_wrap=True))

    def render(self, task: Task) -> Text:
        remaining = None
        if task.total is not None and task.speed:
            remaining = (task.total - task.completed) / task.speed
        if task.finished:
            remaining = 0.0
        return Text(format_eta(remaining), style="progress.remaining")


class _CountColumn(ProgressColumn):
    def __init__(self) -> None:
        super().__init__(table_column=Column(no_wrap=True))

    def render(self, task: Task) -> Text:
        total = "?" if task.total is None else f"{int(task.total)}"
        return Text(f"{int(task.completed)}/{total}", style="progress.download")


class Progress:
    """A progress display for ``label`` counted in ``unit`` (see the module docstring).

    ``resume`` is what to tell a user who pressed Ctrl-C (``"rerun with --resume"``); without
    it the line only says how far the command got. ``disable`` turns the display off (``--json``
    output) but keeps the Ctrl-C line. ``console`` defaults to standard error.
    """

    def __init__(
        self,
        label: str,
        *,
        unit: str = "items",
        resume: str | None = None,
        console: Console | None = None,
        interval: float | None = None,
        disable: bool = False,
    ) -> None:
        self.label = label
        self.unit = unit
        self.resume = resume
        self.console = console or Console(stderr=True)
        self.interval = plain_line_interval() if interval is None else interval
        self.disable = disable
        self.done = 0
        self.total: int | None = None
        self.info = ""
        self._rich: RichProgress | None = None
        self._task: Any = None
        self._started_at: float | None = None
        self._last_line_at = 0.0
        self._last_line: tuple[int, int | None] | None = None

    # -- the context ---------------------------------------------------------------------------

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close(final_line=exc_type is None)
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
            self.console.print(self.interrupted_message(), style="yellow", highlight=False)
            raise typer.Exit(_INTERRUPTED_EXIT) from None

    def interrupted_message(self) -> str:
        """``interrupted: 120 of 500 records done — rerun with --resume``."""
        of = f" of {self.total}" if self.total is not None else ""
        line = f"interrupted: {self.done}{of} {self.unit} done"
        return f"{line} — {self.resume}" if self.resume else line

    # -- updates -------------------------------------------------------------------------------

    def update(self, done: int, total: int | None = None, *, info: str | None = None) -> None:
        """``done`` of ``total`` (``None``: unknown or unchanged); ``info`` is a short status."""
        self.done = done
        if total is not None:
            self.total = total
        if info is not None:
            self.info = info
        if self._started_at is None:
            self._started_at = time.monotonic()
        if self.disable:
            return
        if self.console.is_terminal:
            self._draw()
        else:
            self._maybe_line()

    def advance(self, n: int = 1, *, info: str | None = None) -> None:
        """One (or ``n``) more done."""
        self.update(self.done + n, info=info)

    def close(self, *, final_line: bool = True) -> None:
        """Stop drawing; in plain mode print the last state if it was not printed yet."""
        if self._rich is not None:
            self._rich.stop()
            self._rich = None
        elif (
            final_line
            and not self.disable
            and self._started_at is not None
            and self._last_line != (self.done, self.total)
        ):
            self._print_line()

    # -- terminal ------------------------------------------------------------------------------

    def _draw(self) -> None:
        if self._rich is None:
            self._rich = RichProgress(
                TextColumn(f"[bold]{escape(self.label)}", table_column=Column(no_wrap=True)),
                BarColumn(bar_width=20),
                _CountColumn(),
                TaskProgressColumn(),
                _RateColumn(self.unit),
                _EtaColumn(),
                TextColumn(
                    "{task.fields[info]}",
                    style="dim",
                    table_column=Column(no_wrap=True, overflow="ellipsis", ratio=1, min_width=0),
                ),
                console=self.console,
                expand=True,
                speed_estimate_period=60.0,
            )
            self._rich.start()
            self._task = self._rich.add_task(self.label, total=self.total, info="")
        self._rich.update(self._task, completed=self.done, total=self.total, info=escape(self.info))

    # -- plain lines ---------------------------------------------------------------------------

    def _rate(self) -> float | None:
        if self._started_at is None:
            return None
        elapsed = time.monotonic() - self._started_at
        return self.done / elapsed if elapsed > 0 and self.done else None

    def line(self) -> str:
        """The plain status line: ``ingest: 120/500 files (24%) · 12.3 files/s · ETA 0:00:31``."""
        rate = self._rate()
        parts = [f"{self.label}: {self.done}/{self.total if self.total is not None else '?'}"]
        parts[0] += f" {self.unit}"
        if self.total:
            parts[0] += f" ({100 * self.done / self.total:.0f}%)"
        parts.append(format_rate(rate, self.unit))
        if self.total is not None:
            remaining = (self.total - self.done) / rate if rate else None
            parts.append(format_eta(0.0 if self.done >= self.total else remaining))
        if self.info:
            parts.append(self.info)
        return " · ".join(parts)

    def _maybe_line(self) -> None:
        now = time.monotonic()
        first = self._last_line is None
        if first or now - self._last_line_at >= self.interval:
            self._print_line()

    def _print_line(self) -> None:
        self._last_line_at = time.monotonic()
        self._last_line = (self.done, self.total)
        self.console.print(self.line(), highlight=False, markup=False, soft_wrap=True)
