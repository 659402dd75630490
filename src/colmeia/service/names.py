"""The one name rule at every route: a name that creates something follows
:data:`colmeia.store.base.NAME_RULE` (the CLI's and the store's rule too); a name that reads or
deletes something only has to be safe as a folder name, so what an older rule created stays
listable and deletable (and a name that exists under no rule is a 404, not a 422)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, StringConstraints

from colmeia.store.base import NAME_RULE, name_problem, safe_folder_name

__all__ = ["ExistingName", "NewName"]


def _new(name: str) -> str:
    problem = name_problem(name)
    if problem is not None:
        raise ValueError(f"invalid name {name!r}: {problem}; use {NAME_RULE}")
    return name


def _existing(name: str) -> str:
    from colmeia.errors import ConfigurationError

    try:
        return safe_folder_name(name)
    except ConfigurationError as exc:
        raise ValueError(str(exc)) from exc


NewName = Annotated[str, AfterValidator(_new)]
"""A name for something being created (a collection)."""

ExistingName = Annotated[str, StringConstraints(max_length=200), AfterValidator(_existing)]
"""A name of something that may exist (read, used or deleted)."""
