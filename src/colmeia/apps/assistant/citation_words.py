"""The words that name a dispositivo before its number, read through a slip of the fingers.

People type fast: "artiog 49", "atrigo 5", "paragarfo 2". A word one slip away from "artigo",
"inciso", "parágrafo" or "alínea" that stands right before a number (or, after "inciso", a roman
numeral) is that word. The number after it makes the reading likely; the Portuguese words one
slip from a citation word ("antigo", "alinha") are read as typed: "um antigo 5 anos" stays."""

from __future__ import annotations

import re

from colmeia.apps.assistant.scope import one_slip
from colmeia.rag.index.lexical import fold_accents

__all__ = ["mend_citation_words"]

_WORDS = ("artigo", "inciso", "paragrafo", "alinea")
# real words one slip from a citation word (plurals included: they are citation words too)
_REAL = frozenset({"antigo", "antigos", "alinha", "artigos", "incisos", "paragrafos", "alineas"})
# a word, then a number ("49", "5º", "nº 54") or a roman numeral ("iv")
_BEFORE_NUMBER = re.compile(r"\b([^\W\d_]{5,10})(\s+(?:n[º°o.]?\s*)?(?:\d+|[ivxlc]+\b))", re.I)


def mend_citation_words(text: str) -> str:
    """``text`` with each citation word typed with one slip before a number written in full
    ("qual o teor do artiog 49" → "qual o teor do artigo 49"); the rest as typed."""

    def fix(m: re.Match[str]) -> str:
        folded = fold_accents(m.group(1)).lower()
        if folded in _WORDS or folded in _REAL:
            return m.group(0)
        roman = not m.group(2).strip()[0].isdigit()
        for word in _WORDS:
            if (not roman or word == "inciso") and one_slip(folded, word):
                return word + m.group(2)
        return m.group(0)

    return _BEFORE_NUMBER.sub(fix, text)
