"""Opening the store a command names (``--store`` or ``COLMEIA_STORE``), for every command group.

Its own module so that the RAG and literature commands share it without importing each other.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from colmeia.cli.plumbing import fail
from colmeia.config import Settings, get_settings
from colmeia.errors import ColmeiaError

if TYPE_CHECKING:
    from colmeia.store import OpenMode, Store

__all__ = ["open_store_for", "opened_store"]


def open_store_for(store_url: str | None, mode: OpenMode) -> tuple[Store, Settings]:
    """The store at ``store_url`` (a bare path is a SQLite file) and the settings it came from."""
    from colmeia.store import open_store

    settings = get_settings()
    url = store_url or settings.store_url()  # open_store reads a bare path as a SQLite file
    return open_store(url, cache_dir=settings.home, mode=mode), settings


@contextmanager
def opened_store(
    store_url: str | None, mode: OpenMode = "create"
) -> Iterator[tuple[Store, Settings]]:
    """The store, opened to create, change or only read it (read never creates anything)."""
    try:
        store, settings = open_store_for(store_url, mode)
    except ColmeiaError as exc:
        raise fail(exc) from None
    try:
        yield store, settings
    except ColmeiaError as exc:
        raise fail(exc) from None
    finally:
        store.close()
