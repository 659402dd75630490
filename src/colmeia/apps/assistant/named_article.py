"""The passages of an article the question names: "o que diz o art. 49 da Lei 9.784?".

A question that names a law and one of its articles asks for that article, whatever words it
shares with it ("o que diz" shares none). The law and the article are formal parts, read by the
query analysis (``filters``: ``law_number``, ``article``); here they are looked up exactly in
the collection — every passage whose legal path is that article of that law (``Art. 49``, not
``Art. 49-A``) — so retrieval puts them first instead of hoping a search finds them.
The index is built once per collection generation (like the definition index).
"""

from __future__ import annotations

from collections import defaultdict

from colmeia.apps.assistant.collection_cache import PerCollection
from colmeia.apps.assistant.legal import article_key, parse_legal_path
from colmeia.store.base import Store

__all__ = ["ArticleIndex"]


class ArticleIndex:
    """Chunk ids by ``article_key`` ("9784:49"), in the collection's order."""

    def __init__(self, chunks: dict[str, list[str]]) -> None:
        self.chunks = chunks

    @classmethod
    def build(cls, store: Store, collection: str) -> ArticleIndex:
        out: dict[str, list[str]] = defaultdict(list)
        for chunk in store.chunks(collection):
            ref = parse_legal_path(chunk.path)  # its article is digits and letters, no "º"
            if ref.law and ref.article:
                out[article_key(ref.law, ref.article)].append(chunk.chunk_id)
        return cls(dict(out))

    @classmethod
    def for_collection(cls, store: Store, collection: str) -> ArticleIndex:
        """The index of ``collection``, rebuilt when the collection changed."""
        return _INDEXES.get(store, collection)

    def lookup(self, law_number: str, article: str) -> list[str]:
        """The chunk ids of ``article`` of the law numbered ``law_number`` (none: [])."""
        return list(self.chunks.get(article_key(law_number, article.rstrip("º°")), []))


_INDEXES: PerCollection[ArticleIndex] = PerCollection(ArticleIndex.build, lambda: ArticleIndex({}))
