"""The definitions index is kept on disk beside the store's other indexes: a new process reads
the very index the first one built, an ingest makes it build anew, and a damaged file is
built again rather than served or raised.

Each "process" here is a fresh PerCollection (its memory empty), as a new CLI process is; the
build function counts its calls.
"""

from __future__ import annotations

from pathlib import Path

from colmeia.apps.assistant.collection_cache import PerCollection
from colmeia.apps.assistant.definitions import SAVED, DefinitionIndex
from colmeia.rag.pipeline import ingest
from colmeia.store import Store, open_store

LAWS = Path(__file__).resolve().parents[3] / "data" / "laws" / "lexml"


class Counted:
    def __init__(self) -> None:
        self.builds = 0

    def __call__(self, store: Store, collection: str) -> DefinitionIndex:
        self.builds += 1
        return DefinitionIndex.build(store, collection)


def _process(build: Counted) -> PerCollection[DefinitionIndex]:
    return PerCollection(build, lambda: DefinitionIndex({}), saved=SAVED)


def _same(a: DefinitionIndex, b: DefinitionIndex) -> bool:
    return (a.terms, a.df, a.passages, a.in_force, a.scope) == (
        b.terms,
        b.df,
        b.passages,
        b.in_force,
        b.scope,
    )


def test_a_new_process_reads_the_index_the_first_one_built(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'laws.db'}")
    ingest(store, "leis", [LAWS / "lei_13709_20180814.csv"])
    build = Counted()
    first = _process(build).get(store, "leis")
    second = _process(build).get(store, "leis")
    assert build.builds == 1
    assert _same(first, second)
    # what it is for: "dado pessoal sensível" is defined in the LGPD's article 5
    assert first.lookup("dado pessoal sensível") == second.lookup("dado pessoal sensível") != []

    # another law ingested: the collection changed, the index is built anew and covers it
    ingest(store, "leis", [LAWS / "lei_8078_19900911.csv"])
    third = _process(build).get(store, "leis")
    assert build.builds == 2
    assert third.passages > first.passages
    store.close()


def test_a_damaged_file_is_built_again(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'laws.db'}")
    ingest(store, "leis", [LAWS / "lei_13709_20180814.csv"])
    build = Counted()
    first = _process(build).get(store, "leis")
    (saved,) = (store.index_dir / "leis").glob("definitions-*.json")
    saved.write_bytes(b'{"terms": ')
    again = _process(build).get(store, "leis")
    assert build.builds == 2
    assert _same(first, again)
    store.close()
