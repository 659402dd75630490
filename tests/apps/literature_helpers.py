"""A literature library in a temporary store, for the tests that ask or search it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from colmeia.apps.literature import import_library
from colmeia.store import Store, open_store


def library_store(tmp_path: Path, csv: str, collection: str = "col") -> Iterator[Store]:
    """A SQLite store holding ``csv`` (a catalogue's text) imported as ``collection``; yields
    it and closes it (use as the body of a fixture: ``yield from library_store(...)``)."""
    (tmp_path / "c.csv").write_text(csv, encoding="utf-8")
    st = open_store(f"sqlite:///{tmp_path / 's.db'}", cache_dir=tmp_path / "cache")
    import_library(st, collection, [tmp_path / "c.csv"])
    yield st
    st.close()
