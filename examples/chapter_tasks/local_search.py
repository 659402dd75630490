"""A local search index standing in for the web: the chapter's ReAct task searches the web, and
this machine has none. The "web" is FAQuAD's 249 paragraphs of Brazilian university texts and
regulations (shipped in ``data/faquad``, CC BY 4.0): real text, searched with BM25 (Portuguese
stemming and stopwords, accents folded), each hit shown as a search API shows one — title,
address, snippet — so a model reads it exactly as it would read web results.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import bm25s
import Stemmer

from colmeia.errors import ConfigurationError, ToolError
from colmeia.tools import Tool

CORPUS = Path(__file__).resolve().parents[2] / "data" / "faquad" / "dataset.json"


@dataclass(frozen=True, slots=True)
class Page:
    title: str
    url: str
    text: str


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


class LocalSearch:
    """BM25 over the pages; :meth:`search` answers like a web search API."""

    def __init__(self, pages: list[Page]) -> None:
        if not pages:
            raise ConfigurationError("the local search index has no pages")
        self.pages = pages
        self._stemmer = Stemmer.Stemmer("portuguese")
        tokens = bm25s.tokenize(
            [_fold(p.title.replace("_", " ") + " " + p.text) for p in pages],
            stopwords="pt",
            stemmer=self._stemmer,
            show_progress=False,
        )
        self._index = bm25s.BM25()
        self._index.index(tokens, show_progress=False)

    @classmethod
    def faquad(cls, path: Path = CORPUS) -> LocalSearch:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigurationError(
                f"{path}: cannot read the local search corpus ({exc})"
            ) from None
        pages = [
            Page(doc["title"], f"faquad://{doc['title'].lower()}/{n}", p["context"].strip())
            for doc in data["data"]
            for n, p in enumerate(doc["paragraphs"], start=1)
        ]
        return cls(pages)

    def search(self, query: str, k: int = 3) -> list[Page]:
        tokens = bm25s.tokenize(
            [_fold(query)],
            stopwords="pt",
            stemmer=self._stemmer,
            show_progress=False,
            return_ids=False,
        )
        if not tokens[0]:
            return []
        ids, scores = self._index.retrieve(tokens, k=min(k, len(self.pages)), show_progress=False)
        return [self.pages[i] for i, s in zip(ids[0], scores[0], strict=True) if s > 0]

    def tool(self) -> Tool:
        """``web_search(query)`` over the local pages, for an agent."""

        def web_search(query: str) -> str:
            """Search the web (here: a local index of Brazilian university texts, in
            Portuguese) and return the best results with title, address and snippet.

            Args:
                query: What to search for: a few key words of the task, in Portuguese.
            """
            hits = self.search(query)
            if not hits:
                raise ToolError(f"no result for {query!r}; try other keywords")
            return "\n".join(
                f"[{n}] {h.title} ({h.url}): {h.text[:600]}" for n, h in enumerate(hits, 1)
            )

        return Tool.from_function(web_search)
