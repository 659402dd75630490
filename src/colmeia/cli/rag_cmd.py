"""``colmeia ingest | search | ask | collections | delete | eval retrieval``: the RAG core."""

from __future__ import annotations

import csv
import functools
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import orjson
import typer
from rich.console import Console

from colmeia.cli.plumbing import command_usage, fail, run_and_close, say_if_simulated
from colmeia.cli.stores import open_store_for as _open
from colmeia.cli.stores import opened_store as _opened
from colmeia.errors import ColmeiaError, ConfigurationError, MissingStoreError

if TYPE_CHECKING:
    from colmeia.config import Settings
    from colmeia.rag.retrieve import Filters, Hit, Retriever
    from colmeia.store import Store

# Tables and progress bars (rich.table, rich.progress) are imported by the commands that show
# them: a search prints neither, and every module a command imports is start-up time.

app = typer.Typer(help="Ingest documents, search them and answer with citations.")

console = Console()
err_console = Console(stderr=True)

_STORE = typer.Option(
    None, "--store", help="sqlite path, sqlite:///path or postgresql://… (default: COLMEIA_STORE)"
)
_COLLECTION = typer.Option(..., "--collection", "-c", help="Collection name.")


_TOP = typer.Option(10, "-k", "--top", min=1, help="How many passages.")


def _retriever(
    store: Store, settings: Settings, collections: list[str], rerank: bool = True
) -> Retriever:
    from colmeia.rag.index.embedders import default_embedder
    from colmeia.rag.retrieve import Retriever

    reranker = None
    if rerank and settings.rerank.kind != "none":
        from colmeia.rag.rerank import reranker_from_settings

        model = None
        if settings.rerank.kind == "llm":
            from colmeia.llm import OpenAIChatModel

            model = OpenAIChatModel.from_settings(settings.llm)
        reranker = reranker_from_settings(settings.rerank, model)
    return Retriever(
        store, collections, embedder=default_embedder(settings.embeddings), reranker=reranker
    )


def _filters(doc_type: str | None, year: int | None) -> Filters:
    from colmeia.rag.retrieve import Filters

    return Filters(doc_type=doc_type, year=year)


@app.command()
def ingest(
    paths: list[Path] = typer.Argument(..., help="Files and folders (CSV: one document per row)."),
    collection: str = _COLLECTION,
    id_column: str | None = typer.Option(None, help="CSV column with the record id."),
    text_column: str | None = typer.Option(None, help="CSV column with the text."),
    title_column: str | None = typer.Option(None, help="CSV column with a title/label."),
    type_column: str | None = typer.Option(
        None, help="CSV column with the document type (Tese, Dissertação…), for --doc-type."
    ),
    date_column: str | None = typer.Option(
        None, help="CSV column with a date in any common format, for --year."
    ),
    metadata_column: list[str] = typer.Option(
        [], "--metadata-column", help="CSV columns kept as metadata (repeatable)."
    ),
    chunker: str = typer.Option("auto", help="auto | legal | paragraphs | recursive"),
    jurisprudence: bool = typer.Option(
        False,
        "--jurisprudence",
        help="Read CSV rows as court statements cited by their decision (JurisTCU's DOC_ID,TEXT;"
        " files with decision columns are read so anyway).",
    ),
    cut_front_matter: bool = typer.Option(False, help="Drop front matter of academic works."),
    cut_references: bool = typer.Option(False, help="Drop the references section."),
    store_url: str | None = _STORE,
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    engine: str = typer.Option(
        "local", "--engine", help="local, or ray: read, clean and chunk files in Ray tasks."
    ),
    workers: int = typer.Option(2, "--workers", min=1, help="Ray tasks at a time (x2 queued)."),
    address: str | None = typer.Option(
        None, "--address", help="Ray cluster: auto or ray://HOST:PORT; default: a local Ray."
    ),
) -> None:
    """Add files, folders and CSV rows to a collection (unchanged documents are skipped)."""
    from rich.table import Table

    from colmeia.cli.progress import Progress
    from colmeia.rag.index.embedders import default_embedder
    from colmeia.rag.pipeline import CsvColumns, IngestProgress
    from colmeia.rag.pipeline import ingest as run_ingest
    from colmeia.rag.retrieve import Retriever

    if engine not in ("local", "ray"):
        raise fail(ConfigurationError(f"--engine {engine!r}: use local or ray"))
    if engine == "ray":
        from colmeia.executors import ray_available

        if not ray_available():
            raise fail(
                ConfigurationError(
                    "--engine ray needs Ray: pip install 'colmeia[ray]' (or leave out --engine)"
                )
            )
    columns = None
    if (
        id_column
        or text_column
        or title_column
        or metadata_column
        or type_column
        or date_column
        or jurisprudence
    ):
        columns = CsvColumns(
            id_column or "",
            text_column or "",
            title_column,
            metadata_column or None,
            type_column,
            date_column,
            "jurisprudence" if jurisprudence else None,
        )
    with (
        _opened(store_url, "create") as (store, settings),
        Progress(
            "ingest",
            unit="files",
            resume="rerun the same command to continue (stored documents are skipped)",
            console=err_console,
            disable=as_json,
        ) as bar,
    ):
        embedder = default_embedder(settings.embeddings)

        def on_progress(p: IngestProgress) -> None:
            name = Path(p.current).name if p.current else ""
            bar.update(
                p.files_done, p.files_total, info=f"{p.documents} docs, {p.chunks} chunks {name}"
            )

        report = run_ingest(
            store,
            collection,
            paths,
            chunker=chunker,
            csv_columns=columns,
            embedder=embedder,
            cut_front_matter=cut_front_matter,
            cut_references=cut_references,
            progress=on_progress,
            ray_workers=workers if engine == "ray" else 0,
            ray_address=address,
            ray_embedder=functools.partial(default_embedder, settings.embeddings),
            memory_mb=settings.ingest_memory_mb,
        )
        if report.documents:
            bar.update(bar.done, info="building the search index")
            Retriever(store, collection, embedder=embedder).warm()
    if as_json:
        sys.stdout.write(orjson.dumps(report.as_dict()).decode() + "\n")
    else:
        console.print(
            f"[bold]{collection}[/bold]: {report.files} files, {report.added} added, "
            f"{report.updated} updated, {report.unchanged} unchanged, {report.chunks} new chunks"
        )
        if report.errors:
            table = Table(title=f"{len(report.errors)} not ingested", show_lines=False)
            table.add_column("source", overflow="fold")
            table.add_column("reason", overflow="fold")
            for e in report.errors[:200]:
                table.add_row(e.source, e.reason)
            console.print(table)
    if report.errors and not report.documents:
        raise typer.Exit(1)


def _print_hits(hits: list[Hit], query: str) -> None:
    if not hits:
        console.print(f"nothing found for [bold]{query}[/bold]")
        return
    for h in hits:
        console.print(
            f"[bold cyan]{h.rank:>2}.[/bold cyan] [bold]{h.citation.label()}[/bold]"
            f"  [dim]{h.doc_id} · score {h.score:.3f}[/dim]"
        )
        text = h.text if len(h.text) <= 400 else h.text[:400] + "…"
        console.print(f"    {text}", highlight=False)


@app.command()
def search(
    query: str | None = typer.Argument(None, help="What to search for."),
    collection: list[str] = typer.Option(
        [], "--collection", "-c", help="Collection(s) to search (repeatable)."
    ),
    k: int = _TOP,
    queries: Path | None = typer.Option(
        None, "--queries", help="CSV with columns ID,TEXT: one JSON line per query."
    ),
    per_document: int = typer.Option(5, min=1, help="At most this many passages per document."),
    doc_type: str | None = typer.Option(None, help="Only documents of this type."),
    year: int | None = typer.Option(None, help="Only documents of this year."),
    store_url: str | None = _STORE,
    as_json: bool = typer.Option(False, "--json", help="JSON output."),
) -> None:
    """Search a collection (lexical, or hybrid when embeddings are configured)."""
    if (query is None) == (queries is None):
        err_console.print("[red]error:[/red] give a query or --queries FILE.csv (one of them)")
        raise typer.Exit(2)
    with _opened(store_url, "read") as (store, settings):
        names = collection or [c.name for c in store.collections()]
        if not names:
            err_console.print(
                "[red]error:[/red] the store has no collections yet: "
                "`colmeia ingest PATH --collection NAME` first"
            )
            raise typer.Exit(2)
        retriever = _retriever(store, settings, names)
        filters = _filters(doc_type, year)
        if queries is not None:
            from colmeia.errors import QueryError

            for qid, text in _read_queries(queries):
                try:
                    hits = retriever.search(text, k, filters=filters, per_document=per_document)
                    line = {"id": qid, "query": text, "hits": [h.as_dict() for h in hits]}
                except QueryError as exc:
                    line = {"id": qid, "query": text, "error": str(exc), "hits": []}
                sys.stdout.write(orjson.dumps(line).decode() + "\n")
            return
        assert query is not None
        hits = retriever.search(query, k, filters=filters, per_document=per_document)
        if as_json:
            out = {"query": query, "hits": [h.as_dict() for h in hits]}
            sys.stdout.write(orjson.dumps(out).decode() + "\n")
        else:
            _print_hits(hits, query)


def _read_queries(path: Path) -> list[tuple[str, str]]:
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            rows = list(csv.DictReader(fh))
    except OSError as exc:
        err_console.print(f"[red]error:[/red] cannot read {path}: {exc}")
        raise typer.Exit(2) from exc
    if not rows:
        return []
    lower = {k.lower(): k for k in rows[0]}
    id_key = lower.get("id") or lower.get("query_id")
    text_key = lower.get("text") or lower.get("query")
    if not id_key or not text_key:
        err_console.print(f"[red]error:[/red] {path} needs columns ID and TEXT")
        raise typer.Exit(2)
    return [(r[id_key], r[text_key]) for r in rows]


@app.command()
def ask(
    question: str = typer.Argument(..., help="A question in natural language."),
    collection: list[str] = typer.Option([], "--collection", "-c", help="Collection(s)."),
    k: int = typer.Option(8, "-k", "--top", min=1, help="Passages given to the model."),
    store_url: str | None = _STORE,
    as_json: bool = typer.Option(False, "--json", help="JSON output."),
) -> None:
    """Answer with citations to passages (extractive answer when no model is configured)."""
    from colmeia.rag.generate import answer_question

    with _opened(store_url, "read") as (store, settings):
        names = collection or [c.name for c in store.collections()]
        if not names:
            err_console.print(
                "[red]error:[/red] the store has no collections yet: "
                "`colmeia ingest PATH --collection NAME` first"
            )
            raise typer.Exit(2)
        retriever = _retriever(store, settings, names)
        hits = retriever.search(question, k)
        model = None
        if settings.llm.base_url:
            from colmeia.llm import OpenAIChatModel

            model = OpenAIChatModel.from_settings(settings.llm)

        used = command_usage()
        result = run_and_close(answer_question(question, hits, model), model)
    if as_json:
        out = result.as_dict()
        out["simulated"] = used.simulated > 0
        sys.stdout.write(orjson.dumps(out).decode() + "\n")
        say_if_simulated(used)
        return
    say_if_simulated(used, console)
    if result.withheld == "empty_answer":
        console.print(
            f"[dim](the model {result.model} wrote no answer: showing the best passages)[/dim]",
            highlight=False,
        )
    elif result.extractive:
        console.print(
            "[dim](no language model configured (COLMEIA_LLM_BASE_URL): "
            "showing the best passages)[/dim]"
        )
    console.print(result.answer, highlight=False)
    if result.citations and not result.extractive:
        console.print("\n[bold]Fontes[/bold]")
        for c in result.citations:
            label = c.citation.label() if c.citation else c.doc_id
            console.print(f"  [{c.passage_id}] {label}", highlight=False)
    for c in result.rejected:
        console.print(f"[yellow]citation {c.passage_id} removed: {c.reason}[/yellow]")


@app.command()
def collections(
    store_url: str | None = _STORE,
    as_json: bool = typer.Option(False, "--json", help="JSON output."),
) -> None:
    """List the collections with their document and chunk counts."""
    try:
        store, _ = _open(store_url, "read")
    except MissingStoreError:
        infos = []  # nothing ingested yet: an empty list, and no store is created to show it
    except ColmeiaError as exc:
        raise fail(exc) from None
    else:
        try:
            infos = store.collections()
        except ColmeiaError as exc:
            raise fail(exc) from None
        finally:
            store.close()
    if not infos and not as_json:
        err_console.print("no collections yet: `colmeia ingest PATH --collection NAME` makes one")
        return
    if as_json:
        rows = [
            {"name": c.name, "documents": c.documents, "chunks": c.chunks, "embedder": c.embedder}
            for c in infos
        ]
        sys.stdout.write(orjson.dumps(rows).decode() + "\n")
        return
    from rich.table import Table

    table = Table()
    for col in ("collection", "documents", "chunks", "embedder"):
        table.add_column(col)
    for c in infos:
        table.add_row(c.name, str(c.documents), str(c.chunks), c.embedder or "-")
    console.print(table)


@app.command()
def delete(
    paths: list[Path] = typer.Argument(None, help="Delete the documents from these files."),
    collection: str = _COLLECTION,
    doc_id: list[str] = typer.Option([], "--doc-id", help="Delete this document id."),
    yes: bool = typer.Option(
        False, "--yes", "-y", help="Delete a whole collection without asking first."
    ),
    store_url: str | None = _STORE,
) -> None:
    """Delete documents (by file or id) or, with neither, the whole collection (asks first)."""
    from colmeia.rag.pipeline import delete_documents

    with _opened(store_url, "write") as (store, _):
        if not paths and not doc_id:
            info = store.collection(collection)
            if info is None:
                err_console.print(
                    f"[red]error:[/red] no collection named {collection!r}; "
                    "see `colmeia collections`"
                )
                raise typer.Exit(2)
            question = (
                f"Delete collection {collection!r} with {info.documents} documents and "
                f"{info.chunks} passages?"
            )
            if not yes and not _confirm(question):
                err_console.print(
                    f"collection {collection} kept (pass --yes to skip this question)"
                )
                raise typer.Exit(1)
            store.delete_collection(collection)
            console.print(f"collection {collection} deleted")
            return
        n = delete_documents(store, collection, doc_ids=doc_id, paths=paths or [])
    console.print(f"{n} document(s) deleted from {collection}")


def _confirm(question: str) -> bool:
    try:
        return typer.confirm(question, default=False, err=True)
    except typer.Abort:  # end of input: no answer is no
        err_console.print("")
        return False


def eval_retrieval(
    collection: str = _COLLECTION,
    queries: Path = typer.Option(..., "--queries", help="CSV with ID,TEXT."),
    qrels: Path = typer.Option(..., "--qrels", help="CSV with QUERY_ID,DOC_ID,SCORE."),
    k: int = typer.Option(10, "-k", "--top", min=1, help="Cut-off for nDCG and not-found."),
    depth: int = typer.Option(100, min=1, help="Documents retrieved per query (Recall@depth)."),
    store_url: str | None = _STORE,
    as_json: bool = typer.Option(False, "--json", help="JSON output."),
) -> None:
    """nDCG@k, MRR, P@1, Recall@k/@100, mean rank and not-found counts of document ranking."""
    from rich.table import Table

    from colmeia.cli.progress import Progress
    from colmeia.eval.retrieval import evaluate_run

    judged = _read_qrels(qrels)
    with _opened(store_url, "read") as (store, settings):
        retriever = _retriever(store, settings, [collection])
        _warn_unjudged(judged, set(store.document_hashes(collection)), collection, qrels)
        run: dict[str, list[str]] = {}
        items = _read_queries(queries)
        with Progress("eval", unit="queries", console=err_console, disable=as_json) as bar:
            bar.update(0, len(items))
            for qid, text in items:
                docs = retriever.search_documents(text, depth, per_document=1, depth=depth * 3)
                run[qid] = [d.doc_id for d in docs]
                bar.advance()
    metrics = evaluate_run(
        run, judged, ndcg_ks=sorted({k, 10}), recall_ks=sorted({k, depth}), not_found_ks=(5, k)
    )
    out = metrics.as_dict()
    if as_json:
        sys.stdout.write(orjson.dumps(out).decode() + "\n")
        return
    table = Table(title=f"{collection}: {metrics.queries} judged queries")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in out.items():
        if key != "queries":
            table.add_row(key, "-" if value is None else str(value))
    console.print(table)


def _warn_unjudged(
    judged: dict[str, dict[str, int]], present: set[str], collection: str, qrels: Path
) -> None:
    """Say so when judged documents are missing: every score would be 0 for no fault of search."""
    ids = {doc for docs in judged.values() for doc, grade in docs.items() if grade > 0}
    if not ids:
        return
    missing = ids - present
    if missing == ids:
        sample = ", ".join(repr(d) for d in sorted(missing)[:3])
        have = ", ".join(repr(d) for d in sorted(present)[:3]) or "none"
        err_console.print(
            f"[yellow]warning:[/yellow] none of the {len(ids)} relevant document ids in {qrels} "
            f"is in collection {collection!r} (qrels: {sample}…; collection: {have}…), so every "
            "score below is 0; ingest the judged documents, or check that their id column "
            "matches the qrels",
            highlight=False,
        )
    elif missing:
        err_console.print(
            f"[yellow]warning:[/yellow] {len(missing)} of {len(ids)} relevant document ids in "
            f"{qrels} are not in collection {collection!r}; they count as not found",
            highlight=False,
        )


def _read_qrels(path: Path) -> dict[str, dict[str, int]]:
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            rows = list(csv.DictReader(fh))
    except OSError as exc:
        err_console.print(f"[red]error:[/red] cannot read {path}: {exc}")
        raise typer.Exit(2) from exc
    out: dict[str, dict[str, int]] = {}
    if not rows:
        return out
    lower = {k.lower(): k for k in rows[0]}
    q, d, s = lower.get("query_id"), lower.get("doc_id"), lower.get("score") or lower.get("grade")
    if not (q and d and s):
        err_console.print(f"[red]error:[/red] {path} needs columns QUERY_ID, DOC_ID, SCORE")
        raise typer.Exit(2)
    for r in rows:
        out.setdefault(r[q], {})[r[d]] = int(float(r[s]))
    return out
