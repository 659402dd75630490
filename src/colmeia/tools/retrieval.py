"""Tool retrieval: with dozens of tools, offer the model only the few that matter for this step.

Lexical search (BM25 via ``bm25s``) over each tool's name, description and parameter
descriptions, with lower-casing, accent folding (``ação`` = ``acao``), stopwords for
English/Portuguese/Spanish and stemming. If an embedder is given (anything with
``embed(texts) -> array``, e.g. :mod:`colmeia.rag.index.embedders`), dense similarity is fused
with the lexical ranking by reciprocal rank fusion.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import bm25s
import numpy as np
import Stemmer

from colmeia.tools.registry import Tool

__all__ = ["TextEmbedder", "ToolRetriever", "fold"]

_WORD = re.compile(r"[a-z0-9]+")
_STOPWORDS = frozenset(
    """a an the and or of to in on for with by from at as is are be this that it its into
    use used using uses when what which who how do does can will your you their them return
    returns given get gets one any all o os as um uma uns umas de da do das dos em no na nos
    nas por para com sem que e ou se ao aos el la los las un una unos unas del al en por
    para con sin y es son su sus lo le les me mi""".split()  # noqa: SIM905
)


def fold(text: str) -> str:
    """Lower-case and strip accents: ``Ação`` → ``acao``."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@runtime_checkable
class TextEmbedder(Protocol):
    """Texts → vectors (one row per text)."""

    def embed(self, texts: Sequence[str]) -> Any: ...


def _name_words(t: Tool) -> str:
    return t.name.replace("_", " ").replace("-", " ")


def _tool_document(t: Tool) -> str:
    parts = [t.name.replace("_", " ").replace("-", " "), t.description, " ".join(t.tags)]
    for pname, prop in t.parameters.get("properties", {}).items():
        parts.append(pname.replace("_", " "))
        if isinstance(prop, dict) and prop.get("description"):
            parts.append(str(prop["description"]))
    return " ".join(parts)


class ToolRetriever:
    """Ranks tools for a query; build once per tool set, query every step."""

    def __init__(
        self,
        tools: Sequence[Tool],
        *,
        embedder: TextEmbedder | None = None,
        language: str = "english",
        rrf_k: int = 60,
    ) -> None:
        self.tools = list(tools)
        self._stemmer = Stemmer.Stemmer(language)
        self._embedder = embedder
        self._rrf_k = rrf_k
        # Each word counts once per tool (a parameter named like its description should not
        # outweigh the description), the name's words twice: names are chosen to be telling.
        # Light length normalisation (b): a tool with many parameters is not less relevant.
        docs = [
            list(dict.fromkeys(self._tokens(_tool_document(t)))) + self._tokens(_name_words(t))
            for t in self.tools
        ]
        # bm25s needs at least one token per document to build its vocabulary
        self._bm25 = bm25s.BM25(k1=1.2, b=0.3)
        self._bm25.index([d or ["_"] for d in docs], show_progress=False)
        self._vectors: np.ndarray[Any, Any] | None = None
        if embedder is not None and self.tools:
            self._vectors = self._unit(embedder.embed([_tool_document(t) for t in self.tools]))

    @staticmethod
    def _unit(vectors: Any) -> np.ndarray[Any, Any]:
        arr = np.asarray(vectors, dtype=np.float32)
        if arr.ndim == 1:
            arr = arr[None, :]
        norms = np.linalg.norm(arr, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        out: np.ndarray[Any, Any] = arr / norms
        return out

    def _tokens(self, text: str) -> list[str]:
        words = [w for w in _WORD.findall(fold(text)) if w not in _STOPWORDS and len(w) > 1]
        return list(self._stemmer.stemWords(words))

    def lexical_scores(self, query: str) -> np.ndarray[Any, Any]:
        """BM25 score of every tool for ``query`` (zeros when nothing matches)."""
        tokens = [t for t in self._tokens(query) if t in self._bm25.vocab_dict]
        if not tokens or not self.tools:
            return np.zeros(len(self.tools), dtype=np.float32)
        return np.asarray(self._bm25.get_scores(tokens), dtype=np.float32)

    def rank(self, query: str) -> list[tuple[Tool, float]]:
        """All tools with a relevance score, best first (ties keep registration order)."""
        if not self.tools:
            return []
        lexical = self.lexical_scores(query)
        if self._vectors is None or self._embedder is None:
            order = np.argsort(-lexical, kind="stable")
            return [(self.tools[i], float(lexical[i])) for i in order]
        q = self._unit(self._embedder.embed([query]))[0]
        dense = self._vectors @ q
        fused = np.zeros(len(self.tools), dtype=np.float64)
        for scores, mask in ((lexical, lexical > 0), (dense, np.ones_like(dense, dtype=bool))):
            order = np.argsort(-scores, kind="stable")
            for rank, i in enumerate(order):
                if mask[i]:
                    fused[i] += 1.0 / (self._rrf_k + rank + 1)
        order = np.argsort(-fused, kind="stable")
        return [(self.tools[i], float(fused[i])) for i in order]

    def select(self, query: str, k: int = 5, *, always: Sequence[str] = ()) -> list[Tool]:
        """The ``k`` most relevant tools, plus any named in ``always``."""
        chosen = [t for t in self.tools if t.name in always]
        for t, _score in self.rank(query):
            if len(chosen) >= k + len(always):
                break
            if t not in chosen:
                chosen.append(t)
        return chosen
