"""The ``colmeia`` command. Each command group lives in its own module and holds no logic.

Groups are imported only when their command runs: the apps pull in LangGraph, matplotlib and
friends, and ``colmeia search`` should not wait for them.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import logging
from gettext import gettext as _
from typing import Any, NamedTuple

import typer
from typer._click import Command, Context, HelpFormatter
from typer._click.exceptions import ClickException, UsageError
from typer.core import TyperCommand, TyperGroup

from colmeia import __version__
from colmeia.cli.plumbing import fail, report_unexpected, suggest, tidy_command
from colmeia.errors import ColmeiaError

__all__ = ["app", "main"]


class _Lazy(NamedTuple):
    module: str  # the module defining a Typer ``app``
    is_group: bool  # the name is that app's group (else one of the app's top-level commands)
    help: str  # the command's help as its module states it (tests/cli/test_lean_imports.py)


# ``colmeia --help`` lists these from their ``help`` here, importing none of their modules.
_LAZY: dict[str, _Lazy] = {
    "llm": _Lazy(
        "colmeia.cli.llm_cmd",
        True,
        "The language model: serve one locally, check it is reachable and what it supports.",
    ),
    "sim": _Lazy(
        "colmeia.cli.sim_cmd",
        True,
        "The simulated model: an OpenAI-compatible server for tests and demos.",
    ),
    "moderate": _Lazy(
        "colmeia.cli.moderate_cmd",
        True,
        "Moderate AI-written answers: keep, rewrite or withhold, with a full audit trail.",
    ),
    "agent": _Lazy(
        "colmeia.cli.agent_cmd",
        True,
        "Agent paradigms: ReAct, Plan-and-Solve and Reflection over tools.",
    ),
    "registry": _Lazy(
        "colmeia.cli.registry_cmd",
        True,
        "The case registry (processes, expedientes, movements).",
    ),
    "assistant": _Lazy(
        "colmeia.cli.assistant_cmd",
        True,
        "The institutional assistant: cases, laws, approvals.",
    ),
    "ingest": _Lazy(
        "colmeia.cli.rag_cmd",
        False,
        "Add files, folders and CSV rows to a collection (unchanged documents are skipped).",
    ),
    "search": _Lazy(
        "colmeia.cli.rag_cmd",
        False,
        "Search a collection (lexical, or hybrid when embeddings are configured).",
    ),
    "ask": _Lazy(
        "colmeia.cli.rag_cmd",
        False,
        "Answer with citations to passages (extractive answer when no model is configured).",
    ),
    "collections": _Lazy(
        "colmeia.cli.rag_cmd",
        False,
        "List the collections with their document and chunk counts.",
    ),
    "delete": _Lazy(
        "colmeia.cli.rag_cmd",
        False,
        "Delete documents (by file or id) or, with neither, the whole collection (asks first).",
    ),
    "eval": _Lazy("colmeia.cli.eval_cmd", True, "Measure quality against judged queries."),
    "serve": _Lazy(
        "colmeia.cli.serve_cmd",
        False,
        "Serve the API (OpenAPI at /docs) and the web UI (/) until Ctrl-C or SIGTERM.",
    ),
    "keys": _Lazy("colmeia.cli.keys_cmd", True, "API keys of the service (one tenant per key)."),
    "review": _Lazy(
        "colmeia.cli.review_cmd", True, "Literature review over a collection of works."
    ),
    "prompts": _Lazy(
        "colmeia.cli.prompts_cmd",
        True,
        "Prompt templates: export the packaged ones, check a prompts folder.",
    ),
}


def _load(name: str) -> Any:
    found = _load_command(name)
    return tidy_command(found) if found is not None else None


def _load_command(name: str) -> Any:
    module, is_group, _ = _LAZY[name]
    sub: typer.Typer = importlib.import_module(module).app
    command = typer.main.get_command(sub)
    if not is_group:
        if isinstance(command, TyperGroup):
            return command.commands.get(name)
        return command if command.name == name else None
    if not isinstance(command, TyperGroup):
        # A Typer app with a single command collapses into that command: keep the group.
        group = TyperGroup(
            name=name, help=sub.info.help if isinstance(sub.info.help, str) else None
        )
        group.add_command(command)
        return group
    command.name = name
    return command


class _LazyGroup(TyperGroup):
    def list_commands(self, ctx: Any) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(_LAZY))

    def format_commands(self, ctx: Context, formatter: HelpFormatter) -> None:
        # click's layout, with a command not loaded yet described by its entry in _LAZY.
        rows: list[tuple[str, Command]] = []
        for name in self.list_commands(ctx):
            command = self.commands.get(name)
            if command is None and name in _LAZY:
                command = TyperCommand(name, help=_LAZY[name].help)
            if command is not None and not command.hidden:
                rows.append((name, command))
        if rows:
            limit = formatter.width - 6 - max(len(name) for name, _ in rows)
            with formatter.section(_("Commands")):
                formatter.write_dl([(name, c.get_short_help_str(limit)) for name, c in rows])

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        found = super().get_command(ctx, cmd_name)
        if found is None and cmd_name in _LAZY:
            found = _load(cmd_name)
            if found is not None:
                self.add_command(found, cmd_name)
        return found

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except UsageError as exc:
            raise suggest(exc) from None

    def invoke(self, ctx: Context) -> Any:
        # The one place where errors become messages: see cli/plumbing.py.
        try:
            return super().invoke(ctx)
        except UsageError as exc:
            raise suggest(exc) from None
        except (typer.Exit, typer.Abort, ClickException):
            raise
        except ColmeiaError as exc:
            raise fail(exc) from None
        except (Exception, KeyboardInterrupt) as exc:
            raise report_unexpected(exc, verbose=bool(ctx.params.get("verbose"))) from None


app = typer.Typer(
    name="colmeia",
    cls=_LazyGroup,
    help="LLM agent systems for Portuguese and Spanish content.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"colmeia {__version__}")
        raise typer.Exit()


class _OnlyOurChatter(logging.Filter):
    """Below WARNING, only colmeia's own records reach the terminal."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or record.name.split(".")[0] == "colmeia"


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version and exit."
    ),
    verbose: bool = typer.Option(
        False, "--verbose", "-v", help="Log what colmeia does (COLMEIA_LOG_LEVEL=INFO)."
    ),
) -> None:
    from colmeia.config import get_settings

    # Only colmeia's own loggers get chattier: libraries stay at WARNING (faiss announces
    # which CPU build it loads at INFO, which nobody asked for).
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    # A library that sets its own logger to DEBUG (bm25s does, at import) bypasses the root's
    # level: records are filtered where they are written instead.
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, _OnlyOurChatter) for f in handler.filters):
            handler.addFilter(_OnlyOurChatter())
    logging.getLogger("colmeia").setLevel(
        logging.INFO if verbose else getattr(logging, get_settings().log_level)
    )


def _freeze() -> None:
    # When the process ends, the interpreter's last garbage collections walk every object the
    # imports made, only to free memory the OS takes back anyway: ~0.1 s CPU after a search, a
    # quarter of it. One collection first, so that what is already garbage (a store somebody
    # forgot to close) is still finalised, then the rest is frozen and those passes skip it.
    # atexit handlers, flushing and refcount-driven closing still run.
    gc.collect()
    gc.freeze()


def main(*args: Any, **kwargs: Any) -> None:
    """Entry point of the ``colmeia`` script."""
    atexit.register(_freeze)
    app(*args, **kwargs)
