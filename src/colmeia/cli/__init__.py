"""The ``colmeia`` command. Each command group lives in its own module and holds no logic."""

from __future__ import annotations

import importlib
import logging

import typer

from colmeia import __version__

__all__ = ["app", "main"]

app = typer.Typer(
    name="colmeia",
    help="LLM agent systems for Portuguese and Spanish content.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

# (module, group name or None to add its commands at top level). Each module defines `app`.
_GROUPS: list[tuple[str, str | None]] = [
    ("colmeia.cli.llm_cmd", "llm"),
    ("colmeia.cli.sim_cmd", "sim"),
    ("colmeia.cli.rag_cmd", None),
    ("colmeia.cli.moderate_cmd", "moderate"),
    ("colmeia.cli.agent_cmd", "agent"),
]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"colmeia {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version and exit."
    ),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log progress details."),
) -> None:
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )


for _module, _name in _GROUPS:
    _sub = importlib.import_module(_module).app
    if _name is None:
        app.registered_commands.extend(_sub.registered_commands)
        app.registered_groups.extend(_sub.registered_groups)
    else:
        app.add_typer(_sub, name=_name)


def main() -> None:
    """Entry point of the ``colmeia`` script."""
    app()
