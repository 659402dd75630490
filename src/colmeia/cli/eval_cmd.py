"""``colmeia eval retrieval | review | assistant``: each measure lives with its app's commands.

A group of its own, so that ``colmeia search`` loads none of the literature or assistant
commands, and ``colmeia eval`` all three.
"""

from __future__ import annotations

import typer

from colmeia.cli.assistant_cmd import eval_assistant
from colmeia.cli.rag_cmd import eval_retrieval
from colmeia.cli.review_cmd import eval_review

__all__ = ["app"]

app = typer.Typer(help="Measure quality against judged queries.")
app.command("retrieval")(eval_retrieval)
app.command("review")(eval_review)
app.command("assistant")(eval_assistant)
