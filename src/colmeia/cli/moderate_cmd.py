"""``colmeia moderate …``: moderate a batch of answers, and report on a finished run."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from colmeia.cli.plumbing import command_usage, say_if_simulated
from colmeia.config import LLMSettings
from colmeia.errors import ColmeiaError

if TYPE_CHECKING:
    from colmeia.apps.moderation.batch import BatchProgress

# The app modules are imported inside the commands: LangGraph and matplotlib take seconds to
# import, and `colmeia --help` or another group's command should not pay for them.

app = typer.Typer(
    help="Moderate AI-written answers: keep, rewrite or withhold, with a full audit trail.",
    no_args_is_help=True,
)
console = Console()
err_console = Console(stderr=True)

_STYLE = {
    "KEEP_ORIGINAL": "green",
    "ANSWER_REVISED": "cyan",
    "DO_NOT_ANSWER": "yellow",
    "ERROR": "red",
}


def _counts(p: BatchProgress) -> str:
    return "  ".join(f"[{style}]{o} {p.counts.get(o, 0)}[/]" for o, style in _STYLE.items())


@app.command()
def run(
    inputs: list[Path] = typer.Argument(..., help="JSON/JSONL files or folders of them."),
    out: Path = typer.Option(..., "--out", "-o", help="Results file (JSONL, one line per record)."),
    concurrency: int = typer.Option(16, "--concurrency", "-j", min=1, help="Items in flight."),
    resume: bool = typer.Option(False, "--resume", help="Continue: skip records already in --out."),
    retry_errors: bool = typer.Option(
        False, "--retry-errors", help="Like --resume, but redo records whose result is ERROR."
    ),
    overwrite: bool = typer.Option(False, "--overwrite", help="Start --out again from empty."),
    threshold: float | None = typer.Option(
        None, "--threshold", help="Keep the original when semantic + contextual > this (default 8)."
    ),
    max_rewrites: int | None = typer.Option(
        None, "--max-rewrites", min=1, help="Hard cap on rewrites per item (default 3)."
    ),
    config: Path | None = typer.Option(
        None, "--config", help="TOML/JSON file with per-role models and temperatures."
    ),
    base_url: str | None = typer.Option(None, "--base-url", help="Overrides COLMEIA_LLM_BASE_URL."),
    model: str | None = typer.Option(None, "--model", help="Overrides COLMEIA_LLM_MODEL."),
) -> None:
    """Moderate every record; exit 0 when each one has a result line (ERROR included)."""
    from colmeia.apps.moderation.batch import moderate_files
    from colmeia.apps.moderation.roles import load_config

    used = command_usage()
    try:
        cfg = load_config(config, threshold=threshold, max_rewrites=max_rewrites)
        llm = LLMSettings()
        if base_url or model:
            llm = llm.model_copy(
                update={k: v for k, v in {"base_url": base_url, "model": model}.items() if v}
            )
        with Progress(
            TextColumn("[bold]moderating"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            TextColumn("{task.description}"),
            console=console,
            transient=False,
        ) as bar:
            task = bar.add_task("", total=None)

            def update(p: BatchProgress) -> None:
                bar.update(task, total=p.total, completed=p.finished, description=_counts(p))

            summary = asyncio.run(
                moderate_files(
                    inputs,
                    out,
                    config=cfg,
                    llm=llm,
                    concurrency=concurrency,
                    resume=resume,
                    retry_errors=retry_errors,
                    overwrite=overwrite,
                    on_progress=update,
                )
            )
    except ColmeiaError as exc:
        err_console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
    console.print(
        f"{summary.total} records: {summary.skipped} already done, {summary.done} written "
        f"in {summary.wall_s:.1f}s → {summary.out}"
    )
    console.print("  ".join(f"[{_STYLE[o]}]{o}[/] {n}" for o, n in summary.counts.items()))
    say_if_simulated(used, console)
    if summary.missing:
        err_console.print(
            f"[red]{len(summary.missing)} records have no result line[/] (first: "
            f"{', '.join(summary.missing[:5])}); rerun with --resume"
        )
        raise typer.Exit(1)


@app.command()
def report(
    results: Path = typer.Argument(..., help="Results file written by `colmeia moderate run`."),
    more_gold: list[Path] = typer.Argument(None, hidden=True),
    gold: list[Path] = typer.Option(
        ..., "--gold", help="The labelled input files/folders (`--gold a.json b.json` works)."
    ),
    out: Path = typer.Option(
        ..., "--out", "-o", help="Folder for report.html, PNGs, summary.json."
    ),
) -> None:
    """Write the evaluation report (HTML + PNG plots + summary.json) and print where it is."""
    from colmeia.apps.moderation.report import write_report

    try:
        files = write_report(results, [*gold, *(more_gold or [])], out)
    except ColmeiaError as exc:
        err_console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
    console.print(f"report:  {files.html}")
    console.print(f"summary: {files.summary}")
    console.print(f"plots:   {len(files.images)} PNG files in {out}")
