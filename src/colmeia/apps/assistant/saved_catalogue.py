"""The norms a collection holds (:class:`~colmeia.apps.assistant.scope.NormCatalogue`), kept on
disk beside the store's other indexes as the definitions index is.

Building the catalogue reads every document of the collection: about a third of an offline CLI
turn, paid again by every new process. Saved, a new process reads a few hundred bytes. The
file is named by the collection's generation and by the code that builds the catalogue
(:class:`~colmeia.apps.assistant.collection_cache.Saved`), so an ingest or a change to
``scope.py`` builds it anew, and a damaged file is built again.
"""

from __future__ import annotations

import orjson

from colmeia.apps.assistant.collection_cache import PerCollection, Saved
from colmeia.apps.assistant.scope import NormCatalogue
from colmeia.store.base import Store

__all__ = ["SAVED", "norm_catalogue"]


def _dump(catalogue: NormCatalogue) -> bytes:
    # JSON has no tuple keys: one row per norm, (kind, number, label, federal)
    rows = [
        [kind, number, label, catalogue.federal.get((kind, number), False)]
        for (kind, number), label in catalogue.norms.items()
    ]
    return orjson.dumps({"norms": rows, "other_documents": catalogue.other_documents})


def _load(data: bytes) -> NormCatalogue:
    saved = orjson.loads(data)
    catalogue = NormCatalogue(other_documents=int(saved["other_documents"]))
    for kind, number, label, federal in saved["norms"]:
        catalogue.norms[(str(kind), str(number))] = str(label)
        catalogue.federal[(str(kind), str(number))] = bool(federal)
    return catalogue


SAVED = Saved(
    "norms",
    _dump,
    _load,
    ("colmeia.apps.assistant.scope", "colmeia.rag.index.lexical"),
)
_CATALOGUES: PerCollection[NormCatalogue] = PerCollection(
    NormCatalogue.build, NormCatalogue, saved=SAVED
)


def norm_catalogue(store: Store, collection: str) -> NormCatalogue:
    """The catalogue of ``collection``: from memory, else from disk, else built (and saved)."""
    return _CATALOGUES.get(store, collection)
