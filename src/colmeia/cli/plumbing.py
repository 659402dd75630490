"""What every ``colmeia`` command shares: readable help, helpful usage errors, one-line failures.

* Help is click's plain layout with conventional placeholders (``-c, --collection TEXT``,
  ``-k INTEGER``): every option's full name is shown whatever the terminal width, flags show no
  ``<bool>``, and leaf commands carry no shell-completion flags.
* An unknown option is answered with the options that really resemble it (``--k`` → ``-k``,
  ``--colection`` → ``--collection``), or with the command it belongs to (``--per-document`` is
  an option of ``search``, not of ``ingest``); an unknown command with the closest command.
* Errors colmeia raises on purpose are one line; a configuration error names the setting. Any
  other exception is one line too, with the traceback only under ``-v``: no Python traceback
  reaches a user who did not ask for one.
"""

from __future__ import annotations

import difflib
import logging
import sys
import traceback
from collections.abc import Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import typer
from typer._click import Command, Context
from typer._click.exceptions import NoSuchOption, UsageError
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from colmeia.errors import ColmeiaError, ConfigurationError, InputError, MissingStoreError

if TYPE_CHECKING:
    from rich.console import Console

    from colmeia.llm.base import Usage

__all__ = [
    "command_usage",
    "fail",
    "report_unexpected",
    "run_and_close",
    "say_if_simulated",
    "suggest",
    "tidy_command",
]

T = TypeVar("T")

# Typer 0.29 carries its own copy of click (typer._click); its exceptions and contexts are the
# ones a Typer app raises and passes around, so those are the ones handled here.

log = logging.getLogger("colmeia.cli")

_COMPLETION = frozenset({"install_completion", "show_completion"})
_EXIT_USAGE = 2  # click's code for usage errors; also ours for configuration errors
_EXIT_FAILED = 1
_EXIT_INTERRUPTED = 130
_PLACEHOLDERS = {
    "int": "INTEGER",
    "int range": "INTEGER",
    "float": "NUMBER",
    "float range": "NUMBER",
    "str": "TEXT",
    "path": "PATH",
    "Path": "PATH",
    "bool": "BOOLEAN",
}


def _placeholder(option: TyperOption) -> Callable[[Context], str]:
    def display(ctx: Context) -> str:
        label = TyperOption.display_type(option, ctx).strip("<>")
        if label.startswith("list[") and label.endswith("]"):
            label = label[5:-1]
        if "|" in label:
            return f"[{label}]"
        return _PLACEHOLDERS.get(label, label.upper())

    return display


def _no_type(ctx: Context) -> None:
    return None


def tidy_command(command: Command) -> Command:
    """Plain help with conventional placeholders and no completion flags, recursively."""
    if isinstance(command, TyperCommand | TyperGroup):
        command.rich_markup_mode = None
    command.params = [p for p in command.params if p.name not in _COMPLETION]
    for param in command.params:
        if isinstance(param, TyperArgument):
            if param.metavar is None and param.name:
                param.metavar = param.name.upper()
            param.display_type_rich = _no_type  # type: ignore[method-assign]
        elif isinstance(param, TyperOption):
            if param.is_flag:
                if param.default is False:
                    param.show_default = False  # "[default: no-cut-references]" says nothing
            elif param.metavar is None:
                param.display_type_rich = _placeholder(param)  # type: ignore[method-assign,assignment]
    if isinstance(command, TyperGroup):
        for sub in command.commands.values():
            tidy_command(sub)
    return command


def _options(command: Command) -> list[str]:
    return [
        o for p in command.params if isinstance(p, TyperOption) for o in p.opts + p.secondary_opts
    ]


def _close(word: str, candidates: Iterable[str]) -> list[str]:
    pool = list(dict.fromkeys(candidates))
    bare = word.lstrip("-").lower()
    same = [c for c in pool if c.lstrip("-").lower() == bare]  # --k → -k
    starts = [c for c in pool if len(bare) >= 3 and c.lstrip("-").lower().startswith(bare)]
    by_bare = {c.lstrip("-").lower(): c for c in pool}
    similar = [by_bare[m] for m in difflib.get_close_matches(bare, list(by_bare), n=3, cutoff=0.75)]
    return list(dict.fromkeys(same + starts + similar))[:3]


def _owners(option: str, ctx: Context) -> list[str]:
    """Commands (``colmeia search``) that do have ``option``, when the user typed it elsewhere."""
    root = ctx.find_root()
    if not isinstance(root.command, TyperGroup):
        return []
    found: list[str] = []

    def walk(group: TyperGroup, path: str) -> None:
        for name in group.list_commands(root):
            sub = group.get_command(root, name)
            if sub is None or sub.hidden:
                continue
            if isinstance(sub, TyperGroup):
                walk(sub, f"{path} {name}")
            elif option in _options(sub):
                found.append(f"{path} {name}")

    walk(root.command, root.info_name or "colmeia")
    return found


def suggest(exc: UsageError) -> UsageError:
    """The same usage error with suggestions a person can use."""
    ctx = exc.ctx
    if ctx is None:
        return exc
    if isinstance(exc, NoSuchOption):
        name = exc.option_name
        close = _close(name, _options(ctx.command))
        if close:
            hint = f"did you mean {' or '.join(close)}?"
        else:
            owners = _owners(name, ctx)
            hint = (
                f"{name} is an option of `{'`, `'.join(owners[:3])}`"
                if owners
                else f"see `{ctx.command_path} --help` for the options"
            )
        return UsageError(f"no such option {name}: {hint}", ctx)
    message = exc.format_message()
    if message.startswith("No such command") and isinstance(ctx.command, TyperGroup):
        typed = message.split("'")[1] if message.count("'") >= 2 else ""
        close = _close(typed, ctx.command.list_commands(ctx)) if typed else []
        if close:
            return UsageError(f"no such command {typed!r}: did you mean {close[0]!r}?", ctx)
    return exc


def fail(exc: ColmeiaError) -> typer.Exit:
    """Print a deliberate error on one line; return the exit to raise.

    Exit 2 when the user must change the command, settings or input (configuration, input, no
    store where one was expected), 1 when something failed while working.
    """
    kind = "configuration error" if isinstance(exc, ConfigurationError) else "error"
    message = " ".join(str(exc).split())
    typer.echo(f"{kind}: {message}", err=True)
    usage = isinstance(exc, ConfigurationError | InputError | MissingStoreError)
    return typer.Exit(_EXIT_USAGE if usage else _EXIT_FAILED)


def report_unexpected(exc: BaseException, *, verbose: bool) -> typer.Exit:
    """A failure colmeia did not foresee: one line, the traceback only when asked for."""
    if isinstance(exc, KeyboardInterrupt):
        typer.echo("interrupted", err=True)
        return typer.Exit(_EXIT_INTERRUPTED)
    if verbose:
        traceback.print_exception(exc, file=sys.stderr)
    detail = " ".join(str(exc).split())[:300]
    typer.echo(
        f"unexpected error: {type(exc).__name__}: {detail}"
        + ("" if verbose else " (run with -v for the traceback; please report it)"),
        err=True,
    )
    return typer.Exit(_EXIT_FAILED)


class _Closable(Protocol):
    async def aclose(self) -> None: ...


def run_and_close(work: Coroutine[Any, Any, T], *closables: _Closable | None) -> T:
    """``asyncio.run(work)``, then close each model on the same loop even when ``work`` fails.

    A model's HTTP connections belong to the loop that opened them; closing them there is what
    keeps "Unclosed client session" warnings away.
    """
    import asyncio

    async def run() -> T:
        try:
            return await work
        finally:
            for c in closables:
                if c is not None:
                    await c.aclose()

    return asyncio.run(run())


def command_usage() -> Usage:
    """The usage of every model call the running command makes from now on.

    The tracker lives as long as the command's context, so nothing leaks into the next command
    (tests run many in one process). Call it before the work starts.
    """
    from typer._click.globals import get_current_context

    from colmeia.llm.base import track_usage

    return get_current_context().with_resource(track_usage()).usage


def say_if_simulated(usage: Usage | None, console: Console | None = None) -> bool:
    """Print the simulated-model line (yellow, one line) when ``usage`` counts such answers."""
    from colmeia.llm.notice import simulated_notice

    line = simulated_notice(usage)
    if line is None:
        return False
    if console is None:
        typer.echo(line, err=True)
    else:
        console.print(f"[yellow]{line}[/]", highlight=False, soft_wrap=True)
    return True
