"""``colmeia serve``: the HTTP API and the web UI in one process."""

from __future__ import annotations

import typer
from rich.console import Console

from colmeia.errors import ColmeiaError

app = typer.Typer(help="Run the HTTP API and web UI.")
err_console = Console(stderr=True)


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="Address to listen on (0.0.0.0: every interface)."),
    port: int = typer.Option(8080, min=0, max=65535, help="Port to listen on."),
    simulated: bool = typer.Option(
        False,
        "--simulated",
        help="Answer with colmeia's simulated model (started in this process; answers are "
        "marked as simulated). For trying the service without a model server.",
    ),
    jobs: bool = typer.Option(True, "--jobs/--no-jobs", help="Run queued jobs in this process."),
) -> None:
    """Serve the API (OpenAPI at /docs) and the web UI (/) until Ctrl-C or SIGTERM."""
    from colmeia.service.server import run_server

    try:
        run_server(host=host, port=port, simulated=simulated, run_jobs=jobs)
    except ColmeiaError as exc:
        err_console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
