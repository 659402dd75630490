"""The product's own documents (manuals, specifications, FAQ) as context for the moderators.

A colmeia RAG collection holds the documents (``colmeia ingest DOCS --collection C``). For each
record, :class:`ProductDocuments` finds the product's documents by the listing's brand and title,
then the passages of those documents nearest to the question, and hands them to the contextual
reviewer, the suggester, the rewriter and the decider. The passages shown are kept in the audit
trail (a ``documents`` step), so a verdict can be traced to what the models read.

The product is matched first, the question second, because a passage about another product is
worse than none: a reviewer would judge the answer against the wrong warranty or
compatibility list. When the listing names a brand, only documents whose title names it are
taken (a maker's documents carry its name); a record whose product has no document gets no
passage, and the trail says so.
"""

from __future__ import annotations

import logging
import unicodedata
from dataclasses import dataclass
from typing import Any

from colmeia.apps.moderation.records import AgentView
from colmeia.errors import ConfigurationError
from colmeia.rag.retrieve import Hit, Retriever
from colmeia.store import Store, open_store

__all__ = ["DEFAULT_PASSAGES", "Passage", "ProductDocuments", "product_query"]

log = logging.getLogger(__name__)

#: Passages shown per record: enough for a warranty, a compatibility list and the items in the
#: box, few enough to keep a small model's prompt short.
DEFAULT_PASSAGES = 3
#: How many candidate documents the product search considers before the brand check.
_CANDIDATE_DOCUMENTS = 5
#: Candidate passages read when ranking the chosen documents' passages by the question.
_CANDIDATE_PASSAGES = 60
#: Characters of one passage sent to the models (a long manual section is cut, not dropped).
_PASSAGE_CHARS = 1200

_TITLE_KEYS = ("title", "TITLE", "titulo", "TITULO", "name", "NAME")
_BRAND_KEYS = ("BRAND", "brand", "MARCA", "marca")


@dataclass(frozen=True, slots=True)
class Passage:
    """One passage shown to the models, as the audit trail cites it."""

    id: str
    doc_id: str
    title: str
    text: str
    score: float

    def cited(self) -> dict[str, Any]:
        """What the trail keeps: which passage, from which document, how well it matched."""
        return {
            "id": self.id,
            "doc_id": self.doc_id,
            "title": self.title,
            "score": round(self.score, 4),
        }


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _field(context: dict[str, Any], keys: tuple[str, ...]) -> str:
    for key in keys:
        value = context.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def product_query(view: AgentView) -> tuple[str, str]:
    """(brand, brand + title) of the record's product; empty when the listing names neither."""
    brand = _field(view.context, _BRAND_KEYS)
    title = _field(view.context, _TITLE_KEYS)
    return brand, " ".join(p for p in (brand, title) if p)


class ProductDocuments:
    """Retrieves a record's product passages from one collection of a store."""

    def __init__(
        self,
        store: Store,
        collection: str,
        *,
        passages: int = DEFAULT_PASSAGES,
        embedder: Any = None,
        store_url: str = "",
    ) -> None:
        if passages < 1:
            raise ConfigurationError("context passages must be at least 1")
        info = store.collection(collection)
        if info is None or info.documents == 0:
            raise ConfigurationError(
                f"context collection {collection!r} is not in the store {store_url or ''} or is "
                "empty: ingest the product documents first (colmeia ingest DOCS --collection "
                f"{collection}), or name another collection"
            )
        self.store = store
        self.collection = collection
        self.passages = passages
        self.store_url = store_url
        self.documents = info.documents
        self.generation = info.generation
        self._retriever = Retriever(store, collection, embedder=embedder, per_document=passages)

    @classmethod
    def open(
        cls, store_url: str, collection: str, *, passages: int = DEFAULT_PASSAGES
    ) -> ProductDocuments:
        """The collection in the store at ``store_url`` (read only; nothing is created)."""
        from colmeia.config import get_settings
        from colmeia.rag.index.embedders import default_embedder

        settings = get_settings()
        url = store_url if "://" in store_url else f"sqlite:///{store_url}"
        store = open_store(url, cache_dir=settings.home, mode="read")
        try:
            return cls(
                store,
                collection,
                passages=passages,
                embedder=default_embedder(settings.embeddings),
                store_url=store_url,
            )
        except BaseException:
            store.close()
            raise

    def describe(self) -> dict[str, Any]:
        """What the manifest records: which collection, how many passages, its state."""
        return {
            "collection": self.collection,
            "passages": self.passages,
            "documents": self.documents,
            "generation": self.generation,
        }

    def close(self) -> None:
        self.store.close()

    async def for_record(self, view: AgentView) -> tuple[str, list[Passage]]:
        """The query used and the passages of this record's product nearest to its question."""
        brand, product = product_query(view)
        if not product:
            return "", []
        found = await self._retriever.asearch(
            product, _CANDIDATE_DOCUMENTS * self.passages, per_document=1
        )
        wanted = _fold(brand)
        docs = [h.doc_id for h in found if not wanted or wanted in _fold(h.citation.document)]
        if not docs:
            return product, []
        # The product's document is the best match on brand and title; the question alone then
        # ranks that document's passages (with the product's words in the query, its title
        # passage would win every question). Passages that share no word with the question
        # follow, ranked by question and product together, up to the number asked for.
        chosen = docs[0]
        query = f"{view.question} {product}"
        mine: list[Hit] = []
        for q in (view.question, query):
            hits = await self._retriever.asearch(
                q, _CANDIDATE_PASSAGES, per_document=_CANDIDATE_PASSAGES
            )
            seen = {h.chunk_id for h in mine}
            mine += [h for h in hits if h.doc_id == chosen and h.chunk_id not in seen]
        mine = mine[: self.passages]
        log.debug("documents for %r: %s", product, [h.chunk_id for h in mine])
        return query, [_passage(h) for h in mine]


def _passage(hit: Hit) -> Passage:
    # One line per passage: the line breaks of the source cost tokens and say nothing.
    text = " ".join(hit.text.split())
    if len(text) > _PASSAGE_CHARS:
        text = text[:_PASSAGE_CHARS].rsplit(" ", 1)[0] + " …"
    return Passage(hit.chunk_id, hit.doc_id, hit.citation.document, text, float(hit.score))
