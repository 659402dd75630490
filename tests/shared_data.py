"""Where the test data lives.

``DATA_DIR`` is the sample data shipped in the repository (``data/``), always present in a clone.
``external(*parts)`` finds a file of the optional external sets under ``COLMEIA_DATA_DIR``
(for example the CC BY-NC-ND dissertation, which may not be redistributed); tests that need one
use ``needs_external(...)`` and skip with a one-line reason when it is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

DATA_DIR = Path(__file__).resolve().parents[1] / "data"


def external(*parts: str) -> Path | None:
    """The path of an optional external data file, or None when it is not available."""
    root = os.environ.get("COLMEIA_DATA_DIR", "").strip()
    if not root:
        return None
    path = Path(root).joinpath(*parts)
    return path if path.exists() else None


def needs_external(*parts: str) -> pytest.MarkDecorator:
    """Skip unless ``COLMEIA_DATA_DIR`` holds ``parts`` (the reason names what is missing)."""
    where = "/".join(parts)
    return pytest.mark.skipif(
        external(*parts) is None,
        reason=f"optional external data {where} not found (set COLMEIA_DATA_DIR; see data/README.md)",
    )
