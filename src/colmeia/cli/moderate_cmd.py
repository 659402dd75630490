"""``colmeia moderate …``: moderate a batch, report on it, compare two runs, review the changes.

Exit codes of ``run``: 0 every record has a result line and none is ``ERROR``; 1 every record
has a line, some are ``ERROR`` (``--retry-errors`` redoes them); 2 a usage or configuration
error (nothing was sent); 3 the run stopped early because the model server could not be used
(records without a line remain: fix the server, then ``--retry-errors``); 130 interrupted.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from typer._click.globals import get_current_context

from colmeia.cli.plumbing import command_usage, fail, say_if_simulated
from colmeia.cli.progress import Progress
from colmeia.config import LLMSettings
from colmeia.errors import ColmeiaError, ConfigurationError

if TYPE_CHECKING:
    from collections.abc import Callable

    from colmeia.apps.moderation.batch import BatchProgress, BatchSummary, PreparedBatch
    from colmeia.apps.moderation.graph import Moderator
    from colmeia.apps.moderation.policy import PolicySet
    from colmeia.apps.moderation.report import ReportOptions
    from colmeia.apps.moderation.review import ReviewItem, VerdictLog, VerdictRecord
    from colmeia.apps.moderation.roles import ModerationConfig

# The app modules are imported inside the commands: LangGraph and matplotlib take seconds to
# import, and `colmeia --help` or another group's command should not pay for them.

app = typer.Typer(
    help="Moderate AI-written answers: keep, rewrite or withhold, with a full audit trail.",
    no_args_is_help=True,
)
console = Console()
err_console = Console(stderr=True)

EXIT_ERRORS = 1
EXIT_USAGE = 2
EXIT_STOPPED = 3

_STYLE = {
    "KEEP_ORIGINAL": "green",
    "ANSWER_REVISED": "cyan",
    "DO_NOT_ANSWER": "yellow",
    "ERROR": "red",
}
_SHORT = {"KEEP_ORIGINAL": "kept", "ANSWER_REVISED": "revised", "DO_NOT_ANSWER": "withheld"}


def _counts(p: BatchProgress) -> str:
    return " ".join(f"{_SHORT.get(o, o.lower())} {p.counts.get(o, 0)}" for o in _STYLE)


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
    allow_mixed: bool = typer.Option(
        False,
        "--allow-mixed",
        help="Resume with settings other than the file's (the manifest and report say so).",
    ),
    stop_after: int = typer.Option(
        5,
        "--stop-after",
        min=0,
        help="Stop after this many items in a row fail because the model server cannot be used "
        "(unreachable, key refused, model not found); 0 never stops.",
    ),
    threshold: float | None = typer.Option(
        None, "--threshold", help="Keep the original when semantic + contextual > this (default 8)."
    ),
    max_rewrites: int | None = typer.Option(
        None, "--max-rewrites", min=1, help="Hard cap on rewrites per item (default 3)."
    ),
    policy: Path | None = typer.Option(
        None,
        "--policy",
        help="Store policy file (YAML/TOML/JSON), or 'none' for the pure-model review (no rule "
        "checked). Default: the built-in policy (see `colmeia moderate policy show`).",
    ),
    prompts: Path | None = typer.Option(
        None,
        "--prompts",
        help="Folder of templates overriding the packaged prompts (as COLMEIA_PROMPTS_DIR; "
        "start from `colmeia prompts export DIR`).",
    ),
    audit_language: str | None = typer.Option(
        None, "--audit-language", help="Language of justifications: en (default), pt-BR or es."
    ),
    context_collection: str | None = typer.Option(
        None,
        "--context-collection",
        help="RAG collection of the products' own documents (colmeia ingest DOCS -c NAME): each "
        "record's product passages go to the contextual reviewer, suggester, rewriter and "
        "decider, cited in the trail.",
    ),
    context_store: str | None = typer.Option(
        None, "--store", help="Store of --context-collection (default: COLMEIA_STORE)."
    ),
    context_passages: int | None = typer.Option(
        None, "--context-passages", min=1, max=20, help="Passages per record (default 3)."
    ),
    config: Path | None = typer.Option(
        None, "--config", help="TOML/JSON file with per-role models, temperatures and prices."
    ),
    base_url: str | None = typer.Option(None, "--base-url", help="Overrides COLMEIA_LLM_BASE_URL."),
    model: str | None = typer.Option(None, "--model", help="Overrides COLMEIA_LLM_MODEL."),
    engine: str = typer.Option(
        "local",
        "--engine",
        help="local (this process) or ray (Ray workers; pip install 'colmeia[ray]').",
    ),
    workers: int = typer.Option(2, "--workers", min=1, help="Ray workers (--engine ray)."),
    address: str | None = typer.Option(
        None,
        "--address",
        help="Ray cluster: auto or ray://HOST:PORT; default: a local Ray for this run.",
    ),
) -> None:
    """Moderate every record into --out, one line each, with a run manifest beside it.

    With --engine ray, each of --workers Ray workers runs -j items at a time; this process still
    writes every result line, so --resume and the manifest work as in a local run.
    """
    from colmeia.apps.moderation.batch import open_batch
    from colmeia.apps.moderation.roles import load_config
    from colmeia.llm.prompts import prompts_dir, use_prompts_dir

    used = command_usage()
    if engine not in ("local", "ray"):
        raise fail(ConfigurationError(f"--engine {engine!r}: use local or ray"))
    if prompts is not None:
        # For this command only (in-process callers get the previous choice back after it).
        get_current_context().with_resource(prompts_dir(None))
    try:
        if prompts is not None:
            use_prompts_dir(prompts)
        cfg = load_config(
            config,
            threshold=threshold,
            max_rewrites=max_rewrites,
            policy=policy,
            audit_language=audit_language,
            context_collection=context_collection,
            context_store=context_store,
            context_passages=context_passages,
        )
        llm = LLMSettings()
        if base_url or model:
            llm = llm.model_copy(
                update={k: v for k, v in {"base_url": base_url, "model": model}.items() if v}
            )
        batch = open_batch(
            inputs,
            out,
            config=cfg,
            llm=llm,
            resume=resume or retry_errors,
            retry_errors=retry_errors,
            overwrite=overwrite,
            allow_mixed=allow_mixed,
        )
    except ColmeiaError as exc:
        raise fail(exc) from None
    _say_settings(batch.moderator)
    with (
        batch,
        Progress(
            "moderate", unit="records", resume="rerun with --resume", console=err_console
        ) as bar,
    ):
        try:
            summary = asyncio.run(
                _run_batch(
                    batch,
                    cfg,
                    llm,
                    concurrency=concurrency,
                    stop_after=stop_after,
                    on_progress=lambda p: bar.update(p.finished, p.total, info=_counts(p)),
                    engine=engine,
                    workers=workers,
                    address=address,
                )
            )
        except ColmeiaError as exc:
            raise fail(exc) from None
    console.print(
        f"{summary.total} records: {summary.skipped} already done, {summary.done} written "
        f"in {summary.wall_s:.1f}s → {summary.out}",
        highlight=False,
    )
    console.print("  ".join(f"[{_STYLE[o]}]{o}[/] {n}" for o, n in summary.counts.items()))
    if engine == "ray":  # the model calls were made in the workers: count them here
        used.calls += int(summary.usage.get("calls", 0))
        used.simulated += int(summary.usage.get("simulated", 0))
    say_if_simulated(used, console)
    if batch.manifest.last.mixed:
        err_console.print(
            "[yellow]warning:[/] this file now mixes settings: "
            + escape("; ".join(batch.manifest.last.differences)),
            highlight=False,
        )
    if summary.status == "stopped":
        err_console.print(
            f"[red]stopped:[/] {escape(summary.stop_reason or '')}\n"
            f"{len(summary.missing)} records have no result line; what finished is kept. Fix "
            "the model server, then rerun with --retry-errors.",
            highlight=False,
        )
        raise typer.Exit(EXIT_STOPPED)
    if summary.missing:  # not expected: every record either ran or the run stopped
        err_console.print(
            f"[red]{len(summary.missing)} records have no result line[/] (first: "
            f"{escape(', '.join(summary.missing[:5]))}); rerun with --resume",
            highlight=False,
        )
        raise typer.Exit(EXIT_STOPPED)
    if summary.status == "complete_with_errors":
        invalid, failed = _error_kinds(summary.out)
        parts = []
        if invalid:
            parts.append(f"{invalid} invalid input records (fix them in the input file)")
        if failed:
            parts.append(f"{failed} model failures (rerun with --retry-errors to redo them)")
        err_console.print(
            f"[yellow]{invalid + failed} records ended in ERROR[/]: {'; '.join(parts)}; each "
            "line says why in `error`",
            highlight=False,
        )
        raise typer.Exit(EXIT_ERRORS)


async def _run_batch(
    batch: PreparedBatch,
    cfg: ModerationConfig,
    llm: LLMSettings,
    *,
    concurrency: int,
    stop_after: int,
    on_progress: Callable[[BatchProgress], None],
    engine: str,
    workers: int,
    address: str | None,
) -> BatchSummary:
    if engine == "local":
        return await batch.run(
            concurrency=concurrency, stop_after=stop_after, on_progress=on_progress
        )
    from colmeia.apps.moderation.distributed import ray_moderation

    async with ray_moderation(
        cfg, llm, workers=workers, per_worker=concurrency, address=address
    ) as (moderate, pool):
        return await batch.run(
            concurrency=pool.concurrency,
            stop_after=stop_after,
            on_progress=on_progress,
            moderate=moderate,
            engine={
                "name": "ray",
                "workers": workers,
                "per_worker": concurrency,
                "address": address or "local",
            },
        )


def _say_settings(moderator: Moderator) -> None:
    """What decides the results, before any item: policy, prompts, temperatures, threshold."""
    err_console.print(escape(moderator.policy.summary()), highlight=False)
    if moderator.prompts is not None:
        p = moderator.prompts
        err_console.print(
            f"prompts: {escape(str(p.path))} overrides {escape(', '.join(p.overrides) or '-')} "
            f"(sha256 {p.sha256[:12]})",
            highlight=False,
        )
    if moderator.documents is not None:
        d = moderator.documents
        err_console.print(
            f"context: {d.passages} passages per record from collection "
            f"{escape(d.collection)} ({d.documents} documents)",
            highlight=False,
        )
    temps = sorted({str(rm.temperature) for rm in moderator.models.values()})
    err_console.print(
        f"threshold {moderator.threshold:g}, rewrite cap {moderator.max_rewrites}, "
        f"temperature {', '.join(temps)}",
        highlight=False,
    )


def _error_kinds(out: Path) -> tuple[int, int]:
    """ERROR lines of invalid input records, and of records the models failed on."""
    from colmeia.apps.moderation.results import read_results

    errors = [r for r in read_results(out).values() if r.get("outcome") == "ERROR"]
    invalid = sum(1 for r in errors if r.get("error_kind") == "input")
    return invalid, len(errors) - invalid


def _report_options(
    lang: str, labels: Path | None, top: int, min_group: int, config: Path | None
) -> ReportOptions:
    from colmeia.apps.moderation.labels import LabelMap
    from colmeia.apps.moderation.report import ReportOptions
    from colmeia.apps.moderation.roles import load_config, role_prices

    prices = role_prices(load_config(config), LLMSettings()) if config else None
    return ReportOptions(
        language=lang, top=top, min_group=min_group, labels=LabelMap.load(labels), prices=prices
    )


_LANG = typer.Option("en", "--lang", help="Report language: en or pt-BR.")
_LABELS = typer.Option(
    None, "--labels", help="TOML/YAML mapping of intent/category labels to groups (pt/es merge)."
)
_TOP = typer.Option(8, "--top", min=1, help="Intents/categories shown; the rest are 'other'.")
_MIN_GROUP = typer.Option(5, "--min-group", min=1, help="Smaller groups are folded into 'other'.")
_PRICES = typer.Option(
    None, "--config", help="Price tokens with this moderation config's per-role prices."
)


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
    lang: str = _LANG,
    labels: Path | None = _LABELS,
    top: int = _TOP,
    min_group: int = _MIN_GROUP,
    verdicts: Path | None = typer.Option(
        None, "--verdicts", help="Human verdicts (default: RESULTS.verdicts.jsonl beside it)."
    ),
    config: Path | None = _PRICES,
) -> None:
    """Write the evaluation report (HTML + PNG plots + summary.json); print its headline figures
    and where it is."""
    from colmeia.apps.moderation.headline import SIMULATED, report_headline
    from colmeia.apps.moderation.report import write_report

    try:
        options = _report_options(lang, labels, top, min_group, config)
        files = write_report(
            results, [*gold, *(more_gold or [])], out, options=options, verdicts_file=verdicts
        )
    except ColmeiaError as exc:
        raise fail(exc) from None
    table = Table(title=f"{results.name}: first review against the labels", title_justify="left")
    table.add_column("metric")
    table.add_column("value", justify="right")
    summary = json.loads(files.summary.read_text(encoding="utf-8"))
    for metric, value in report_headline(summary):
        table.add_row(metric, value)
    console.print(table)
    if summary.get("simulated"):
        console.print(f"[yellow]{SIMULATED}[/]", highlight=False)
    console.print(f"report:  {files.html}", highlight=False)
    console.print(f"summary: {files.summary}", highlight=False)
    console.print(f"plots:   {len(files.images)} PNG files in {out}", highlight=False)


@app.command()
def compare(
    a: Path = typer.Argument(..., help="Results file of run A."),
    b: Path = typer.Argument(..., help="Results file of run B."),
    more_gold: list[Path] = typer.Argument(None, hidden=True),
    gold: list[Path] = typer.Option(..., "--gold", help="The labelled inputs both runs read."),
    out: Path = typer.Option(..., "--out", "-o", help="Folder for compare.html, PNGs, JSON."),
    name_a: str | None = typer.Option(None, "--name-a", help="How to call run A (default: model)."),
    name_b: str | None = typer.Option(None, "--name-b", help="How to call run B."),
    lang: str = _LANG,
    labels: Path | None = _LABELS,
    config: Path | None = _PRICES,
) -> None:
    """Two runs side by side on the same inputs, with the items whose outcome differs: the
    headline figures, whether the difference is significant, and what changed between them."""
    from colmeia.apps.moderation.compare import compare_runs
    from colmeia.apps.moderation.headline import SIMULATED, comparison_headline

    try:
        options = _report_options(lang, labels, 8, 5, config)
        names = (name_a, name_b) if name_a and name_b else None
        files = compare_runs(a, b, [*gold, *(more_gold or [])], out, names=names, options=options)
    except ColmeiaError as exc:
        raise fail(exc) from None
    head = comparison_headline(json.loads(files.summary.read_text(encoding="utf-8")))
    a_name, b_name = head.names
    table = Table(
        title=f"{head.shared} shared items: {a_name} (A) vs {b_name} (B)", title_justify="left"
    )
    for column in ("metric", "A", "B", "B − A"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    for row in head.rows:
        table.add_row(*row)
    console.print(table)
    console.print(
        f"first review right only in A: {head.right_only[0]}, only in B: {head.right_only[1]} — "
        f"{head.verdict} ({head.test})",
        highlight=False,
    )
    if head.settings is None:
        console.print("what changed: unknown (a run has no manifest)", highlight=False)
    elif not head.settings:
        console.print("what changed: nothing (same settings, templates and policy)")
    else:
        console.print("what changed between the runs:", highlight=False)
        for change in head.settings:
            console.print(f"  [bold yellow]≠[/] {escape(change)}", highlight=False)
    if head.simulated:
        console.print(f"[yellow]{SIMULATED}[/]", highlight=False)
    console.print(f"comparison: {files.html}", highlight=False)
    console.print(f"data:       {files.summary}", highlight=False)


@app.command()
def sample(
    inputs: list[Path] = typer.Argument(..., help="Labelled record files or folders."),
    out: Path = typer.Option(
        ..., "--out", "-o", help="Folder for sets/sample_NNN.json, profile.html, sample.json."
    ),
    size: int = typer.Option(
        200, "--size", "-n", min=2, help="Records in the sample (half each label)."
    ),
    file_size: int = typer.Option(100, "--file-size", min=1, help="Records per file."),
    min_confidence: float = typer.Option(
        0.9,
        "--min-confidence",
        min=0,
        max=1,
        help="Keep records whose intent confidence is above this.",
    ),
    by: str = typer.Option(
        "intent", "--by", help="Spread the sample evenly over: intent, category or none."
    ),
    seed: int = typer.Option(0, "--seed", help="Same inputs and seed, same files."),
    labels: Path | None = _LABELS,
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace a sample already in --out."),
    paper: bool = typer.Option(
        False,
        "--paper",
        help="The paper's selection: the most confident records of each label, half of each "
        "per file, each file most confident first (no randomness; --by and --seed unused).",
    ),
) -> None:
    """Build the paper's experiment sets: filter by intent confidence, balance correct and
    incorrect answers over the intents, split into files, and profile the data (Tables 1-2)."""
    from colmeia.apps.moderation.labels import LabelMap
    from colmeia.apps.moderation.sample import sample_records

    try:
        if by not in ("intent", "category", "none"):
            raise ConfigurationError(f"--by must be intent, category or none, not {by!r}")
        result = sample_records(
            inputs,
            out,
            size=size,
            file_size=file_size,
            min_confidence=min_confidence,
            by=by,  # type: ignore[arg-type]
            seed=seed,
            labels=LabelMap.load(labels),
            overwrite=overwrite,
            paper=paper,
        )
    except ColmeiaError as exc:
        raise fail(exc) from None
    left = ", ".join(f"{k} {v}" for k, v in sorted(result.left_out.items())) or "none"
    console.print(
        f"pool {result.pool} records (left out: {escape(left)}); sample {result.sampled} "
        f"({result.correct} correct, {result.incorrect} incorrect) in {len(result.files)} "
        f"file(s) → {out / 'sets'}",
        highlight=False,
    )
    if result.shortfall:
        err_console.print(
            f"[yellow]warning:[/] {result.shortfall} fewer records than --size: the pool has "
            "too few of one label to stay balanced",
            highlight=False,
        )
    console.print(f"profile: {result.profile_html}", highlight=False)
    console.print(
        f"next:    colmeia moderate run {out / 'sets'} --out results.jsonl", highlight=False
    )


# ---------------------------------------------------------------------------------- policy

policy_app = typer.Typer(help="The store policy: explain it, validate a policy file.")
app.add_typer(policy_app, name="policy")


def _policy_set(file: Path | None) -> PolicySet:
    from colmeia.apps.moderation.policy import NO_POLICY, PolicySet, load_policy

    if file is None:
        return PolicySet()
    if str(file) == NO_POLICY and not file.exists():
        return PolicySet.none()
    return load_policy(file)


@policy_app.command("show")
def policy_show(
    file: Path | None = typer.Argument(
        None, help="A policy file, or 'none'; without it, the built-in default."
    ),
) -> None:
    """Explain each rule of a policy (the built-in default when no file is given)."""
    try:
        policy = _policy_set(file)
    except ColmeiaError as exc:
        raise fail(exc) from None
    for line in policy.explain():
        console.print(escape(line), highlight=False, soft_wrap=True)


@policy_app.command("check")
def policy_check(file: Path = typer.Argument(..., help="The policy file to validate.")) -> None:
    """Validate a policy file: every problem on its own line with the file's line number."""
    from colmeia.apps.moderation.policy import policy_problems

    policy, problems = policy_problems(file)
    if policy is None or problems:
        for problem in problems:
            err_console.print(escape(problem), highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_USAGE)
    console.print(f"{file}: valid — {escape(policy.summary())}", highlight=False, soft_wrap=True)
    console.print("effective policy (default, then category, then store):", highlight=False)
    for line in policy.effective():
        console.print(f"  {escape(line)}", highlight=False, soft_wrap=True)


# ---------------------------------------------------------------------------------- review


def _item_panel(item: ReviewItem, verdict: VerdictRecord | None) -> Panel:
    body = Text()

    def field(name: str, value: str, style: str = "") -> None:
        body.append(f"{name}: ", style="bold")
        body.append(value + "\n", style=style)

    field("question", item.question)
    field("original", item.original)
    if item.feedback:
        field("merchant feedback", item.feedback, "blue")
    if item.proposed is not None:
        label = "rewrite" if item.outcome == "ANSWER_REVISED" else "last rewrite (withheld)"
        field(label, item.proposed)
        body.append("diff: ", style="bold")
        if console.color_system is None:
            # Piped or redirected: strike-through and colours are lost, and the removed and
            # added words would run together; write them as [-removed-]{+added+}.
            from colmeia.apps.moderation.review import diff_text

            body.append(diff_text(item.diff()))
        else:
            for op, text in item.diff():
                style = {"-": "red strike", "+": "green"}.get(op, "")
                body.append(text, style=style)
        body.append("\n")
    field("why", item.reason or "—")
    for role, text in item.reviews:
        field(role, text, "dim")
    for v in item.violations:
        field("policy", v, "yellow")
    if verdict is not None:
        stale = verdict.answer_sha != item.answer_sha
        field(
            "verdict",
            f"{verdict.verdict} by {verdict.by} at {verdict.at}"
            + (f" — {verdict.note}" if verdict.note else "")
            + (" (stale: the item was moderated again since)" if stale else ""),
            "magenta",
        )
    scores = item.scores_original + (f" → {item.scores_final}" if item.scores_final else "")
    title = (
        f"{item.key} · [{_STYLE.get(item.outcome, '')}]{item.outcome}[/] · {item.locale or '?'} · "
        f"{escape(item.category or '-')} / {escape(item.intent or '-')} · scores {scores} · "
        f"{item.revisions} rewrite(s)"
    )
    return Panel(body, title=title, title_align="left")


def _ask_edit(item: ReviewItem) -> str:
    """The edited answer: in $VISUAL/$EDITOR on a terminal, else one line at the prompt."""
    start = item.proposed or item.original
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not (sys.stdin.isatty() and editor):
        return str(typer.prompt("edited answer (one line)", default=start)).strip()
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as fh:
        fh.write(start)
    try:
        # An argument list, no shell: the text never reaches a command line.
        subprocess.run([*shlex.split(editor), fh.name], check=False)
        return Path(fh.name).read_text(encoding="utf-8").strip()
    finally:
        os.unlink(fh.name)


@app.command()
def review(
    results: Path = typer.Argument(..., help="Results file written by `colmeia moderate run`."),
    outcome: list[str] = typer.Option(
        ["revised", "withheld"],
        "--outcome",
        help="Which items: revised, withheld, kept, error (repeat the option for several).",
    ),
    category: str | None = typer.Option(
        None, "--category", help="Only this category (any label of its pt/es group)."
    ),
    locale: str | None = typer.Option(None, "--locale", help="Only this locale (pt, es…)."),
    pending: bool = typer.Option(False, "--pending", help="Only items without a verdict."),
    limit: int = typer.Option(20, "--limit", min=1, help="Items to show when listing."),
    verdicts: Path | None = typer.Option(
        None, "--verdicts", help="Verdicts file (default: RESULTS.verdicts.jsonl beside it)."
    ),
    by: str | None = typer.Option(None, "--by", help="Who gives the verdict (default: login)."),
    interactive: bool = typer.Option(
        False, "--interactive", "-i", help="Go through the queue: accept, reject or edit each."
    ),
    accept: str | None = typer.Option(None, "--accept", help="Accept the item with this key."),
    reject: str | None = typer.Option(None, "--reject", help="Reject the item with this key."),
    edit: str | None = typer.Option(None, "--edit", help="Edit the item with this key (--text)."),
    text: str | None = typer.Option(None, "--text", help="The edited answer, with --edit."),
    note: str = typer.Option("", "--note", help="A note kept with the verdict."),
    export: Path | None = typer.Option(
        None, "--export", help="Write the (filtered) queue with verdicts to a .csv or .xlsx file."
    ),
) -> None:
    """The review queue: list revised/withheld items, record human verdicts, export them."""
    from colmeia.apps.moderation import review as rv
    from colmeia.apps.moderation.report import check_report_inputs
    from colmeia.apps.moderation.results import read_results

    try:
        check_report_inputs(results, [])
        items = rv.review_items(read_results(results))
        log = rv.VerdictLog(verdicts or rv.verdicts_path(results))
        latest = log.latest()
        reviewer = by or rv.default_reviewer()
        given = [(k, v) for k, v in (("accept", accept), ("reject", reject), ("edit", edit)) if v]
        if len(given) > 1:
            raise ConfigurationError("give one of --accept, --reject, --edit at a time")
        if given:
            verdict, key = given[0]
            by_key = {i.key: i for i in items}
            if key not in by_key:
                raise ConfigurationError(f"no item with key {key!r} in {results}")
            record = rv.VerdictRecord.of(
                by_key[key], verdict, by=reviewer, note=note, edited_answer=text
            )
            log.append(record)
            console.print(f"recorded: {key} {verdict} by {record.by} → {log.path}", highlight=False)
            return
        current = _current_keys(items, latest)
        full = rv.filter_items(items, outcomes=outcome, category=category, locale=locale)
        queue = [i for i in full if i.key not in current] if pending or interactive else full
        if export is not None:
            path = rv.export(queue, latest, export)
            console.print(f"exported {len(queue)} items → {path}", highlight=False)
            return
    except ColmeiaError as exc:
        raise fail(exc) from None
    judged = sum(1 for i in full if i.key in current)
    console.print(
        f"{len(full)} items in the queue ({len(full) - judged} without a verdict); "
        f"verdicts: {log.path}",
        highlight=False,
    )
    if not interactive:
        for item in queue[:limit]:
            console.print(_item_panel(item, latest.get(item.key)))
        if len(queue) > limit:
            console.print(f"… {len(queue) - limit} more (--limit, or filter the queue)")
        return
    _interactive(queue, log, reviewer)


def _current_keys(items: list[ReviewItem], latest: dict[str, VerdictRecord]) -> set[str]:
    """Keys whose latest verdict is about the answer the item has now."""
    return {
        i.key
        for i in items
        if (v := latest.get(i.key)) is not None and v.answer_sha == i.answer_sha
    }


def _interactive(queue: list[ReviewItem], log: VerdictLog, reviewer: str) -> None:
    from colmeia.apps.moderation.review import VerdictRecord

    choices = {"a": "accept", "r": "reject", "e": "edit", "s": "skip", "q": "quit"}
    done = 0
    for n, item in enumerate(queue, start=1):
        console.print(_item_panel(item, None))
        try:
            answer = typer.prompt(
                f"[{n}/{len(queue)}] a=accept r=reject e=edit s=skip q=quit", default="s"
            )
        except typer.Abort:  # end of input (Ctrl-D, or a pipe that ran out)
            break
        choice = choices.get(str(answer).strip()[:1].lower(), "skip")
        if choice == "quit":
            break
        if choice == "skip":
            continue
        edited = _ask_edit(item) if choice == "edit" else None
        try:
            record = VerdictRecord.of(item, choice, by=reviewer, edited_answer=edited)
        except ColmeiaError as exc:
            err_console.print(f"[red]not recorded:[/] {escape(str(exc))}")
            continue
        log.append(record)
        done += 1
        console.print(f"recorded: {item.key} {choice} ({done} this session)", highlight=False)
        console.file.flush()
    console.print(f"{done} verdicts recorded in {log.path}", highlight=False)
