"""A value kept per collection, in memory and on disk, as a user of the cache sees it: built once
per generation of a collection and per store, an empty value for a collection that does not
exist, a file named by the value, the generation and the building code, read by a new process,
replaced (and the old one deleted) after an ingest, rebuilt when damaged, and still served when
the folder cannot be written (real SQLite stores in temporary folders)."""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from colmeia.apps.assistant.collection_cache import PerCollection, Saved
from colmeia.rag.pipeline import ingest
from colmeia.store import Store, open_store

LOGGER = "colmeia.apps.assistant.collection_cache"
SAVED: Saved[dict[str, int]] = Saved(
    "counts",
    lambda value: json.dumps(value).encode(),
    lambda data: dict(json.loads(data)),
    ("colmeia.apps.assistant.collection_cache",),
)


class Counting:
    """Builds a value from the collection's passages, counting its calls."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, store: Store, collection: str) -> dict[str, int]:
        self.calls.append(collection)
        info = store.collection(collection)
        return {"generation": info.generation if info else -1}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    (tmp_path / "a.md").write_text("# Lei A\n\nO prazo é de dez dias.\n", encoding="utf-8")
    opened = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    ingest(opened, "leis", [tmp_path / "a.md"])
    yield opened
    opened.close()


def _more(store: Store, tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text(f"# {name}\n\nOutro texto de lei.\n", encoding="utf-8")
    ingest(store, "leis", [tmp_path / name])


def test_a_value_is_built_once_per_generation(store: Store, tmp_path: Path) -> None:
    build = Counting()
    cache = PerCollection(build, dict)
    first = cache.get(store, "leis")
    assert cache.get(store, "leis") is first
    assert build.calls == ["leis"]
    _more(store, tmp_path, "b.md")
    second = cache.get(store, "leis")
    assert second["generation"] > first["generation"]
    assert build.calls == ["leis", "leis"]


def test_a_collection_that_does_not_exist_gets_the_empty_value_without_a_build(
    store: Store,
) -> None:
    build = Counting()
    cache = PerCollection(build, lambda: {"empty": 1})
    assert cache.get(store, "nenhuma") == {"empty": 1}
    assert build.calls == []


def test_each_store_has_its_own_value(store: Store, tmp_path: Path) -> None:
    other_dir = tmp_path / "other"
    other_dir.mkdir()
    (other_dir / "c.md").write_text("# C\n\nTexto.\n", encoding="utf-8")
    other = open_store(f"sqlite:///{other_dir / 'store.db'}")
    ingest(other, "leis", [other_dir / "c.md"])
    build = Counting()
    cache = PerCollection(build, dict)
    cache.get(store, "leis")
    cache.get(other, "leis")
    assert build.calls == ["leis", "leis"]
    other.close()


def _files(store: Store) -> list[str]:
    return sorted(p.name for p in (store.index_dir / "leis").iterdir())


def test_the_file_is_named_by_value_generation_and_code_and_a_new_process_reads_it(
    store: Store,
) -> None:
    build = Counting()
    value = PerCollection(build, dict, saved=SAVED).get(store, "leis")
    generation = store.collection("leis").generation  # type: ignore[union-attr]
    name = f"counts-g{generation}-{SAVED.code_key()}.json"
    assert name in _files(store)
    assert json.loads((store.index_dir / "leis" / name).read_bytes()) == value
    assert not [f for f in _files(store) if f.startswith(".")]  # no partial file left
    again = PerCollection(build, dict, saved=SAVED).get(store, "leis")  # a new process
    assert again == value and build.calls == ["leis"]


def test_an_ingest_replaces_the_file_and_deletes_the_old_one_only(
    store: Store, tmp_path: Path
) -> None:
    PerCollection(Counting(), dict, saved=SAVED).get(store, "leis")
    folder = store.index_dir / "leis"
    (folder / "other-g1-abc.json").write_text("{}")  # another value's file: not ours to delete
    before = [f for f in _files(store) if f.startswith("counts-")]
    _more(store, tmp_path, "b.md")
    PerCollection(Counting(), dict, saved=SAVED).get(store, "leis")
    after = [f for f in _files(store) if f.startswith("counts-")]
    assert len(after) == 1 and after != before
    assert "other-g1-abc.json" in _files(store)


def test_a_damaged_file_is_built_again_and_said_so(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    PerCollection(Counting(), dict, saved=SAVED).get(store, "leis")
    (path,) = (store.index_dir / "leis").glob("counts-*.json")
    path.write_bytes(b'{"generation": ')
    build = Counting()
    with caplog.at_level(logging.INFO, logger=LOGGER):
        value = PerCollection(build, dict, saved=SAVED).get(store, "leis")
    assert build.calls == ["leis"] and path.read_bytes() == json.dumps(value).encode()
    (message,) = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    assert message.startswith(f"{path}: ") and message.endswith("; building it again")


def test_a_folder_that_cannot_be_written_still_serves_the_value(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    store.index_dir.mkdir(parents=True, exist_ok=True)
    (store.index_dir / "leis").write_text("a file where the folder should be")
    build = Counting()
    with caplog.at_level(logging.INFO, logger=LOGGER):
        value = PerCollection(build, dict, saved=SAVED).get(store, "leis")
    assert value == build(store, "leis")
    messages = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    assert messages[-1].startswith(f"cannot keep {store.index_dir / 'leis'}")


def test_the_code_key_is_a_digest_of_the_building_modules_source() -> None:
    import colmeia.apps.assistant.collection_cache as module

    source = Path(module.__file__).read_bytes()
    assert SAVED.code_key() == hashlib.sha256(source).hexdigest()[:12]
    builtin = Saved("x", SAVED.dump, SAVED.load, ("sys",))  # no source file: its name counts
    assert builtin.code_key() == hashlib.sha256(b"sys").hexdigest()[:12]
    both = Saved("x", SAVED.dump, SAVED.load, ("sys", "colmeia.apps.assistant.collection_cache"))
    assert both.code_key() == hashlib.sha256(b"sys" + source).hexdigest()[:12]
    assert re.fullmatch(r"[0-9a-f]{12}", both.code_key())
