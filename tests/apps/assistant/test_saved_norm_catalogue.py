"""The norms a collection holds are kept on disk beside the store's other indexes, as the
definitions index is: a new process reads the catalogue the first one built, an ingest makes it
build anew, and a damaged file is built again rather than served or raised.

Each "process" here is a fresh PerCollection (its memory empty), as a new CLI process is; the
build function counts its calls.
"""

from __future__ import annotations

from pathlib import Path

from colmeia.apps.assistant.collection_cache import PerCollection
from colmeia.apps.assistant.saved_catalogue import SAVED, norm_catalogue
from colmeia.apps.assistant.scope import NormCatalogue, named_norms
from colmeia.rag.pipeline import ingest
from colmeia.store import Store, open_store

LAWS = Path(__file__).resolve().parents[3] / "data" / "laws" / "lexml"
LGPD = named_norms("Lei 13.709/2018")[0]
CDC = named_norms("Lei 8.078/1990")[0]


class Counted:
    def __init__(self) -> None:
        self.builds = 0

    def __call__(self, store: Store, collection: str) -> NormCatalogue:
        self.builds += 1
        return NormCatalogue.build(store, collection)


def _process(build: Counted) -> PerCollection[NormCatalogue]:
    return PerCollection(build, NormCatalogue, saved=SAVED)


def test_a_new_process_reads_the_catalogue_the_first_one_built(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'laws.db'}")
    ingest(store, "leis", [LAWS / "lei_13709_20180814.csv"])
    build = Counted()
    first = _process(build).get(store, "leis")
    second = _process(build).get(store, "leis")
    assert build.builds == 1
    assert second == first
    # what it is for: the LGPD is held, and it is federal
    assert second.holds(LGPD) and not second.holds(CDC)
    assert second.labels() == ["Lei 13.709/2018"] and second.only_federal

    # another law ingested: the collection changed, the catalogue is built anew and holds it
    ingest(store, "leis", [LAWS / "lei_8078_19900911.csv"])
    third = _process(build).get(store, "leis")
    assert build.builds == 2
    assert third.holds(LGPD) and third.holds(CDC)
    # only the newest generation's file is kept
    assert len(list((store.index_dir / "leis").glob("norms-*.json"))) == 1
    store.close()


def test_a_damaged_file_is_built_again(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'laws.db'}")
    ingest(store, "leis", [LAWS / "lei_13709_20180814.csv"])
    build = Counted()
    first = _process(build).get(store, "leis")
    (saved,) = (store.index_dir / "leis").glob("norms-*.json")
    saved.write_bytes(b'{"norms": [["Lei"')
    again = _process(build).get(store, "leis")
    assert build.builds == 2
    assert again == first and again.holds(LGPD)
    store.close()


def test_the_assistant_reads_its_catalogue_from_disk(tmp_path: Path) -> None:
    # rag_agent asks norm_catalogue(): its first call leaves the file a next process reads
    store = open_store(f"sqlite:///{tmp_path / 'laws.db'}")
    ingest(store, "leis", [LAWS / "lei_13709_20180814.csv"])
    catalogue = norm_catalogue(store, "leis")
    (saved,) = (store.index_dir / "leis").glob("norms-*.json")
    assert SAVED.load(saved.read_bytes()) == catalogue
    assert norm_catalogue(store, "nothing-here") == NormCatalogue()
    store.close()
