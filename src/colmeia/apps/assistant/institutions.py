"""Public institutions named by their acronyms, and the names the law writes them by.

People write "o TCU", "a CGU", "o INSS"; the Constitution and the laws write "Tribunal de
Contas da União", "Controladoria-Geral da União", "Instituto Nacional do Seguro Social" and
never the acronym. A search for the acronym finds no passage, so the law question's analysis
(:func:`colmeia.apps.assistant.rag_query.analyze_query`) adds the name beside it — as it adds a
law's own words for its nickname — and the question's frame records the institutions it names.

The glossary is package data (``data/institutions_pt.tsv``, acronym and name, written for
colmeia from public knowledge). "MP" before a number is a medida provisória ("MP 1.154"), not
the Ministério Público, and is left alone.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources

from colmeia.rag.index.lexical import fold_accents

__all__ = ["Institution", "glossary", "named_institutions", "spell_out"]

_FILE = "institutions_pt.tsv"


@dataclass(frozen=True, slots=True)
class Institution:
    """An institution named in a text: the ``acronym`` as the glossary writes it, its
    ``name``, and where the text names it (``start``, ``end``)."""

    acronym: str
    name: str
    start: int = 0
    end: int = 0


@functools.cache
def glossary() -> dict[str, str]:
    """The shipped glossary: folded acronym ("tcu") → name ("Tribunal de Contas da União")."""
    text = resources.files("colmeia.apps.assistant").joinpath("data", _FILE).read_text("utf-8")
    rows = (line.split("\t") for line in text.splitlines() if line and line[0] != "#")
    return {fold_accents(r[0].strip().lower()): r[1].strip() for r in rows if len(r) == 2}


@functools.cache
def _pattern() -> re.Pattern[str]:
    # a whole word ("mpf" is not "mp" and a letter), or joined to a state ("TCE-PA", "TJ/SP");
    # "MP 1.154", "MP nº…" is a medida provisória
    return re.compile(
        r"(?<![\w/.-])(" + "|".join(map(re.escape, glossary())) + r")(?![\w])"
        r"(?!\s*(?:n[º°o.]|n\.?\s*º|\d))"
    )


def named_institutions(text: str) -> list[Institution]:
    """The institutions ``text`` names by acronym, in order (each once)."""
    # folding (which lower-cases) keeps the length of the text: positions are the typed text's
    folded = fold_accents(text)
    names = glossary()
    out: list[Institution] = []
    seen: set[str] = set()
    for m in _pattern().finditer(folded):
        acronym = m.group(1)
        if acronym not in seen:
            seen.add(acronym)
            out.append(Institution(acronym.upper(), names[acronym], m.start(1), m.end(1)))
    return out


def spell_out(text: str, *, keep: bool = True) -> str:
    """``text`` with each acronym of the glossary spelled out: after it ("o TCU (Tribunal de
    Contas da União) julga"), or, with ``keep=False``, in its place."""
    folded = fold_accents(text)  # lower-cased too
    if len(folded) != len(text):  # a character whose folding changed length: match on the folded
        text = folded
    names = glossary()

    def name(m: re.Match[str]) -> str:
        said = text[m.start(1) : m.end(1)]
        full = names[m.group(1)]
        return f"{said} ({full})" if keep else full

    out, last = [], 0
    for m in _pattern().finditer(folded):
        out.append(text[last : m.start(1)])
        out.append(name(m))
        last = m.end(1)
    out.append(text[last:])
    return "".join(out)
