"""The RAG agent's scores: how well a passage covers a question (rarity-weighted term
coverage, :func:`grade_passage`), and the quality gate's :func:`answer_quality` — whether the
citations hold (:func:`citation_integrity`) and the cited text answers
(:func:`answering_score`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from typing import Any

from colmeia.apps.assistant.institutions import spell_out
from colmeia.apps.assistant.legal import law_key, parse_legal_path
from colmeia.apps.assistant.rag_query import _ALIAS_RE, _REFERENCE, _names_part
from colmeia.apps.assistant.relations import (
    asked_relation,
    content_terms,
    states_relation,
    without_relation_words,
)
from colmeia.rag.generate import CitedAnswer
from colmeia.rag.retrieve import Hit

__all__ = ["answer_quality", "answering_score", "citation_integrity", "grade_passage"]


def _question_terms(query: str) -> set[str]:
    # Law names ("CDC", "LGPD") are matched through the law's number, not as words; words
    # that only name the relation ("significa", "conceito") are not what the passage must say.
    # An institution's acronym ("TCU") is covered by its name, as the law writes it.
    folded = without_relation_words(spell_out(query, keep=False))
    return set(content_terms(_ALIAS_RE.sub(" ", _REFERENCE.sub(" ", folded))))


def _coverage(
    terms: set[str],
    text: str,
    idf: Callable[[str], float] | None,
    vocabulary: Collection[str] | None = None,
    alternatives: set[str] | None = None,
) -> float:
    """Share of the question's terms present in ``text``, each weighted by its rarity.

    With ``vocabulary``, terms no passage of the collection uses are left out (no passage could
    cover them: they are the asker's words, not the law's). ``alternatives`` are the law's words
    for the question's everyday ones ("interposição" for "interpor"): present, they count as
    covered; absent, they cost nothing.
    """
    if vocabulary is not None:
        terms = {t for t in terms if t in vocabulary} or terms
    if not terms:
        return 0.0
    have = set(content_terms(text))
    weight = idf or (lambda _w: 1.0)
    total = sum(weight(t) for t in terms)
    if not total:
        return 0.0
    covered = sum(weight(t) for t in terms & have)
    if alternatives:
        covered += sum(weight(t) for t in (alternatives - terms) & have)
    return min(covered / total, 1.0)


# Coverage in a long passage is weaker evidence: a sixty-item list (Lei 13.303 Art. 29, the
# cases of dispensa) holds a lay question's everyday words ("compra", "serviço") by chance,
# scattered over items about other things. Past _LONG content words (the 80th percentile of
# the shipped laws' passages) the grade shrinks as (_LONG / n) ** _LONG_POWER, as BM25
# normalises a term's weight by length — unless the question's words come together in one
# stretch of _WINDOW words (the caput "É dispensável a realização de licitação por empresas
# públicas…" for "requisitos para dispensa de licitação em estatais"), which then counts at
# _WINDOW_FACTOR of its coverage. Chosen on the lay development set: the length factor alone
# took hit@1 from 0.476 to 0.516; windows alone gave 0.508; both 0.548 (with the nearness
# bonus); the formal set is unchanged.
_WINDOW = 40
_WINDOW_STEP = 20
_LONG = 40
_LONG_POWER = 0.5
_WINDOW_FACTOR = 0.75


def _length_factor(text: str) -> float:
    """1 for a passage of up to ``_LONG`` content words, less for longer ones."""
    n = len(content_terms(text))
    return 1.0 if n <= _LONG else (_LONG / n) ** _LONG_POWER


def _windows(text: str) -> list[str]:
    """``text`` itself when short, else its overlapping stretches of ``_WINDOW`` words."""
    words = text.split()
    if len(words) <= _WINDOW:
        return [text]
    starts = range(0, len(words) - _WINDOW + _WINDOW_STEP, _WINDOW_STEP)
    return [" ".join(words[i : i + _WINDOW]) for i in starts]


def grade_passage(
    query: str, hit: Hit, analysis: dict[str, Any], idf: Callable[[str], float] | None = None
) -> float:
    """Coverage of the query's words by the passage (and its path), each word weighted by how
    rare it is in the collection (``idf``), with a bonus for the law or article the question
    names. 0 = unrelated, 1 = every content word present."""
    terms = _question_terms(query)
    if not terms:
        return 0.0
    extra = analysis.get("legal_terms", "")
    alternatives = set(content_terms(extra)) if extra else None

    def cover(text: str) -> float:
        return _coverage(
            terms, f"{hit.citation.path} {hit.heading} {text}", idf, alternatives=alternatives
        )

    parts = _windows(hit.text)
    score = cover(hit.text) * _length_factor(hit.text)
    if len(parts) > 1:
        score = max(score, _WINDOW_FACTOR * max(cover(p) for p in parts))
    filters = analysis.get("filters", {})
    ref = parse_legal_path(hit.citation.path)
    if filters.get("law_number"):
        if filters["law_number"] == law_key(ref.law):
            score += 0.2
            if filters.get("article") and filters["article"] == ref.article.rstrip("º°"):
                named_part = any(filters.get(k) for k in ("inciso", "paragraph", "caput"))
                if _names_part(filters, ref):
                    score += 0.6  # "art. 71, inciso II": that inciso, not another of the list
                elif not named_part:
                    score += 0.3
                # another part of the article named: no more than any passage of its norm (the
                # bonus took both to the grade's ceiling, where the part named lost the tie)
        else:
            score -= 0.2
    if hit.chunk_id in analysis.get("definitions", ()):
        score += 0.3  # "Fornecedor é toda pessoa…": the definition itself
    if hit.chunk_id in analysis.get("scope", ()):
        score += 0.3  # "Esta Lei não se aplica…" for "a lei vale para…?": the clause asked for
    return max(0.0, min(score, 1.0))


# How much an answer is worth when its cited text does not state the asked relation (no time
# span for "qual o prazo", no definition for "o que é"), or when it states a federal rule for
# a question about a state body: it may be on topic, but it does not answer.
_NO_RELATION_FACTOR = 0.6
_JURISDICTION_FACTOR = 0.6


def answering_score(
    question: str,
    cited: Sequence[Hit],
    analysis: dict[str, Any] | None = None,
    idf: Callable[[str], float] | None = None,
    *,
    other_jurisdiction: bool = False,
    vocabulary: Collection[str] | None = None,
) -> float:
    """0-1: whether the cited passages answer the question, not only mention it.

    The cited text (all cited passages together, with their paths) must cover the question's
    terms, each weighted by its rarity, and state the relation the question asks for (a
    definition, a deadline, who, when, an amount; :mod:`colmeia.apps.assistant.relations`).
    A definition question is answered by a passage defining the term: one found in the
    collection's definition index, or drafted as a definition. The law the question names, if
    any, must be the cited one.
    """
    if not cited:
        return 0.0
    analysis = analysis or {}
    terms = _question_terms(question)
    text = " ".join(f"{h.citation.path} {h.heading} {h.text}" for h in cited)
    extra = analysis.get("legal_terms", "")
    alternatives = set(content_terms(extra)) if extra else None
    score = _coverage(terms, text, idf, vocabulary, alternatives) if terms else 0.0
    relation = analysis.get("relation") or asked_relation(question)
    defining = set(analysis.get("definitions", ()))
    if relation == "definition":
        states = any(h.chunk_id in defining for h in cited) or any(
            states_relation("definition", h.text) for h in cited
        )
    else:
        states = any(states_relation(relation, h.text) for h in cited)
    if not states:
        score *= _NO_RELATION_FACTOR
    law = analysis.get("filters", {}).get("law_number")
    if law and not any(law == law_key(parse_legal_path(h.citation.path).law) for h in cited):
        score *= _NO_RELATION_FACTOR
    if other_jurisdiction:
        score *= _JURISDICTION_FACTOR
    return round(min(score, 1.0), 4)


def _article_of(hit: Hit) -> str:
    ref = parse_legal_path(hit.citation.path)
    return f"{ref.law}|{ref.article}" if ref.article else ""


def citation_integrity(answer: CitedAnswer) -> float:
    """0-1: how well a model's answer is carried by its checked citations (1 for extractive).

    Half the share of citations that held, half the share of sentences that carry a held
    citation (no citations: 0).
    """
    if answer.extractive:
        return 1.0 if answer.citations else 0.0
    total = len(answer.citations) + len(answer.rejected)
    if not answer.citations or total == 0:
        return 0.0
    support = len(answer.citations) / total
    # Statements end at . ! ? before a capital letter: ";" separates items of one statement.
    sentences = [
        s for s in re.split(r"(?<=[.!?])\s+(?=[A-ZÀ-Ú])", answer.answer) if len(s.strip()) > 15
    ]
    held = {f"[{c.passage_id}]" for c in answer.citations}
    covered = sum(1 for s in sentences if any(h in s for h in held))
    coverage = covered / len(sentences) if sentences else 0.0
    return round(0.5 * support + 0.5 * coverage, 4)


def answer_quality(
    answer: CitedAnswer,
    grades: dict[str, float] | None = None,
    *,
    analysis: dict[str, Any] | None = None,
    idf: Callable[[str], float] | None = None,
    other_jurisdiction: bool = False,
    context: Sequence[Hit] = (),
    vocabulary: Collection[str] | None = None,
) -> float:
    """0-1: whether the answer answers its question, on passages that hold.

    The product of :func:`citation_integrity` (the citations hold and carry the statements)
    and :func:`answering_score` (the cited passages cover the question's terms and state the
    asked relation). Citations that hold are not enough: LGPD Art. 12 §2º cited for "quais
    dados pessoais são considerados sensíveis?" holds, but defines nothing.
    """
    integrity = citation_integrity(answer)
    if integrity == 0.0:
        return 0.0
    by_id = {h.chunk_id: h for h in answer.passages}
    cited = [by_id[c.chunk_id] for c in answer.citations if c.chunk_id in by_id]
    # A paragraph or inciso is read with its article's caput (LC 95/1998, art. 11): the caput
    # given as context counts as said by the citation.
    articles = {_article_of(h) for h in cited} - {""}
    seen = {h.chunk_id for h in cited}
    for h in [*answer.passages, *context]:
        if h.chunk_id not in seen and _article_of(h) in articles:
            cited.append(h)
            seen.add(h.chunk_id)
    answers = answering_score(
        answer.question,
        cited,
        analysis,
        idf,
        other_jurisdiction=other_jurisdiction,
        vocabulary=vocabulary,
    )
    return round(integrity * answers, 4)
