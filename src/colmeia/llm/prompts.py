"""Jinja2 prompt templates kept as package data, one file per role.

Templates live in a ``prompts/`` folder inside the package that uses them and are rendered
with ``StrictUndefined``: a missing variable is a bug, not an empty string.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jinja2

__all__ = ["render_prompt"]


@lru_cache(maxsize=32)
def _environment(package: str) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader(package, "prompts"),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # prompts are plain text for a model, not HTML
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )


def render_prompt(package: str, name: str, **variables: Any) -> str:
    """Render ``<package>/prompts/<name>`` (e.g. ``("colmeia.apps.moderation", "decider.j2")``)."""
    return _environment(package).get_template(name).render(**variables).strip()
