"""Which store a command opens: ``--store`` when given (a bare path or a ``sqlite:///`` URL),
else ``COLMEIA_STORE``, else ``colmeia.db`` in the data folder (``COLMEIA_HOME``); commands that
only read never create one (colmeia.cli.stores.open_store_for)."""

from __future__ import annotations

from pathlib import Path

import pytest

from colmeia.cli.stores import open_store_for
from colmeia.errors import ColmeiaError
from pg import pg_schema_url


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("COLMEIA_STORE", raising=False)
    monkeypatch.setenv("COLMEIA_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)  # no stray .env
    return tmp_path / "home"


def test_without_store_the_data_folders_colmeia_db_is_used(home: Path) -> None:
    store, settings = open_store_for(None, "create")
    store.close()
    assert settings.home == home
    assert (home / "colmeia.db").is_file()


def test_colmeia_store_is_used_when_no_store_is_given(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLMEIA_STORE", str(tmp_path / "shared.db"))
    store, _ = open_store_for(None, "create")
    store.close()
    assert (tmp_path / "shared.db").is_file()
    assert not (home / "colmeia.db").exists()


@pytest.mark.parametrize("as_url", [False, True])
def test_a_store_given_wins_as_a_path_or_a_url(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, as_url: bool
) -> None:
    monkeypatch.setenv("COLMEIA_STORE", str(tmp_path / "shared.db"))
    given = tmp_path / "mine.db"
    store, _ = open_store_for(f"sqlite:///{given}" if as_url else str(given), "create")
    store.ensure_collection("leis")
    store.close()
    assert given.is_file()
    assert not (tmp_path / "shared.db").exists()
    again, _ = open_store_for(str(given), "read")
    assert [c.name for c in again.collections()] == ["leis"]
    again.close()


def test_reading_a_store_that_is_not_there_creates_nothing(home: Path, tmp_path: Path) -> None:
    with pytest.raises(ColmeiaError, match="there is no store at"):
        open_store_for(str(tmp_path / "typo.db"), "read")
    assert not (tmp_path / "typo.db").exists()
    with pytest.raises(ColmeiaError, match="there is no store at"):
        open_store_for(None, "read")
    assert not home.exists() or not (home / "colmeia.db").exists()


def test_a_postgresql_stores_index_cache_is_in_the_data_folder(home: Path) -> None:
    # not in ./.colmeia of whatever folder the command was run from
    with pg_schema_url() as url:
        store, _ = open_store_for(url, "create")
        try:
            assert store.index_dir.parent == home / "index-cache"
        finally:
            store.close()
