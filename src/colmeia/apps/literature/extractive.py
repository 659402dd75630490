"""Reading a work without a model: its own sentences, and a relevance graded from the evidence.

The fields are sentences of the work's passages — never the title, a heading ("RESUMO",
"INTRODUÇÃO") or the keywords line glued in front of the first sentence. Full-text passages
(they have printed pages to cite) come before the catalogue record. The relevance is how much
of the question the passages hold (its content words, stemmed), with bars high enough that an
off-topic work sharing only a catalogue's common words ("educação", "formação") is graded
"baixa" or "nenhuma" whatever its rank in the search.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from colmeia.apps.literature.schemas import CitedText, word_count
from colmeia.rag.index.lexical import Analyzer

__all__ = [
    "RELEVANT_LEVELS",
    "Evidence",
    "body_sentences",
    "extractive_fields",
    "grade_relevance",
]

#: The levels that clear the review's "something relevant" bar.
RELEVANT_LEVELS = ("alta", "média")
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-ZÀ-Ý\"“(])")
_HEADING_RE = re.compile(
    r"^(?:\d{1,2}(?:\.\d{1,2})*\.?\s+)?(?:resumo|abstract|resumen|introdu[çc][ãa]o|objetivos?|"
    r"metodologia|m[ée]todos?|resultados(?: e discuss[ãa]o)?|discuss[ãa]o|conclus[ãa]o|conclus[õo]es|"
    r"considera[çc][õo]es finais|refer[êe]ncias)\s*$",
    re.I,
)
_KEYWORDS_RE = re.compile(r"^(?:palavras?-chave|keywords?|palabras clave)\s*:", re.I)
_OBJECTIVE_RE = re.compile(
    r"\b(objetiv\w*|prop[õo]e\w*|busca\w*|pretende\w*|investig\w*|analis\w*|visa\w*)\b", re.I
)
_CONCLUSION_RE = re.compile(
    r"\b(conclu\w*|resultados?|mostr\w*|evidenci\w*|indic\w*|constat\w*|revel\w*|aponta\w*|"
    r"demonstr\w*|destac\w*)\b",
    re.I,
)


class PassageLike(Protocol):
    id: str
    text: str
    pages: str
    section: str


@dataclass(frozen=True, slots=True)
class Evidence:
    """How much of the question a work's passages cover, and where."""

    share: float  # weighted share of the question's terms found in the passages (0-1)
    best: float  # the same within the single best passage
    cited: list[str]  # passages that brought new question terms, in order
    missing: list[str]  # question terms (as written) found nowhere


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", " ".join(text.lower().split()))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).strip(" .:")


def body_sentences(text: str, title: str = "") -> list[str]:
    """The sentences of a passage without its title, headings and keywords line."""
    folded_title = _fold(title)
    kept: list[str] = []
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped or _HEADING_RE.match(stripped) or _KEYWORDS_RE.match(stripped):
            continue
        if folded_title and _fold(stripped) == folded_title:
            continue
        kept.append(stripped)
    joined = " ".join(" ".join(kept).split())
    return [s.strip() for s in _SENTENCE_RE.split(joined) if s.strip()]


def _take(sentences: Sequence[str], words: int) -> str:
    out: list[str] = []
    n = 0
    for s in sentences:
        w = word_count(s)
        if n + w > words:
            if not out:
                out.append(" ".join(s.split()[:words]))
            break
        out.append(s)
        n += w
    return " ".join(out)


def _first_page(p: PassageLike) -> int:
    head = p.pages.split("-")[0]
    return int(head) if head.isdigit() else 0


def _ordered(passages: Sequence[PassageLike], section: str) -> list[PassageLike]:
    """Full text (with pages to cite) before the record; within each, the section's first;
    then objectives from the earliest pages (a thesis states them at the start) and
    conclusions from the latest."""
    late = -1 if section == "conclusões" else 1
    return sorted(
        passages, key=lambda p: (not p.pages, p.section != section, late * _first_page(p))
    )


def _field(
    passages: Sequence[PassageLike],
    title: str,
    section: str,
    pattern: re.Pattern[str] | None,
    words: int,
) -> CitedText:
    for p in _ordered(passages, section):
        sentences = body_sentences(p.text, title)
        picked = [s for s in sentences if pattern is None or pattern.search(s)]
        if picked:
            return CitedText(text=_take(picked, words), passages=[p.id])
    return CitedText(text="não informado", passages=[])


def grade_relevance(
    question: str, passages: Sequence[PassageLike], analyzer: Analyzer | None = None
) -> tuple[str, Evidence]:
    """The relevance level the passages support, and the evidence for it.

    ``alta``: the passages hold ≥ 80 % of the question's content words (stemmed) and one
    passage alone ≥ 60 %; ``média``: ≥ 2/3; ``baixa``: ≥ 1/3; else ``nenhuma``. A work that
    shares only the collection's common words with the question ("educação", "formação")
    but not its subject stays below "média"; its rank in the search does not count."""
    analyzer = analyzer or Analyzer()
    words = [w for w in question.split() if analyzer.tokens(w)]
    terms = list(dict.fromkeys(analyzer.tokens(question)))
    if not terms:
        return "nenhuma", Evidence(0.0, 0.0, [], [])
    found: set[str] = set()
    cited: list[str] = []
    best = 0.0
    for p in passages:
        here = set(terms) & set(analyzer.tokens(p.text))
        best = max(best, len(here) / len(terms))
        if here - found:
            cited.append(p.id)
        found |= here
    share = len(found) / len(terms)
    missing = [w for w in words if not set(analyzer.tokens(w)) & found]
    level = (
        "alta"
        if share >= 0.8 and best >= 0.6
        else "média"
        if share >= 2 / 3 - 1e-9
        else "baixa"
        if share >= 1 / 3 - 1e-9
        else "nenhuma"
    )
    return level, Evidence(round(share, 3), round(best, 3), cited, missing)


def extractive_fields(
    question: str,
    title: str,
    passages: Sequence[PassageLike],
) -> tuple[CitedText, CitedText, CitedText, str, str]:
    """``(summary, objectives, conclusions, relevance, why)`` from the work's own sentences."""
    summary = _field(passages, title, "resumo", None, 200)
    objectives = _field(passages, title, "objetivos", _OBJECTIVE_RE, 100)
    conclusions = _field(passages, title, "conclusões", _CONCLUSION_RE, 100)
    level, ev = grade_relevance(question, passages)
    why = (
        f"{round(100 * ev.share)}% das palavras da pergunta aparecem nos trechos {', '.join(ev.cited) or '—'}"
        + (f"; ausentes: {', '.join(ev.missing)}" if ev.missing else "")
        + " (relevância estimada sem modelo)."
    )
    return summary, objectives, conclusions, level, why
