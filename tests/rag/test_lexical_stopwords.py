"""The Portuguese stopwords a search drops are bm25s's list, copied so a search need not import
bm25s: the copy must not drift from the list bm25s ships."""

from __future__ import annotations

from bm25s.stopwords import STOPWORDS_PORTUGUESE as BM25S_LIST

from colmeia.rag.index.lexical import Analyzer
from colmeia.rag.index.stopwords_pt import STOPWORDS_PORTUGUESE


def test_the_copied_stopwords_are_bm25s_list() -> None:
    assert STOPWORDS_PORTUGUESE == BM25S_LIST


def test_stopwords_are_dropped_and_content_words_kept() -> None:
    tokens = Analyzer().tokens("O prazo para reclamar dos vícios é de trinta dias")

    assert tokens == Analyzer(stopwords=False).tokens("prazo reclamar vícios trinta dias")
    assert "para" not in tokens and "dos" not in tokens
