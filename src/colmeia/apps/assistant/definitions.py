"""Where a collection defines its terms ("Fornecedor é toda pessoa…", "considera-se X").

"O que é fornecedor?" is a common question about laws, and BM25 ranks the definition badly:
the word appears in hundreds of dispositivos, the definition is one of them. This index maps
each defined term (stemmed) to the passages that define it, found once per collection
generation with a few patterns of legislative drafting (LC 95/1998 style):

* ``X é …`` / ``X são …`` at the start of a dispositivo;
* ``considera-se X …`` / ``entende-se por X …``;
* ``X: …`` items of a "Para os fins desta Lei, considera-se:" list (incisos).
"""

from __future__ import annotations

import re
import threading

from colmeia.rag.index.lexical import Analyzer, fold_accents
from colmeia.store.base import Store

__all__ = ["DefinitionIndex"]

_analyzer = Analyzer()
_STARTS = re.compile(
    r"^\W*([a-z][a-z\- ]{2,40}?)\s+(?:e|sao)\s+(?:o|a|os|as|um|uma|toda|todo|aquel)"
)
_CONSIDERA = re.compile(
    r"(?:considera-se|consideram-se|entende-se por|entendem-se por)\s+([a-z][a-z\- ]{2,40}?)[\s,:]"
)
_ITEM = re.compile(r"^\W*(?:[ivxlcdm]+\s*[-–]\s*)?([a-z][a-z\- ]{2,40}?)\s*:\s")


def _key(term: str) -> str:
    return " ".join(_analyzer.tokens(term))


class DefinitionIndex:
    """Defined term (stemmed words) → chunk ids of the passages defining it."""

    _cache: dict[tuple[str, str, int], DefinitionIndex] = {}
    _lock = threading.Lock()

    def __init__(self, terms: dict[str, list[str]]) -> None:
        self.terms = terms

    @classmethod
    def build(cls, store: Store, collection: str) -> DefinitionIndex:
        terms: dict[str, list[str]] = {}
        for chunk in store.chunks(collection):
            text = fold_accents(chunk.text[:300].lower())
            for pattern in (_STARTS, _CONSIDERA, _ITEM):
                m = pattern.search(text)
                if m:
                    key = _key(m.group(1))
                    if key:
                        terms.setdefault(key, []).append(chunk.chunk_id)
        return cls(terms)

    @classmethod
    def for_collection(cls, store: Store, collection: str) -> DefinitionIndex:
        """The index of ``collection``, rebuilt when the collection changed."""
        info = store.collection(collection)
        generation = info.generation if info else -1
        key = (store.url, collection, generation)
        with cls._lock:
            found = cls._cache.get(key)
            if found is None:
                found = cls.build(store, collection) if info else cls({})
                cls._cache = {k: v for k, v in cls._cache.items() if k[:2] != key[:2]}
                cls._cache[key] = found
            return found

    def lookup(self, term: str) -> list[str]:
        """Chunk ids defining ``term`` (exact stemmed match, then as the head of a phrase)."""
        key = _key(term)
        if not key:
            return []
        exact = self.terms.get(key, [])
        if exact:
            return list(exact)
        return [cid for k, ids in self.terms.items() if k.split()[0] == key for cid in ids][:5]
