"""``colmeia llm …``: serve a local model, check that the configured model answers and what it
supports."""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import typer
from pydantic import BaseModel, Field
from rich.console import Console
from rich.table import Table

from colmeia.cli.plumbing import command_usage, run_and_close, say_if_simulated
from colmeia.config import get_settings
from colmeia.errors import ColmeiaError, ConfigurationError, ModelError
from colmeia.llm import Message, OpenAIChatModel, ToolSpec
from colmeia.llm.gguf import PACKAGED, resolve_gguf
from colmeia.llm.local_server import start_local_server
from colmeia.llm.notice import NO_MODEL_HINT

app = typer.Typer(
    help="The language model: serve one locally, check it is reachable and what it supports."
)
console = Console()
err_console = Console(stderr=True)


class _Probe(BaseModel):
    """A tiny structured answer used to test JSON Schema output."""

    city: str = Field(description="The city named in the question.")
    population_millions: float = Field(ge=0)


_WEATHER = ToolSpec(
    name="get_weather",
    description="Current weather for a city.",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string", "description": "City name"}},
        "required": ["city"],
    },
)


@dataclass
class _Check:
    name: str
    ok: bool
    detail: str
    seconds: float


async def _run_checks(model: OpenAIChatModel) -> list[_Check]:
    checks: list[_Check] = []
    t0 = time.perf_counter()
    reply = await model.chat([Message.user("Responda apenas com a palavra: ok")])
    checks.append(
        _Check("answers", True, reply.content[:60] or "(empty)", time.perf_counter() - t0)
    )
    t0 = time.perf_counter()
    try:
        res = await model.chat(
            [Message.user("Como está o tempo em Recife agora?")],
            tools=[_WEATHER],
            tool_choice="required",
            require_tool=True,
        )
        how = "recovered from text" if res.tool_calls_recovered else "native"
        checks.append(_Check("tool calls", True, how, time.perf_counter() - t0))
    except ModelError as exc:
        checks.append(_Check("tool calls", False, str(exc)[:120], time.perf_counter() - t0))
    t0 = time.perf_counter()
    try:
        res2 = await model.structured_result(
            [Message.user("Qual a população aproximada de São Paulo, em milhões?")], _Probe
        )
        detail = f"{model.structured_mode} mode, {res2.usage.repairs} repairs"
        checks.append(_Check("JSON Schema output", True, detail, time.perf_counter() - t0))
    except ModelError as exc:
        checks.append(_Check("JSON Schema output", False, str(exc)[:120], time.perf_counter() - t0))
    await model.aclose()
    return checks


@app.command("check")
def check(
    base_url: str | None = typer.Option(None, help="Overrides COLMEIA_LLM_BASE_URL."),
    model: str | None = typer.Option(None, help="Overrides COLMEIA_LLM_MODEL."),
    api_key: str | None = typer.Option(None, help="Overrides COLMEIA_LLM_API_KEY."),
    provider: str | None = typer.Option(None, help="Overrides COLMEIA_LLM_PROVIDER."),
    timeout: float = typer.Option(15.0, help="Seconds to wait for each check."),
) -> None:
    """Reach the configured model; report tool-call and JSON Schema support and latency."""
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
            deadline=timeout,
            max_retries=0,
            max_rate_limit_retries=1,
            max_repairs=1,
        )
        checks = run_and_close(_run_checks(chat_model), chat_model)
    except ConfigurationError as exc:
        err_console.print(f"[red]Configuration error:[/] {exc}")
        raise typer.Exit(2) from None
    except ColmeiaError as exc:
        err_console.print(f"[red]Model check failed for {url}:[/] {exc}")
        err_console.print(
            "Set COLMEIA_LLM_BASE_URL to a reachable OpenAI-compatible server "
            "(or pass --base-url), and COLMEIA_LLM_MODEL to a model it serves."
        )
        raise typer.Exit(1) from None
    table = Table(title=f"{chat_model.model} at {url}")
    table.add_column("check")
    table.add_column("result")
    table.add_column("detail")
    table.add_column("latency", justify="right")
    for c in checks:
        mark = "[green]yes[/]" if c.ok else "[yellow]no[/]"
        table.add_row(c.name, mark, c.detail, f"{c.seconds * 1000:.0f} ms")
    console.print(table)
    say_if_simulated(used, console)
    failed = [c.name for c in checks if not c.ok]
    if failed:
        err_console.print(f"[red]failed:[/] {', '.join(failed)}", highlight=False)
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
    name: str | None = typer.Option(None, help="Model name to serve as (default: file name)."),
) -> None:
    """Serve a GGUF model on 127.0.0.1 (OpenAI-compatible API) until Ctrl-C.

    Prints the COLMEIA_LLM_* lines to export; `colmeia -v llm serve` shows llama.cpp's log.
    """
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
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        err_console.print("stopped.")
    # llama.cpp's server has no clean stop from Python: its destructor would wait forever.
    sys.stderr.flush()
    os._exit(0)
