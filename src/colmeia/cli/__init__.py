"""The ``colmeia`` command. Each command group lives in its own module and holds no logic.

Groups are imported only when their command runs: the apps pull in LangGraph, matplotlib and
friends, and ``colmeia search`` should not wait for them.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

import typer
from typer._click import Context
from typer._click.exceptions import ClickException, UsageError
from typer.core import TyperGroup

from colmeia import __version__
from colmeia.cli.plumbing import fail, report_unexpected, suggest, tidy_command
from colmeia.errors import ColmeiaError

__all__ = ["app", "main"]

# command name → (module defining a Typer `app`, whether the name is a group of that module's
# commands or one of the module's own top-level commands)
_LAZY: dict[str, tuple[str, bool]] = {
    "llm": ("colmeia.cli.llm_cmd", True),
    "sim": ("colmeia.cli.sim_cmd", True),
    "moderate": ("colmeia.cli.moderate_cmd", True),
    "agent": ("colmeia.cli.agent_cmd", True),
    "registry": ("colmeia.cli.registry_cmd", True),
    "assistant": ("colmeia.cli.assistant_cmd", True),
    "ingest": ("colmeia.cli.rag_cmd", False),
    "search": ("colmeia.cli.rag_cmd", False),
    "ask": ("colmeia.cli.rag_cmd", False),
    "collections": ("colmeia.cli.rag_cmd", False),
    "delete": ("colmeia.cli.rag_cmd", False),
    "eval": ("colmeia.cli.rag_cmd", False),
    "serve": ("colmeia.cli.serve_cmd", False),
    "keys": ("colmeia.cli.keys_cmd", True),
    "review": ("colmeia.cli.review_cmd", True),
    "prompts": ("colmeia.cli.prompts_cmd", True),
}


def _load(name: str) -> Any:
    found = _load_command(name)
    return tidy_command(found) if found is not None else None


def _load_command(name: str) -> Any:
    module, is_group = _LAZY[name]
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
    logging.getLogger("colmeia").setLevel(
        logging.INFO if verbose else getattr(logging, get_settings().log_level)
    )


def main(*args: Any, **kwargs: Any) -> None:
    """Entry point of the ``colmeia`` script."""
    app(*args, **kwargs)
