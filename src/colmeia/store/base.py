"""What a store keeps and the one interface every backend (SQLite, PostgreSQL) implements.

A store holds collections of documents and their chunks (text, citation data, optional
vectors). Search indexes are derived from it: every change bumps the collection's
``generation``, so an index built for an older generation is known to be stale.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

# numpy types appear only in annotations: listing or deleting collections never loads numpy.
if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "NAME_RULE",
    "CollectionInfo",
    "OpenMode",
    "Store",
    "StoredChunk",
    "StoredDocument",
    "name_problem",
    "safe_folder_name",
    "validate_collection_name",
]


@dataclass(slots=True)
class StoredDocument:
    """A source document as stored: its id, where it came from and its content hash."""

    doc_id: str
    content_hash: str
    title: str = ""
    path: str = ""
    doc_type: str = ""
    year: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    n_chunks: int = 0


@dataclass(slots=True)
class StoredChunk:
    """A passage as stored, with what is needed to cite it and to filter on its document."""

    chunk_id: str
    doc_id: str
    seq: int
    text: str
    page_start: int = 1
    page_end: int = 1
    char_start: int = 0
    char_end: int = 0
    path: str = ""
    heading: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    # Filled from the document when read back (for filters and citations).
    title: str = ""
    source_path: str = ""
    doc_type: str = ""
    year: int | None = None


OpenMode = Literal["create", "write", "read"]
"""How a store is opened: ``create`` if missing, ``write`` an existing one, ``read`` only."""


@dataclass(slots=True)
class CollectionInfo:
    """A collection's counts, its change counter and the embedder its vectors came from."""

    name: str
    documents: int
    chunks: int
    generation: int
    embedder: str = ""
    dim: int = 0


NAME_RULE = (
    "1-64 letters of any alphabet (ação, Ñandú), digits 0-9, '.', '_' or '-', starting with a "
    "letter or digit"
)


def name_problem(name: str) -> str | None:
    """Why ``name`` breaks the one rule for names of things (collections and every name in a
    path: CLI, API and UI alike), or ``None``. Names become folder names, so they are short,
    written in NFC, and hold letters of any script and ASCII digits; digits of other scripts
    (``٣٤``) and marks alone are refused because they look like other names."""
    import unicodedata

    if not name:
        return "the name is empty"
    if len(name) > 64:
        return f"the name has {len(name)} characters, over 64"
    if unicodedata.normalize("NFC", name) != name:
        return "the name is not in NFC (compose its accents)"
    for i, c in enumerate(name):
        letter = unicodedata.category(c).startswith("L")
        mark = unicodedata.category(c).startswith("M") and i > 0
        if not (letter or mark or "0" <= c <= "9" or (i > 0 and c in "._-")):
            return f"{c!r} is not allowed" + (" first" if c in "._-" else "")
    return None


def validate_collection_name(name: str) -> str:
    """``name`` when it follows :data:`NAME_RULE`, else a ConfigurationError saying why."""
    from colmeia.errors import ConfigurationError

    problem = name_problem(name)
    if problem is not None:
        raise ConfigurationError(f"invalid collection name {name!r}: {problem}; use {NAME_RULE}")
    return name


def safe_folder_name(name: str) -> str:
    """``name`` if it is safe as one folder name (what older rules let through stays usable:
    listed, read and deleted), else a ConfigurationError."""
    from colmeia.errors import ConfigurationError

    if not name or name in (".", "..") or name.startswith(".") or any(c in name for c in "/\\\0"):
        raise ConfigurationError(f"invalid collection name {name!r}: use {NAME_RULE}")
    return name


@runtime_checkable
class Store(Protocol):
    """Durable documents and chunks, grouped in collections."""

    url: str

    @property
    def index_dir(self) -> Path:
        """Folder where derived search indexes for this store may be cached."""
        ...

    def ensure_collection(self, name: str) -> None:
        """Create the collection if it does not exist."""
        ...

    def collections(self) -> list[CollectionInfo]:
        """Every collection with its counts."""
        ...

    def collection(self, name: str) -> CollectionInfo | None:
        """One collection's counts, or ``None`` if it does not exist."""
        ...

    def delete_collection(self, name: str) -> bool:
        """Remove a collection and everything in it; ``False`` if it did not exist."""
        ...

    def document_hashes(self, collection: str) -> dict[str, str]:
        """``doc_id → content_hash`` for every document of the collection."""
        ...

    def documents(self, collection: str) -> list[StoredDocument]:
        """Every document of the collection (without chunks), ordered by id."""
        ...

    def replace_document(
        self,
        collection: str,
        document: StoredDocument,
        chunks: Sequence[StoredChunk],
        vectors: npt.NDArray[np.float32] | None = None,
    ) -> None:
        """Atomically put ``document`` with exactly these chunks (and vectors, row-aligned)."""
        ...

    def delete_documents(self, collection: str, doc_ids: Sequence[str]) -> int:
        """Delete documents and their chunks; returns how many documents went."""
        ...

    def chunks(self, collection: str) -> list[StoredChunk]:
        """Every chunk of the collection, ordered by ``(doc_id, seq)`` (index order)."""
        ...

    def get_chunks(self, collection: str, chunk_ids: Sequence[str]) -> dict[str, StoredChunk]:
        """The chunks with these ids (missing ids are left out)."""
        ...

    def vectors(self, collection: str) -> tuple[list[str], npt.NDArray[np.float32]]:
        """Chunk ids and their vectors (rows aligned), ordered like :meth:`chunks`."""
        ...

    def set_embedder(self, collection: str, embedder: str, dim: int) -> None:
        """Record which embedder made the collection's vectors."""
        ...

    def native_vector_search(
        self, collection: str, vector: npt.NDArray[np.float32], k: int
    ) -> list[tuple[str, float]] | None:
        """Nearest chunks by cosine similarity in the database, or ``None`` if unsupported."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...
