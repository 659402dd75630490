"""``colmeia sim …``: run the simulated OpenAI-compatible model server."""

from __future__ import annotations

import typer
from rich.console import Console

from colmeia.errors import ConfigurationError

app = typer.Typer(help="The simulated model: an OpenAI-compatible server for tests and demos.")
console = Console()
err_console = Console(stderr=True)


@app.callback()
def _group() -> None:
    """The simulated model: an OpenAI-compatible server for tests and demos."""


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="Loopback address to listen on."),
    port: int = typer.Option(
        8765, min=0, max=65535, help="Port to listen on (0 for any free port)."
    ),
    schema: bool = typer.Option(
        True, "--schema/--no-schema", help="Answer with data valid for the requested schema."
    ),
    latency_ms: float = typer.Option(0.0, min=0, help="Fixed delay per request, in milliseconds."),
    per_token_ms: float = typer.Option(0.0, min=0, help="Extra delay per completion token, in ms."),
    capacity: int | None = typer.Option(
        None, min=1, help="Requests worked on at once (others queue)."
    ),
    fault_500: float = typer.Option(
        0.0, min=0, max=1, help="Share of requests answered with HTTP 500."
    ),
    fault_429: float = typer.Option(
        0.0, min=0, max=1, help="Share of requests answered with HTTP 429."
    ),
    fault_prose: float = typer.Option(
        0.0, min=0, max=1, help="Share answered in prose instead of JSON/tool."
    ),
    fault_truncated: float = typer.Option(0.0, min=0, max=1, help="Share with JSON cut short."),
    fault_stall: float = typer.Option(0.0, min=0, max=1, help="Share that hang before answering."),
    fault_think: float = typer.Option(
        0.0, min=0, max=1, help="Share with a <think> block before the answer."
    ),
    fault_tool_text: float = typer.Option(
        0.0, min=0, max=1, help="Share with tool calls written as text."
    ),
    stall_s: float = typer.Option(
        30.0, min=0, help="How long a stalled request hangs, in seconds."
    ),
    retry_after_ms: float = typer.Option(50.0, min=0, help="Retry-After sent with 429s, in ms."),
    seed: int = typer.Option(0, help="Seed for fault draws and generated data."),
    per_request_seed: bool = typer.Option(
        False,
        "--per-request-seed",
        help="Same request, same answer, whatever the arrival order (reproducible batches).",
    ),
    embedding_dim: int = typer.Option(
        256, min=1, max=65536, help="Length of /v1/embeddings vectors."
    ),
) -> None:
    """Serve the simulated model on HOST:PORT until Ctrl-C."""
    from colmeia.sim.engine import Faults, Latency, SimulatedModel
    from colmeia.sim.server import serve_forever

    try:
        sim = SimulatedModel(
            schema_mode=schema,
            faults=Faults(
                http_500=fault_500,
                http_429=fault_429,
                prose=fault_prose,
                truncated_json=fault_truncated,
                stall=fault_stall,
                think=fault_think,
                tool_call_as_text=fault_tool_text,
                retry_after_s=retry_after_ms / 1000,
                stall_s=stall_s,
            ),
            latency=Latency(fixed_s=latency_ms / 1000, per_token_s=per_token_ms / 1000),
            seed=seed,
            per_request_seed=per_request_seed,
            capacity=capacity,
            embedding_dim=embedding_dim,
        )

        def ready(base_url: str) -> None:
            console.print(
                f"[bold green]simulated model[/] serving at [bold]{base_url}[/]  "
                f"(stats: {base_url.removesuffix('/v1')}/stats; Ctrl-C to stop)",
                highlight=False,
                soft_wrap=True,
            )

        serve_forever(sim, host=host, port=port, on_ready=ready)
    except ConfigurationError as exc:
        err_console.print(f"[red]error:[/] {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
