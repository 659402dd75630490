"""A test-only pause point: with ``COLMEIA_SERVICE_TEST_GATE`` naming a folder, a job stops at a
known point so a restart test can kill the process there, not race the work.

The runner calls :func:`pause_at` with a point name and a count (files ingested, records
moderated). When ``<folder>/<point>.at`` holds a number and the count reaches it, the runner
writes ``<point>.reached`` (with the count) and waits until ``<point>.go`` exists, once per
process. Unset (every deployment): one attribute check.
"""

from __future__ import annotations

import time
from pathlib import Path

__all__ = ["pause_at"]


def pause_at(folder: Path | None, point: str, count: int) -> None:
    """Block here when the gate in ``folder`` says so (see the module's text)."""
    if folder is None:
        return
    at = folder / f"{point}.at"
    reached = folder / f"{point}.reached"
    if reached.exists() or not at.exists() or count < int(at.read_text().strip() or 0):
        return
    reached.write_text(str(count))
    while not (folder / f"{point}.go").exists():
        time.sleep(0.02)
