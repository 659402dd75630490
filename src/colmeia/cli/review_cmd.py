"""``colmeia review "question" | review import | review screen | review export`` and
``colmeia eval review``: the literature review app."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import orjson
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from typer.core import TyperGroup

from colmeia.cli.plumbing import fail
from colmeia.cli.progress import Progress
from colmeia.errors import ColmeiaError, ConfigurationError
from colmeia.eval.stats import mean_sd_text

if TYPE_CHECKING:
    from colmeia.store.base import OpenMode

T = TypeVar("T")
console = Console()
err_console = Console(stderr=True)


class _DefaultRun(TyperGroup):
    """``colmeia review "question" …`` means ``colmeia review run "question" …``."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["run", *args]
        return list(super().parse_args(ctx, args))


app = typer.Typer(help="Literature review over a collection of works.", cls=_DefaultRun)
_STORE = typer.Option(
    None, "--store", help="sqlite path or postgresql://… (default: COLMEIA_STORE)"
)


def _opened(store_url: str | None, mode: OpenMode = "read") -> Any:
    """The store opened to ``mode``: only ``import`` creates one; a review or an evaluation
    only reads, so a mistyped store path or collection is a one-line error that creates
    nothing."""
    from colmeia.cli.stores import opened_store as opened

    return opened(store_url, mode)


@contextmanager
def _embedder(settings: Any) -> Iterator[Any]:
    """The review's embedder (the configured one, else the offline one when installed: see
    :mod:`colmeia.apps.literature.defaults`), its connections closed afterwards."""
    from colmeia.apps.literature.defaults import review_embedder

    embedder = review_embedder(settings.embeddings)
    try:
        yield embedder
    finally:
        close = getattr(embedder, "close", None)
        if callable(close):
            close()


@contextmanager
def _session(
    store_url: str | None, label: str, unit: str, mode: OpenMode = "read"
) -> Iterator[tuple[Any, Any, Any, Any]]:
    """The store, settings, embedder and a progress display of one long command."""
    with (
        _opened(store_url, mode) as (store, settings),
        _embedder(settings) as embedder,
        Progress(label, unit=unit) as bar,
    ):
        yield store, settings, embedder, bar


def _model_and_reranker(settings: Any, no_model: bool) -> tuple[Any, Any]:
    """The configured chat model (``None`` without COLMEIA_LLM_BASE_URL or with
    ``--no-model``) and work reranker (``None`` for COLMEIA_RERANK_KIND=none). Call inside the
    event loop that will use them."""
    from colmeia.rag.rerank import reranker_from_settings

    model = None
    if settings.llm.base_url and not no_model:
        from colmeia.llm import OpenAIChatModel

        model = OpenAIChatModel.from_settings(settings.llm)
    if settings.rerank.kind == "llm" and model is None:
        return None, None  # an LLM reranker needs the model --no-model turned off
    reranker = reranker_from_settings(
        settings.rerank, model, prompt=("colmeia.apps.literature", "rerank_work.j2")
    )
    return model, reranker


def _run_with_model(settings: Any, no_model: bool, work: Callable[[Any, Any], Awaitable[T]]) -> T:
    """``work(model, reranker)`` in one event loop: the model is made inside it and its
    connections are closed before the loop ends (a client must not outlive its loop)."""

    async def go() -> T:
        model, reranker = _model_and_reranker(settings, no_model)
        try:
            return await work(model, reranker)
        finally:
            if model is not None:
                await model.aclose()

    return asyncio.run(go())


@app.command("run")
def run(
    question: str = typer.Argument(..., help="The review question."),
    collection: str = typer.Option(..., "--collection", "-c", help="Collection of works."),
    top: int = typer.Option(10, "--top", help="How many works."),
    out: Path | None = typer.Option(
        None, "--out", help="report.html | .json | .csv | .xlsx | .ris | .bib"
    ),
    year_from: int | None = typer.Option(None, help="Only works from this year on."),
    year_to: int | None = typer.Option(None, help="Only works up to this year."),
    doc_type: str | None = typer.Option(None, help="Only this type (tese, dissertação…)."),
    program: str | None = typer.Option(None, help="Only works of this graduate program."),
    no_model: bool = typer.Option(
        False, "--no-model", help="Extractive fields even if a model is set."
    ),
    relevance_bar: str = typer.Option(
        "média", "--relevance-bar", help="alta|média|baixa: below it, 'nothing relevant'."
    ),
    column: list[str] = typer.Option(
        [],
        "--column",
        help="An extraction column of your own, 'name: question' (repeat for more), "
        "e.g. 'método: qual o método de pesquisa?'.",
    ),
    store_url: str | None = _STORE,
) -> None:
    """Find the works that answer QUESTION and read each one (summary, objectives,
    conclusions, relevance), every statement citing passages and printed pages."""
    from colmeia.apps.literature import arun_review, export_review
    from colmeia.apps.literature.columns import fill_columns, parse_column
    from colmeia.rag.retrieve import Filters

    try:
        columns = [parse_column(c) for c in column]
    except ColmeiaError as exc:
        raise fail(exc) from None

    async def review_and_fill(model: Any, reranker: Any) -> Any:
        done = await arun_review(
            store,
            collection,
            question,
            top=top,
            model=model,
            model_name=settings.llm.model if model else "",
            embedder=embedder,
            filters=filters if filters.active() else None,
            cache_dir=settings.home / "review-cache",
            reranker=reranker,
            progress=lambda d, t, info: bar.update(d, t, info=info),
            relevance_bar=relevance_bar,
        )
        return await fill_columns(done, columns, model) if columns else done

    with _opened(store_url) as (store, settings), _embedder(settings) as embedder:
        filters = Filters(doc_type=doc_type, year_from=year_from, year_to=year_to, program=program)
        with Progress("review", unit="works") as bar:
            review = _run_with_model(settings, no_model, review_and_fill)
        _attach_library(review, store, settings)
        target = out or settings.home / "reviews" / "last.json"
        export_review(review, target)
        if target.suffix.lower() != ".json":
            review.save(target.with_suffix(".review.json"))
    table = Table(title=f"{question} — {len(review.works)} works")
    for col in (
        "#",
        "work",
        "year",
        "relevance",
        "objectives",
        "cites",
        *(c.name for c in columns),
    ):
        table.add_column(col, overflow="fold")
    for w in review.works:
        obj = w.objectives.text if w.objectives else ""
        cites = dict.fromkeys(
            label for f in (w.summary, w.objectives, w.conclusions) for label in w.cited_pages(f)
        )
        extra = []
        for c in columns:
            value = w.columns.get(c.name)
            pages = w.cited_pages(value)
            extra.append(
                (value.text[:160] if value else "") + (f" [{'; '.join(pages)}]" if pages else "")
            )
        table.add_row(
            str(w.rank),
            w.title[:80],
            str(w.year or ""),
            w.relevance,
            obj[:160],
            ", ".join(cites),
            *extra,
        )
    console.print(table)
    if review.nothing_relevant:
        console.print(
            f"[yellow]nothing relevant:[/yellow] no work was read as {review.relevance_bar!r} "
            "or above for this question"
        )
    if not review.model:
        console.print("[dim](no language model configured: extractive fields)[/dim]")
    console.print(f"saved: {target}")


@app.command("ask")
def ask(
    question: str = typer.Argument(..., help="The question to answer across the works."),
    collection: str = typer.Option(..., "--collection", "-c", help="Collection of works."),
    works: int = typer.Option(5, "--works", help="How many works the answer draws on."),
    expand: bool = typer.Option(
        False, "--expand", help="Also search the model's rewritings of the question."
    ),
    no_model: bool = typer.Option(
        False, "--no-model", help="Extractive answer even if a model is set."
    ),
    store_url: str | None = _STORE,
    as_json: bool = typer.Option(False, "--json", help="Print the answer as JSON."),
) -> None:
    """One answer synthesised across the works, each claim citing work and page."""
    from colmeia.apps.literature.synthesis import ask_collection

    with _opened(store_url) as (store, settings), _embedder(settings) as embedder:
        try:
            result = _run_with_model(
                settings,
                no_model,
                lambda model, _reranker: ask_collection(
                    store,
                    collection,
                    question,
                    model=model,
                    model_name=settings.llm.model if model else "",
                    embedder=embedder,
                    works=works,
                    expand=expand,
                ),
            )
        except ColmeiaError as exc:
            raise fail(exc) from None
    if as_json:
        sys.stdout.write(orjson.dumps(result.as_dict()).decode() + "\n")
        return
    console.print(result.text())
    cited = {i for c in result.claims for i in c.sources}
    for s in result.sources:
        if s.id in cited:
            console.print(f"[dim]{s.id} {s.label()} {s.title[:90]}[/dim]")
    for note in result.removed:
        console.print(f"[yellow]removed:[/yellow] {note}")
    if result.mode == "extractive":
        console.print("[dim](no language model: extractive answer)[/dim]")


@app.command("import")
def import_(
    sources: list[Path] = typer.Argument(..., help="RIS, BibTeX or CSV exports."),
    collection: str = typer.Option(..., "--collection", "-c", help="Collection to fill."),
    pdfs: Path | None = typer.Option(None, "--pdfs", help="Folder with the works' PDFs."),
    fetch: bool = typer.Option(False, "--fetch", help="Download missing PDFs from record links."),
    max_mb: float = typer.Option(60.0, help="Size limit of one fetched PDF."),
    timeout: float = typer.Option(60.0, help="Seconds for one fetched PDF."),
    delay: float = typer.Option(1.0, "--delay", help="Seconds between requests to one host."),
    doi_resolver: str = typer.Option(
        "https://doi.org/", "--doi-resolver", help="Where DOIs are resolved (a proxy, say)."
    ),
    store_url: str | None = _STORE,
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Import records (deduplicated), match or fetch their PDFs and index the works."""
    from colmeia.apps.literature import FetchLimits, import_library

    with _session(store_url, "import", "works", "create") as (store, settings, embedder, bar):
        report = import_library(
            store,
            collection,
            sources,
            pdf_dir=pdfs,
            fetch=fetch,
            limits=FetchLimits(int(max_mb * 1e6), timeout, host_delay=delay),
            allow_private=settings.search.allow_private,
            doi_resolver=doi_resolver,
            embedder=embedder,
            progress=lambda p: bar.update(p.files_done, p.files_total or None),
        )
        taken = _carry_decisions(store, settings, collection, sources)
    if as_json:
        sys.stdout.write(orjson.dumps(report.as_dict()).decode() + "\n")
        return
    if taken:
        console.print(f"{taken} screening decisions carried by the files kept")
    ing = report.ingest
    console.print(
        f"[bold]{collection}[/bold]: {report.records} works ({report.duplicates} duplicates "
        f"merged), {report.with_pdf} with full text, {report.fetched} fetched; "
        f"{ing.added if ing else 0} added, {ing.updated if ing else 0} updated"
    )
    if report.fetch:
        fetched = Table(title="full text fetched from the records' links")
        for col in ("work", "outcome", "address", "detail"):
            fetched.add_column(col, overflow="fold")
        for o in report.fetch[:100]:
            fetched.add_row(o.title[:60], o.outcome, o.url[:80], o.detail[:120])
        console.print(fetched)
    if report.missing:
        table = Table(title=f"{len(report.missing)} works without full text")
        table.add_column("work", overflow="fold")
        table.add_column("why", overflow="fold")
        for m in report.missing[:100]:
            table.add_row(m.title[:90], m.reason)
        console.print(table)
    for source, reason in report.problems[:50]:
        console.print(f"[yellow]{source}[/yellow]: {reason}")


def _library_log(store: Any, settings: Any, collection: str) -> tuple[Any, Path]:
    """The collection's screening (the library's one record of decisions) and its file."""
    from colmeia.apps.literature.screening import ScreeningLog, screening_file

    path = screening_file(settings.home, store.url, collection)
    return ScreeningLog.load(path, collection), path


def _attach_library(review: Any, store: Any, settings: Any) -> None:
    """Show the library's decisions and PRISMA counts on a review."""
    from colmeia.apps.literature.library_screening import attach_screening

    log, _ = _library_log(store, settings, review.collection)
    attach_screening(review, store, log)


def _who(who: str) -> str:
    """Who screens: ``--who``, else the login name (kept with every decision)."""
    import getpass

    if who.strip():
        return who
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""


def _carry_decisions(store: Any, settings: Any, collection: str, sources: list[Path]) -> int:
    """Screening decisions in the imported files (a colmeia export) → the collection's log."""
    from colmeia.apps.literature.screening import ScreeningLog, import_decisions, screening_file

    path = screening_file(settings.home, store.url, collection)
    log = ScreeningLog.load(path, collection)
    taken = import_decisions(log, sources)
    if taken:
        log.save(path)
    return taken


@app.command("screen")
def screen(
    review_file: Path | None = typer.Argument(
        None, help="A saved review (.json), to screen its works; omit with --collection."
    ),
    work: str | None = typer.Argument(None, help="The work's id or its rank in the review."),
    include: bool = typer.Option(False, "--include", help="Include the work (saved review)."),
    exclude: bool = typer.Option(False, "--exclude", help="Exclude the work (saved review)."),
    collection: str | None = typer.Option(
        None, "--collection", "-c", help="Screen every work of this collection."
    ),
    decide: tuple[str, str] | None = typer.Option(
        None, "--decide", help="ID include|exclude: record a decision (with --collection)."
    ),
    next_n: int = typer.Option(0, "--next", help="Show the next N works to screen."),
    stage: str = typer.Option(
        "title", "--stage", help="title (title/abstract) or full (full text) screening."
    ),
    question: str = typer.Option(
        "", "--question", help="The review question: orders the queue before any decision."
    ),
    reason: str = typer.Option("", "--reason", help="Why (required to exclude)."),
    notes: str = typer.Option("", "--notes", help="Notes kept with the decision."),
    who: str = typer.Option("", "--who", help="Who decides (default: your login name)."),
    interactive: bool = typer.Option(
        False, "--interactive", help="Prompt work by work even when input is not a terminal."
    ),
    store_url: str | None = _STORE,
    as_json: bool = typer.Option(False, "--json", help="Print the queue and counts as JSON."),
) -> None:
    """Screen works. With --collection: the whole collection, title/abstract then full
    text, the queue ordered by active learning from the decisions so far, PRISMA counts
    printed; interactive when neither --decide nor --next is given. With a saved review: an
    include/exclude decision on one of its works."""
    stages = {"title": "title_abstract", "full": "full_text"}
    if stage not in stages:
        raise fail(ConfigurationError(f"--stage is title or full, not {stage!r}"))
    if collection is None:
        _screen_review(
            review_file, work, include, exclude, reason, notes, stages[stage], _who(who), store_url
        )
        return
    from colmeia.apps.literature.screening import ScreeningLog, screening_file

    with _opened(store_url) as (store, settings):
        path = screening_file(settings.home, store.url, collection)
        try:
            log = ScreeningLog.load(path, collection)
            if question:
                log.question = question
            if decide is not None:
                doc_id = _work_id(store, collection, decide[0])
                log.decide(doc_id, decide[1], reason, notes, stage=stages[stage], who=_who(who))  # type: ignore[arg-type]
                log.save(path)
            elif question:
                log.save(path)
            if interactive or (decide is None and next_n <= 0 and not as_json):
                _screen_interactively(store, collection, log, path, interactive, _who(who))
            _print_screening(store, collection, log, next_n, as_json)
        except ColmeiaError as exc:
            raise fail(exc) from None


def _work_id(store: Any, collection: str, given: str) -> str:
    """The work a user named: its id, or an unambiguous start of it (``rec:1a2b``)."""
    from colmeia.errors import InputError

    ids: list[str] = [str(d.doc_id) for d in store.documents(collection)]
    if given in ids:
        return given
    matches = [i for i in ids if i.startswith(given) or i.split(":", 1)[-1].startswith(given)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise InputError(f"no work {given!r} in {collection} (see --next for the ids)")
    raise InputError(f"{given!r} names {len(matches)} works in {collection}; give more of the id")


def _print_screening(store: Any, collection: str, log: Any, next_n: int, as_json: bool) -> None:
    from colmeia.apps.literature.screening import prisma_flow, screening_queue

    queue = screening_queue(store, collection, log, next_n) if next_n > 0 else []
    counts = prisma_flow(store, collection, log)
    if as_json:
        data = {"prisma": counts, "next": [q.as_dict() for q in queue]}
        sys.stdout.write(orjson.dumps(data).decode() + "\n")
        return
    if queue:
        table = Table(title=f"next {len(queue)} to screen ({queue[0].basis})")
        for col in ("id", "year", "work", "score"):
            table.add_column(col, overflow="fold")
        for q in queue:
            table.add_row(q.doc_id, str(q.year or ""), q.title[:100], f"{q.score:.3f}")
        console.print(table)
    console.print(counts)


def _screen_interactively(
    store: Any, collection: str, log: Any, path: Path, forced: bool = False, who: str = ""
) -> None:
    """One work at a time: [i]nclude, [e]xclude (asks why), [s]kip, [q]uit; saved after
    every decision."""
    from colmeia.apps.literature.screening import screening_queue

    if not forced and not sys.stdin.isatty():
        err_console.print("[red]error:[/red] give --decide ID include|exclude or --next N")
        raise typer.Exit(2)
    skipped: set[str] = set()
    while True:
        queue = [
            q
            for q in screening_queue(store, collection, log, len(skipped) + 1)
            if q.doc_id not in skipped
        ]
        if not queue:
            return
        item = queue[0]
        console.rule(f"{item.title} ({item.year or 's.d.'})")
        console.print(item.abstract or "[dim](no abstract)[/dim]")
        console.print(f"[dim]{item.doc_id} · {item.basis} {item.score:.3f}[/dim]")
        answer = typer.prompt("[i]nclude / [e]xclude / [s]kip / [q]uit", default="s").lower()
        if answer.startswith("q"):
            return
        if answer.startswith("s"):
            skipped.add(item.doc_id)
            continue
        if answer.startswith("i"):
            log.decide(item.doc_id, "include", "", typer.prompt("notes", default=""), who=who)
        elif answer.startswith("e"):
            log.decide(item.doc_id, "exclude", typer.prompt("reason"), who=who)
        else:
            console.print("[yellow]answer i, e, s or q[/yellow]")
            continue
        log.save(path)


def _screen_review(
    review_file: Path | None,
    work: str | None,
    include: bool,
    exclude: bool,
    reason: str,
    notes: str,
    stage: str,
    who: str,
    store_url: str | None,
) -> None:
    """Record a decision on a work of a saved review in its library's screening (every
    review of the collection shows it); the review is refreshed and saved, and the PRISMA
    counts of the review and of the library printed."""
    from colmeia.apps.literature import Review, prisma_counts
    from colmeia.apps.literature.library_screening import screen_in_library

    if review_file is None or work is None:
        err_console.print("[red]error:[/red] give REVIEW_FILE WORK, or --collection NAME")
        raise typer.Exit(2)
    if include == exclude:
        err_console.print("[red]error:[/red] give --include or --exclude")
        raise typer.Exit(2)
    try:
        review = Review.load(review_file)
    except ColmeiaError as exc:
        raise fail(exc) from None
    with _opened(store_url) as (store, settings):
        log, path = _library_log(store, settings, review.collection)
        screen_in_library(
            review,
            store,
            log,
            work,
            "include" if include else "exclude",
            reason=reason,
            notes=notes,
            stage=stage,  # type: ignore[arg-type]
            who=who,
        )
        log.save(path)
        review.save(review_file)
    console.print(prisma_counts(review))
    console.print({"library": review.library_prisma})


@app.command("export")
def export(
    review_file: Path | None = typer.Argument(
        None, help="A saved review (.json); omit with --library."
    ),
    out: Path | None = typer.Argument(
        None, help="report.html | .csv | .xlsx | .ris | .bib | .json"
    ),
    library: bool = typer.Option(
        False, "--library", help="Export every work of --collection with its decisions."
    ),
    collection: str | None = typer.Option(
        None, "--collection", "-c", help="The collection (with --library)."
    ),
    store_url: str | None = _STORE,
) -> None:
    """Write a saved review, or the whole library (``--library -c NAME OUT``), with the
    library's screening decisions, in another format."""
    from colmeia.apps.literature import Review, export_review
    from colmeia.apps.literature.library_screening import library_review

    if library:
        target = out or review_file  # `export --library -c NAME OUT`: OUT is the one argument
        if collection is None or target is None or (out is not None and review_file is not None):
            err_console.print("[red]error:[/red] give --library --collection NAME OUT")
            raise typer.Exit(2)
        with _opened(store_url) as (store, settings):
            log, _ = _library_log(store, settings, collection)
            path = export_review(library_review(store, collection, log), target)
        console.print(
            f"saved: {path} (the whole library: {len(log.stages['title_abstract'])} screened)"
        )
        return
    if review_file is None or out is None:
        err_console.print("[red]error:[/red] give REVIEW_FILE OUT, or --library -c NAME OUT")
        raise typer.Exit(2)
    try:
        review = Review.load(review_file)
    except ColmeiaError as exc:
        raise fail(exc) from None
    from colmeia.cli.stores import open_store_for

    try:
        store, settings = open_store_for(store_url, "read")
    except ColmeiaError:
        store = None  # no store here: the review as it was saved
    try:
        if store is not None and store.collection(review.collection) is not None:
            _attach_library(review, store, settings)  # the decisions as they are now
        path = export_review(review, out)
    except ColmeiaError as exc:
        raise fail(exc) from None
    finally:
        if store is not None:
            store.close()
    console.print(f"saved: {path}")


def eval_review(
    collection: str = typer.Option(..., "--collection", "-c", help="Collection of works."),
    limit: int | None = typer.Option(None, "--limit", help="Evaluate on this many works."),
    depth: int = typer.Option(100, help="Works retrieved per query."),
    generation: int = typer.Option(
        20, "--generation", help="Queries whose review is judged (needs a model)."
    ),
    no_model: bool = typer.Option(
        False, "--no-model", help="Offline queries and no generation metrics, even with a model."
    ),
    out: Path | None = typer.Option(None, "--out", help="Folder for report.html and eval.json."),
    queries_file: Path | None = typer.Option(
        None, "--queries", help="Queries saved by --save-queries (JSON lines): no new ones made."
    ),
    save_queries_to: Path | None = typer.Option(
        None, "--save-queries", help="Write the synthetic queries here (JSON lines)."
    ),
    expand: bool = typer.Option(
        False, "--expand", help="Also rank with the model's rewritings of each query (fused)."
    ),
    generation_works: int = typer.Option(
        5, "--generation-works", min=1, help="Works read and judged per generation query."
    ),
    query_set: str = typer.Option(
        "abstracts",
        "--set",
        help="abstracts (one query per work from its abstract) | paraphrases (questions in "
        "other words: the model's, or the shipped set over the CAPES catalogue) | labelled "
        "(the repository's data/theses/labelled.jsonl, as --labelled).",
    ),
    labelled_file: Path | None = typer.Option(
        None,
        "--labelled",
        help="A labelled set (JSON lines: id, question, relevant record ids): P@5, "
        "recall@5/@10, MRR and nDCG@10 per ranking, offline.",
    ),
    paraphrases_file: Path | None = typer.Option(
        None,
        "--paraphrases",
        help="A paraphrase set (JSON lines: title, year, question), e.g. "
        "data/theses/paraphrases/dev.jsonl, instead of the shipped one.",
    ),
    store_url: str | None = _STORE,
    as_json: bool = typer.Option(False, "--json", help="Print one JSON line."),
) -> None:
    """Synthetic queries from abstracts: MR, MRR, P@1, not-found@5 for lexical, dense,
    hybrid and reranked (and a model reranker when COLMEIA_RERANK_KIND is set), a sweep of the
    candidate count; with a model (COLMEIA_LLM_BASE_URL), queries written by it and the
    generation metrics judged by it. With --labelled (or --set labelled), a labelled set of
    questions with several relevant works each instead."""
    from colmeia.apps.literature.evaluate import aevaluate_review, load_queries, save_queries
    from colmeia.apps.literature.report import eval_report

    if query_set not in ("abstracts", "paraphrases", "labelled"):
        raise fail(
            ConfigurationError(f"--set is abstracts, paraphrases or labelled, not {query_set!r}")
        )
    if labelled_file is not None or query_set == "labelled":
        given_options = [queries_file, save_queries_to, paraphrases_file]
        if any(o is not None for o in given_options) or query_set == "paraphrases":
            raise fail(
                ConfigurationError(
                    "a labelled set brings its own questions: drop --queries, --save-queries, "
                    "--paraphrases and --set paraphrases"
                )
            )
        _eval_labelled(collection, labelled_file, depth, no_model, out, store_url, as_json)
        return
    try:
        given = load_queries(queries_file) if queries_file is not None else None
    except ColmeiaError as exc:
        raise fail(exc) from None
    with _session(store_url, "eval", "queries") as (store, settings, embedder, bar):
        report = _run_with_model(
            settings,
            no_model,
            lambda model, reranker: aevaluate_review(
                store,
                collection,
                embedder=embedder,
                model=model,
                reranker=reranker,
                limit=limit,
                depth=depth,
                generation_queries=generation,
                progress=lambda d, t, info: bar.update(d, t, info=info),
                queries=given,
                query_set="paraphrases" if query_set == "paraphrases" else "abstracts",
                expand=expand,
                paraphrases=paraphrases_file,
                generation_works=generation_works,
            ),
        )
    if save_queries_to is not None:
        save_queries(report.query_list, save_queries_to)
    data = report.as_dict()
    if out is not None:
        eval_report(report, out)
    if as_json:
        sys.stdout.write(orjson.dumps(data).decode() + "\n")
        return
    table = Table(
        title=f"{collection}: {report.queries} queries ({report.query_source}; "
        f"{report.excluded_title} title-like left out)"
    )
    # the ranking's name and the time with its spread are never cut: on a narrow terminal the
    # headers of the other columns wrap instead ("0.0065 ±" over "0.0078" reads as two figures)
    table.add_column("ranking", no_wrap=True)
    for col in ("MR (all)", "MR (found)", "MRR", "P@1", "not found@5", "copied 3-grams"):
        table.add_column(col, justify="right")
    table.add_column("s/query", justify="right", no_wrap=True)
    for name, m in report.variants.items():
        table.add_row(
            name,
            str(m["mean_rank"]),
            str(m["mean_rank_found"]),
            str(m["mrr"]),
            str(m["p@1"]),
            str(m["not_found@5"]),
            str(m.get("copied_trigrams", "")),
            mean_sd_text(report.seconds.get(name), report.seconds_sd.get(name)),
        )
    console.print(table)
    prof = report.query_profile
    if prof.get("queries"):
        console.print(
            "queries: {words_mean} words on average ({words_min}-{words_max}; {share_40_80_words} "
            "within 40-80), abstract trigrams copied {copied_trigrams_mean}, title words "
            "repeated {title_words_repeated_mean}".format(**prof)
        )
    gen = report.generation
    if "skipped" in gen:
        console.print(f"[dim]generation: {gen['skipped']}[/dim]")
    else:
        _print_generation(
            gen, mean_sd_text(report.seconds.get("generation"), report.seconds_sd.get("generation"))
        )
    if out is not None:
        console.print(f"saved: {out / 'report.html'}")


def _print_generation(gen: dict[str, Any], seconds: str) -> None:
    """The generation figures: the first work with its control (as runs that judged only it
    gave them), every work judged, and per field mean ± sd."""
    console.print(
        "generation ({judged} of {queries} judged; first work): context relevance "
        "{context_relevance} (random context {context_relevance_random_context}), faithfulness "
        "{faithfulness} (random context {faithfulness_random_context}), answer relevance "
        "{answer_relevance} (random context {answer_relevance_random_context}), similarity "
        "to the abstract {answer_similarity_to_abstract}; with distractors mixed in, the "
        "work's passages judged relevant {context_relevance_with_distractors}, the "
        "distractors {distractors_judged_relevant}".format(**gen)
    )
    every = gen.get("all_works") or {}
    console.print(
        f"all {gen.get('works_judged')} works judged ({gen.get('works_per_query')} per query, "
        f"{gen.get('works_failed')} failed): context relevance {every.get('context_relevance')}, "
        f"faithfulness {every.get('faithfulness')}, answer relevance "
        f"{every.get('answer_relevance')}, similarity to the abstract "
        f"{every.get('answer_similarity_to_abstract')}; {seconds} s per query"
    )
    for name, figures in (gen.get("fields") or {}).items():
        rel, sim = figures["answer_relevance"], figures["similarity_to_abstract"]
        console.print(
            f"  {name}: answer relevance {mean_sd_text(rel['mean'], rel['sd'])} (n = {rel['n']}), "
            f"similarity {mean_sd_text(sim['mean'], sim['sd'])} (n = {sim['n']})"
        )


def _eval_labelled(
    collection: str,
    path: Path | None,
    depth: int,
    no_model: bool,
    out: Path | None,
    store_url: str | None,
    as_json: bool,
) -> None:
    """``eval review --labelled FILE``: a line that is not a labelled question is one line on
    stderr (its number, what is wrong) and is skipped; the rest are evaluated."""
    from colmeia.apps.literature.labelled import (
        METRICS,
        aevaluate_labelled,
        labelled_set_path,
        read_labelled,
    )
    from colmeia.apps.literature.report import labelled_report

    try:
        path = path if path is not None else labelled_set_path()
        questions, skipped = read_labelled(path)
    except ColmeiaError as exc:
        raise fail(exc) from None
    for line in skipped:
        typer.echo(f"error: {line}", err=True)
    with _session(store_url, "eval", "questions") as (store, settings, embedder, bar):
        report = _run_with_model(
            settings,
            no_model,
            lambda _model, reranker: aevaluate_labelled(
                store,
                collection,
                questions,
                embedder=embedder,
                reranker=reranker,
                depth=depth,
                source=str(path),
                progress=lambda d, t, info: bar.update(d, t, info=info),
            ),
        )
    report.skipped = skipped
    if out is not None:
        labelled_report(report, out)
    if as_json:
        sys.stdout.write(orjson.dumps(report.as_dict()).decode() + "\n")
        return
    table = Table(
        title=f"{collection}: {report.questions} labelled questions ({path.name}; "
        f"{len(skipped)} lines skipped)"
    )
    table.add_column("ranking", no_wrap=True)
    for col in ("P@5", "recall@5", "recall@10", "MRR", "nDCG@10"):
        table.add_column(col, justify="right")
    table.add_column("s/query", justify="right", no_wrap=True)
    for name, m in report.variants.items():
        spent = report.seconds[name]
        table.add_row(name, *(str(m[c]) for c in METRICS), mean_sd_text(spent["mean"], spent["sd"]))
    console.print(table)
    for note in report.notes:
        console.print(f"[dim]{escape(note)}[/dim]")
    if out is not None:
        console.print(f"saved: {out / 'report.html'}")
