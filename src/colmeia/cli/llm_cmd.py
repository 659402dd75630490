"""``colmeia llm …``: serve a local model, check that the configured model answers and what it
supports."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path

import typer
from rich.console import Console

from colmeia.cli.plumbing import command_usage, run_and_close, say_if_simulated
from colmeia.config import get_settings
from colmeia.errors import ConfigurationError
from colmeia.llm.gguf import PACKAGED, resolve_gguf
from colmeia.llm.notice import NO_MODEL_HINT

# The model client (aiohttp) and the llama.cpp server are imported by the command that uses
# each: `colmeia llm --help` needs neither.

app = typer.Typer(
    help="The language model: serve one locally, check it is reachable and what it supports."
)
console = Console()
err_console = Console(stderr=True)


@app.command("check")
def check(
    base_url: str | None = typer.Option(None, help="Overrides COLMEIA_LLM_BASE_URL."),
    model: str | None = typer.Option(None, help="Overrides COLMEIA_LLM_MODEL."),
    api_key: str | None = typer.Option(None, help="Overrides COLMEIA_LLM_API_KEY."),
    provider: str | None = typer.Option(None, help="Overrides COLMEIA_LLM_PROVIDER."),
    timeout: float = typer.Option(
        60.0, help="Seconds for the first check; later ones get more on a slow endpoint."
    ),
) -> None:
    """Reach the configured model: does it answer, call tools, return JSON? How fast is it?

    Exits 1 when any check fails.
    """
    from rich.table import Table

    from colmeia.llm import OpenAIChatModel
    from colmeia.llm.check import check_endpoint

    used = command_usage()
    settings = get_settings().llm
    url = base_url or settings.base_url
    if not url:
        err_console.print(f"[red]error:[/] {NO_MODEL_HINT}", highlight=False)
        raise typer.Exit(2)
    try:
        chat_model = OpenAIChatModel.from_settings(
            settings,
            base_url=url,
            model=model or settings.model or "default",
            api_key=api_key if api_key is not None else settings.api_key.get_secret_value(),
            provider=provider or settings.provider,
            timeout=timeout,
            max_retries=0,
            max_rate_limit_retries=1,
            max_repairs=2,
        )
        report = run_and_close(check_endpoint(chat_model, deadline=timeout), chat_model)
    except ConfigurationError as exc:
        err_console.print(f"[red]Configuration error:[/] {exc}")
        raise typer.Exit(2) from None
    if report.checks and report.checks[0].name == "answers" and not report.checks[0].ok:
        err_console.print(f"[red]Model check failed for {url}:[/] {report.checks[0].detail}")
        err_console.print(
            "Set COLMEIA_LLM_BASE_URL to a reachable OpenAI-compatible server "
            "(or pass --base-url), and COLMEIA_LLM_MODEL to a model it serves."
        )
        raise typer.Exit(1)
    table = Table(title=f"{chat_model.model} at {url}")
    table.add_column("check")
    table.add_column("result")
    table.add_column("detail")
    table.add_column("latency", justify="right")
    for c in report.checks:
        mark = "[green]yes[/]" if c.ok else "[red]no[/]"
        table.add_row(c.name, mark, c.detail, f"{c.seconds * 1000:.0f} ms")
    console.print(table)
    say_if_simulated(used, console)
    learned = report.profile.get("features", {})
    if learned:
        seen = ", ".join(f"{name} {info['support']}" for name, info in learned.items())
        console.print(f"learned: {seen}", highlight=False, soft_wrap=True)
    speed = report.profile.get("speed", {})
    if speed.get("gen_tokens_per_s"):
        prompt = speed.get("prompt_tokens_per_s")
        console.print(
            f"speed: {speed['gen_tokens_per_s']} tokens/s generation"
            + (f", {prompt} tokens/s prompt" if prompt else "")
            + f" ({speed['source']})",
            highlight=False,
        )
    if not report.ok:
        err_console.print(f"[red]failed:[/] {', '.join(report.failed)}", highlight=False)
        raise typer.Exit(1)


@app.command("serve")
def serve(
    gguf: str | None = typer.Option(
        None,
        "--gguf",
        help="A .gguf file, or a packaged model's name ("
        + ", ".join(PACKAGED)
        + "); default: the first packaged model.",
    ),
    port: int = typer.Option(8080, help="Port on 127.0.0.1 (0 for any free port)."),
    ctx: int = typer.Option(8192, help="Context window in tokens, shared by the slots."),
    threads: int | None = typer.Option(None, help="CPU threads (default: every core)."),
    parallel: int = typer.Option(1, help="Requests decoded at once (each gets ctx/parallel)."),
    poll: int = typer.Option(
        50,
        help="How hard idle threads busy-wait, 0-100 (llama.cpp's 50; 0 when the cores are shared).",
    ),
    name: str | None = typer.Option(None, help="Model name to serve as (default: file name)."),
) -> None:
    """Serve a GGUF model on 127.0.0.1 (OpenAI-compatible API) until Ctrl-C.

    Prints the COLMEIA_LLM_* lines to export; `colmeia -v llm serve` shows llama.cpp's log.
    """
    from colmeia.llm.local_server import start_local_server

    verbose = logging.getLogger().isEnabledFor(logging.INFO)
    try:
        path = resolve_gguf(gguf)
        started = time.perf_counter()
        server = start_local_server(
            Path(path),
            port=port,
            ctx=ctx,
            threads=threads,
            parallel=parallel,
            poll=poll,
            model_name=name,
            verbose=verbose,
        )
    except ConfigurationError as exc:
        err_console.print(f"[red]error:[/] {exc}", highlight=False)
        raise typer.Exit(2) from None
    err_console.print(
        f"[bold green]{server.model}[/] loaded in {time.perf_counter() - started:.1f}s "
        f"(llama.cpp via xllamacpp {server.version}; ctx {server.ctx}, {server.threads} threads, "
        f"{server.parallel} slot(s)), serving at [bold]{server.base_url}[/]. "
        "Export these lines, then `colmeia llm check`; Ctrl-C stops.",
        highlight=False,
        soft_wrap=True,
    )
    # Plain stdout, one line each, so scripts and `eval "$(…)"` can read them.
    sys.stdout.write("\n".join(server.exports()) + "\n")
    sys.stdout.flush()
    stop = threading.Event()
    # llama.cpp installs its own SIGTERM/SIGINT handlers, which stop its HTTP loop but leave
    # this process waiting: take the signals back so that either one ends the process.
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    while not stop.wait(1.0):
        pass
    err_console.print("stopped.")
    # llama.cpp's server has no clean stop from Python: its destructor would wait forever.
    sys.stderr.flush()
    os._exit(0)
