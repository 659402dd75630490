"""Imported first by the fork server of :mod:`colmeia.rag.bounded`: a child that cannot start
says so in one line, not with a Python traceback.

On Ctrl-C the ingesting process exits while the fork server may be starting a reader for it;
that child then fails to unpickle the parent's (already removed) queue lock, and the fork server
printed the full traceback on the person's terminal (seen under load in the CLI's Ctrl-C test).
The parent already reports what was interrupted, and a reader that never starts fails only its
file there (a broken pool), so one line is all a person needs.
"""

from __future__ import annotations

import sys
from types import TracebackType

__all__ = ["quiet_excepthook"]


def quiet_excepthook(
    kind: type[BaseException], value: BaseException, tb: TracebackType | None
) -> None:
    """One line on stderr for an exception that would end a reader process."""
    sys.stderr.write(f"colmeia: a file reader process stopped ({kind.__name__}: {value})\n")


# The fork server runs the children it forks through sys.excepthook when they fail to start.
sys.excepthook = quiet_excepthook
