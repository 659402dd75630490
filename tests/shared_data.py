"""Where the shared evaluation data lives: ``COLMEIA_DATA_DIR``, else ``../shared/data`` beside
the repository (how CI lays it out), else the workplace's ``/work/shared/data``."""

from __future__ import annotations

import os
from pathlib import Path


def _find() -> Path:
    candidates = [
        Path(os.environ.get("COLMEIA_DATA_DIR", "")),
        Path(__file__).resolve().parents[1].parent / "shared" / "data",
        Path("/work/shared/data"),
    ]
    for path in candidates:
        if str(path) not in ("", ".") and (path / "moderation").is_dir():
            return path
    return candidates[-1]


DATA_DIR = _find()
