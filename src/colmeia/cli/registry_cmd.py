"""``colmeia registry demo | import | show | serve``: the case registry the assistant reads."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import orjson
import typer
from rich.console import Console
from rich.table import Table

from colmeia.config import get_settings
from colmeia.errors import ColmeiaError

app = typer.Typer(help="The case registry (processes, expedientes, movements).")
console = Console()
err_console = Console(stderr=True)

_REGISTRY = typer.Option(
    None,
    "--registry",
    help="sqlite:///path.db or a path (default: COLMEIA_ASSISTANT_REGISTRY or "
    "registry.db in COLMEIA_HOME).",
)


def _url(given: str | None) -> str:
    from colmeia.apps.assistant.settings import AssistantSettings

    return given or AssistantSettings().registry_url(get_settings().home)


def _fail(exc: ColmeiaError) -> typer.Exit:
    err_console.print(f"[red]error:[/red] {exc}", highlight=False)
    return typer.Exit(2)


@app.command()
def demo(
    registry: str | None = _REGISTRY,
    processes: int = typer.Option(5000, help="How many synthetic processes."),
    expedientes: int = typer.Option(3000, help="How many synthetic expedientes."),
    seed: int = typer.Option(7, help="Seed: the same seed makes the same registry."),
) -> None:
    """Create a synthetic registry (invented cases) for demos and tests."""
    from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
    from colmeia.apps.assistant.synthetic import generate_registry

    url = _url(registry)
    try:
        reg = SQLiteCaseRegistry(url.removeprefix("sqlite:///"))
        batch = generate_registry(reg, processes=processes, expedientes=expedientes, seed=seed)
        reg.close_sync()
    except ColmeiaError as exc:
        raise _fail(exc) from None
    console.print(
        f"synthetic registry at [bold]{url}[/]: {len(batch.processes)} processes, "
        f"{len(batch.expedientes)} expedientes, {len(batch.movements)} movements "
        f"(e.g. {batch.processes[0].number}, {batch.expedientes[0].number}; all invented)",
        highlight=False,
    )


@app.command("import")
def import_(
    paths: list[Path] = typer.Argument(..., help="CSV files or folders (processes.csv, …)."),
    registry: str | None = _REGISTRY,
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    merge: bool = typer.Option(
        False,
        "--merge",
        help="Add the files' parties, movements and documents to what each case has, "
        "instead of replacing them.",
    ),
) -> None:
    """Import processes, expedientes, parties, movements and documents from CSV files.

    A case named in the files gets the files' parties, movements and documents (the old ones
    are removed) unless --merge; the output says what changed per case and flags cases whose
    location contradicts their latest movement."""
    from colmeia.apps.assistant.registry_io import import_registry
    from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry

    url = _url(registry)
    try:
        reg = SQLiteCaseRegistry(url.removeprefix("sqlite:///"))
        report = import_registry(reg, paths, merge=merge)
        reg.close_sync()
    except ColmeiaError as exc:
        raise _fail(exc) from None
    if as_json:
        sys.stdout.write(orjson.dumps(report.as_dict()).decode() + "\n")
    else:
        counts = ", ".join(f"{n} {t}" for t, n in report.counts.items())
        console.print(f"imported into [bold]{url}[/]: {counts}", highlight=False)
        changed = [c for c in report.changes if not c.unchanged]
        if changed:
            title = f"{len(changed)} cases changed ({'merged' if merge else 'replaced'})"
            ctable = Table(title=title)
            ctable.add_column("case")
            ctable.add_column("what changed", overflow="fold")
            for c in changed[:200]:
                ctable.add_row(c.number, c.summary())
            console.print(ctable)
        for conflict in report.conflicts[:200]:
            console.print(f"[yellow]location conflict[/] {conflict.message}", highlight=False)
        if report.problems:
            table = Table(title=f"{len(report.problems)} not imported")
            table.add_column("where", overflow="fold")
            table.add_column("reason", overflow="fold")
            for p in report.problems[:200]:
                table.add_row(p.where, p.reason)
            console.print(table)
    if report.problems and not any(report.counts.values()):
        raise typer.Exit(1)


@app.command()
def show(
    number: str = typer.Argument(..., help="A process or expediente number, as typed."),
    registry: str | None = _REGISTRY,
    as_json: bool = typer.Option(False, "--json", help="JSON output."),
) -> None:
    """Show one case as the registry holds it (what the assistant's tools read)."""
    from colmeia.apps.assistant.case_cards import case_card
    from colmeia.apps.assistant.case_lookup import lookup_case

    async def run() -> dict[str, object]:
        from colmeia.apps.assistant.registry_url import open_registry

        reg = open_registry(_url(registry))
        try:
            return await lookup_case(reg, number)
        finally:
            await reg.close()

    try:
        found = asyncio.run(run())
    except ColmeiaError as exc:
        raise _fail(exc) from None
    if as_json:
        sys.stdout.write(orjson.dumps(found).decode() + "\n")
    else:
        console.print(case_card(found), highlight=False)
    if found.get("status") != "found":
        raise typer.Exit(1)


@app.command()
def serve(
    registry: str | None = _REGISTRY,
    port: int = typer.Option(8770, help="Port on 127.0.0.1."),
) -> None:
    """Serve the registry's HTTP API on 127.0.0.1 until Ctrl-C."""
    import time

    from colmeia.apps.assistant.registry_http import RegistryServer
    from colmeia.apps.assistant.registry_url import open_registry

    try:
        server = RegistryServer(open_registry(_url(registry)), port=port).start()
    except ColmeiaError as exc:
        raise _fail(exc) from None
    console.print(f"case registry API at [bold]{server.url}/v1[/] (Ctrl-C to stop)")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()
