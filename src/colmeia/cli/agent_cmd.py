"""``colmeia agent …``: run a ReAct, Plan-and-Solve or Reflection agent on a task."""

from __future__ import annotations

import asyncio
import logging
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import typer
from rich.console import Console
from rich.markup import escape

from colmeia.cli.plumbing import say_if_simulated
from colmeia.config import get_settings
from colmeia.errors import ConfigurationError, InputError

if TYPE_CHECKING:
    from collections.abc import Callable

    from colmeia.agents.trace import Step, Trace
    from colmeia.agents.watch import Exchange
    from colmeia.llm.base import ChatModel
    from colmeia.tools.registry import Tool

app = typer.Typer(
    help="Agent paradigms: ReAct, Plan-and-Solve and Reflection over tools.",
    no_args_is_help=True,
)
console = Console()
err_console = Console(stderr=True)

_NO_MODEL = (
    "No model configured. Set COLMEIA_LLM_BASE_URL (e.g. http://127.0.0.1:11434/v1 for Ollama) "
    "and COLMEIA_LLM_MODEL, or start the simulated model with `colmeia sim serve --port 8000` "
    "and set COLMEIA_LLM_BASE_URL=http://127.0.0.1:8000/v1 COLMEIA_LLM_MODEL=sim."
)


class Paradigm(StrEnum):
    react = "react"
    plan = "plan"
    reflect = "reflect"


class Mode(StrEnum):
    auto = "auto"
    native = "native"
    text = "text"


_KIND_STYLE = {
    "tool": "cyan",
    "answer": "green",
    "plan": "magenta",
    "replan": "magenta",
    "critique": "yellow",
    "refine": "blue",
    "attempt": "blue",
    "step_result": "white",
    "format_error": "red",
}


def _short(text: str, limit: int = 400) -> str:
    text = " ".join(text.split()) if "\n" not in text else text.strip()
    return text if len(text) <= limit else text[:limit] + " …"


def _print_step(step: Step) -> None:
    style = _KIND_STYLE.get(step.kind, "white") if step.ok else "red"
    where = f" [dim]{step.meta['plan_step']}[/]" if "plan_step" in step.meta else ""
    head = f"[bold {style}]{step.index:>2}. {step.kind}[/]{where}"
    if step.tool:
        args = orjson.dumps(step.input or {}, default=str).decode()
        head += f"  {escape(step.tool)}({escape(_short(args, 200))})"
    if "score" in step.meta:
        head += f"  score {step.meta['score']:.2f}"
    console.print(head)
    if step.meta.get("offered"):
        console.print(f"    [dim]offered: {escape(', '.join(step.meta['offered']))}[/]")
    if step.thought:
        console.print(f"    [dim]{escape(_short(step.thought))}[/]")
    if step.observation:
        console.print(f"    → {escape(_short(step.observation))}")


class _Tokens:
    """Shows the model's tokens on the terminal as they arrive (a :class:`StreamSink`).

    They are provisional, dim and indented: the step printed when the turn ends is what the
    agent made of them. A retried or repaired request starts a new line (what came before it
    no longer counts).
    """

    def __init__(self, out: Console) -> None:
        self.out = out
        self.open = False

    def begin(self) -> None:
        self.end()

    def delta(self, text: str, part: str) -> None:
        if not text:
            return
        if not self.open:
            self.out.print("    [dim]▹[/] ", end="")
            self.open = True
        self.out.print(text.replace("\n", "\n      "), end="", style="dim", markup=False,
                       highlight=False)  # fmt: skip
        self.out.file.flush()

    def end(self) -> None:
        if self.open:
            self.out.print()
            self.open = False


def _print_exchange(exchange: Exchange) -> None:
    """A prompt as the model received it, and its reply as it came back (before parsing)."""
    offered = f" · tools: {', '.join(exchange.tools)}" if exchange.tools else ""
    wanted = f" · returns {exchange.output_type}" if exchange.output_type else ""
    console.rule(f"[dim]prompt ({exchange.kind}{offered}{wanted})[/]", style="dim")
    for message in exchange.messages:
        text = message.content or ""
        if message.tool_calls:
            text += "".join(
                f"\n→ {c.name}({c.raw_arguments or c.arguments})" for c in message.tool_calls
            )
        console.print(f"[bold magenta]{message.role}[/]: {escape(text)}")
    console.rule(f"[dim]raw reply · {exchange.latency_s:.1f}s[/]", style="dim")
    if exchange.reply:
        console.print(escape(exchange.reply), style="cyan")
    for call in exchange.tool_calls:
        console.print(f"[cyan]tool call: {escape(call)}[/]")
    if exchange.error:
        console.print(f"[red]error: {escape(exchange.error)}[/]")
    if not (exchange.reply or exchange.tool_calls or exchange.error):
        console.print("[dim](empty reply)[/]")


def _tools(names: str | None, catalog: Path | None = None) -> list[Tool]:
    """Built-in tools by name, the student's own (``module:func``, ``file.py:func``) and a
    catalogue file's ``TOOLS``."""
    from colmeia.tools.builtins import builtin_tools
    from colmeia.tools.user_tools import is_user_tool_spec, load_tool_catalog, load_user_tool

    wanted = [n.strip() for n in (names or "").split(",") if n.strip()]
    builtin = builtin_tools([n for n in wanted if not is_user_tool_spec(n)], get_settings().search)
    own = [load_user_tool(n) for n in wanted if is_user_tool_spec(n)]
    listed = load_tool_catalog(catalog) if catalog is not None else []
    chosen = [*builtin, *own, *listed]
    names_seen = [t.name for t in chosen]
    repeated = sorted({n for n in names_seen if names_seen.count(n) > 1})
    if repeated:
        raise ConfigurationError(f"--tools/--tool-catalog: tool names given twice: {repeated}")
    return chosen


def _critics(names: str, custom: list[str], critic_model: ChatModel | None) -> list[Any]:
    """``--critics`` names and ``--critic "focus: …"`` texts, on ``--critic-model`` if given."""
    from colmeia.agents.reflection import critic_from_text

    texts = [c.strip() for c in names.split(",") if c.strip()] if not custom else []
    return [critic_from_text(t, critic_model) for t in [*texts, *custom]]


def _model(base_url: str | None, model: str | None) -> ChatModel:
    from colmeia.llm import OpenAIChatModel

    settings = get_settings().llm
    url = base_url or settings.base_url
    if not url:
        raise ConfigurationError(_NO_MODEL)
    name = model or settings.model
    if not name:
        raise ConfigurationError(
            f"No model name for {url}: set COLMEIA_LLM_MODEL (or pass --model); for the "
            "simulated server any name works, e.g. COLMEIA_LLM_MODEL=sim."
        )
    return OpenAIChatModel.from_settings(settings, base_url=url, model=name)


def _few_shot(path: Path | None) -> str:
    if path is None:
        return ""
    from colmeia.agents.few_shot import load_few_shot

    return load_few_shot(path)


async def _run(
    paradigm: Paradigm,
    task: str,
    model: ChatModel,
    tools: list[Tool],
    options: dict[str, Any],
    live: bool,
    tokens: _Tokens | None = None,
) -> Trace:
    from colmeia.agents.factory import make_agent
    from colmeia.llm.base import stream_to

    on_step: Callable[[Step], None] | None = _print_step if live else None
    if live and tokens is not None:
        sink = tokens

        def on_step(step: Step) -> None:
            sink.end()  # the streamed turn is over: its step goes on a line of its own
            _print_step(step)

    try:
        agent = make_agent(
            paradigm.value,
            model,
            tools,
            tool_mode=options["mode"],
            max_steps=options["max_steps"],
            deadline=options["deadline"],
            hierarchical=options["hierarchical"],
            critics=options["critics"],
            threshold=options["threshold"],
            temperature=options["temperature"],
            role=options["role"],
            few_shot=options["few_shot"],
        )
        with stream_to(tokens):
            return await agent.run(task, on_step=on_step)
    finally:
        if tokens is not None:
            tokens.end()
        for used in (model, options.get("judge")):
            aclose = getattr(used, "aclose", None)
            if aclose is not None:
                await aclose()


@app.command("run")
def run(
    task: str = typer.Argument(..., help="The task, in natural language."),
    paradigm: Paradigm = typer.Option(Paradigm.react, "--paradigm", "-p", help="Agent paradigm."),
    tools: str | None = typer.Option(
        None,
        "--tools",
        "-t",
        help="Comma-separated tools: built-in calculator, web, fetch, and your own typed "
        "functions as module:function or path/to/file.py:function.",
    ),
    tool_catalog: Path | None = typer.Option(
        None,
        "--tool-catalog",
        help="A Python file whose TOOLS lists many tools; with more than 20, each step is "
        "offered the few most relevant (tool retrieval).",
    ),
    max_steps: int = typer.Option(
        8, "--max-steps", min=1, max=100, help="Step limit (iterations for reflect)."
    ),
    mode: Mode = typer.Option(Mode.auto, "--tool-mode", help="Native tool calls or text protocol."),
    deadline: float | None = typer.Option(
        None,
        "--deadline",
        min=1.0,
        help="Seconds for the whole run (default: 300 for react, longer on a model measured "
        "slow; 600 for plan and reflect).",
    ),
    critics: str = typer.Option(
        "correctness",
        "--critics",
        help="reflect: comma-separated correctness,efficiency,language,complexity.",
    ),
    critic: list[str] = typer.Option(
        [],
        "--critic",
        help='reflect: your own critic, "name: what it checks" (repeatable; replaces --critics).',
    ),
    critic_model: str | None = typer.Option(
        None, "--critic-model", help="reflect: the critics' model (same server), e.g. a larger one."
    ),
    few_shot: Path | None = typer.Option(
        None,
        "--few-shot",
        help="Worked examples for the system prompt: .jsonl of {task, answer, steps} or text.",
    ),
    role: str | None = typer.Option(
        None, "--role", help="Replaces the system prompt's first line: who the agent is."
    ),
    temperature: float = typer.Option(
        0.0, "--temperature", min=0.0, max=2.0, help="Sampling temperature (0: reproducible)."
    ),
    threshold: float = typer.Option(
        0.8, "--threshold", min=0.0, max=1.0, help="reflect: score that ends the run."
    ),
    hierarchical: bool = typer.Option(False, "--hierarchical", help="plan: allow sub-steps."),
    show_prompts: bool = typer.Option(
        False,
        "--show-prompts",
        help="Print every prompt sent to the model and its raw reply (also with colmeia -v).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object at the end only."),
    stream: bool | None = typer.Option(
        None,
        "--stream/--no-stream",
        help="Show the model's tokens as they arrive (default: when the output is a terminal).",
    ),
    base_url: str | None = typer.Option(None, help="Overrides COLMEIA_LLM_BASE_URL."),
    model: str | None = typer.Option(None, help="Overrides COLMEIA_LLM_MODEL."),
) -> None:
    """Run an agent on TASK, printing its steps as they happen; exit 0 whatever the status."""
    if not task.strip():
        err_console.print("[red]The task is empty.[/] Say what the agent should do.")
        raise typer.Exit(2)
    try:
        chat_model = _model(base_url, model)
        if (
            show_prompts or logging.getLogger("colmeia").isEnabledFor(logging.INFO)
        ) and not as_json:
            from colmeia.agents.watch import WatchedModel

            chat_model = WatchedModel(chat_model, _print_exchange)
        chosen = _tools(tools, tool_catalog)
        judge = _model(base_url, critic_model) if critic_model else None
        options: dict[str, Any] = {
            "mode": mode.value,
            "max_steps": max_steps,
            "deadline": deadline,
            "hierarchical": hierarchical,
            "critics": _critics(critics, critic, judge),
            "threshold": threshold,
            "temperature": temperature,
            "role": role or "",
            "few_shot": _few_shot(few_shot),
            "judge": judge,
        }
        if not as_json:
            names = ", ".join(t.name for t in chosen) or "none"
            if len(chosen) > 20:
                names = f"{len(chosen)} (the most relevant 6 offered at each step)"
            console.print(f"[bold]{paradigm.value}[/] · model {chat_model.model} · tools: {names}")
        streaming = console.is_terminal if stream is None else stream
        # --show-prompts prints each exchange whole; streaming it too would show it twice.
        tokens = _Tokens(console) if streaming and not as_json and not show_prompts else None
        trace = asyncio.run(
            _run(paradigm, task, chat_model, chosen, options, live=not as_json, tokens=tokens)
        )
    except ConfigurationError as exc:
        err_console.print(f"[red]Configuration error:[/] {escape(str(exc))}")
        raise typer.Exit(2) from None
    except InputError as exc:
        err_console.print(f"[red]error:[/] {escape(str(exc))}")
        raise typer.Exit(2) from None
    if as_json:
        sys.stdout.write(orjson.dumps(trace.to_dict()).decode() + "\n")
        say_if_simulated(trace.usage)
        return
    style = "green" if trace.status.value == "finished" else "yellow"
    console.rule(
        f"[{style}]{trace.status.value}[/]"
        + (f" · {trace.stop_reason}" if trace.stop_reason else "")
    )
    if trace.error:
        console.print(f"[{style}]{escape(trace.error)}[/]")
    console.print(escape(trace.answer) if trace.answer else "[dim](no answer)[/]")
    usage = trace.usage
    console.print(
        f"[dim]{len(trace.steps)} steps · {usage.calls} model calls · "
        f"{usage.prompt_tokens}+{usage.completion_tokens} tokens · {trace.elapsed_s:.1f}s[/]"
    )
    say_if_simulated(usage, console)
