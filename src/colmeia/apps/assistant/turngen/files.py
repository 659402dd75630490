"""Where the generated sets live (package data) and how they are (re)written."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from colmeia.apps.assistant.turngen.generate import generate_set

__all__ = ["SET_NAMES", "set_folder", "write_sets"]

# --set name → the split the generator writes; the test set is frozen (committed before the
# assistant changes it measures), so it is regenerated only to check it still is what it was
SET_NAMES = {"generated-dev": "dev", "generated-test": "test", "generated-test2": "test2"}


def set_folder(name: str) -> Path:
    """The package folder holding the ``conversations_*.json`` of the set ``name``."""
    split = SET_NAMES[name]
    return Path(str(resources.files("colmeia.apps.assistant").joinpath("data", "generated", split)))


def render(split: str) -> str:
    return json.dumps(generate_set(split), ensure_ascii=False, indent=1) + "\n"


def write_sets(root: Path) -> list[Path]:
    """Write ``root/<split>/conversations_generated.json`` for the dev and test splits."""
    out = []
    for split in SET_NAMES.values():
        path = root / split / "conversations_generated.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(split), encoding="utf-8")
        out.append(path)
    return out
