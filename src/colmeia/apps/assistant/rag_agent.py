"""The RAG agent: a step pipeline (:mod:`colmeia.graphs.flow`) over colmeia's RAG core.

::

    check_collection → analyze → ingest_attachments? → retrieve → grade ─┬─ enough relevant ─→ enrich
          │ (missing, no sources)                          ↑              └─ too few, < max → rewrite ┘
          ↓                                                └────────── rewrite ←─ quality ≤ 0.7, < 3 retries
        prepare ← validate ← generate ← rerank ← enrich                           │
          ↑____________________ quality > 0.7, or 3 retries: answer with the best and say so

Every node is a method of :class:`RagPipeline` taking and returning plain state dicts, so
each can be called and tested alone. With no model the pipeline still answers: the query is
analysed and rewritten by rules, passages graded by term coverage, and the answer is the best
passages themselves, cited (extractive). With a model, generation cites passages ``[P1]`` and
every citation is checked against its passage (``colmeia.rag.generate``).

For laws, each passage's validity in time is read from its text's annotations and its URN
date: revoked and vetoed dispositivos are never used as support (a note says they were left
out), amended ones are flagged with the amending act.
"""

from __future__ import annotations

import contextvars
import logging
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, TypedDict

from colmeia.apps.assistant.article_choice import ModelArticleReranker
from colmeia.apps.assistant.article_ranker import (
    ArticleCandidate,
    ArticleRanker,
    article_candidates,
    standardised,
)
from colmeia.apps.assistant.citation_words import mend_citation_words
from colmeia.apps.assistant.court_rules import (
    COURT_COLLECTION,
    JURISPRUDENCE_COLLECTION,
    court_rules_note,
    is_procedural,
    source_kind,
)
from colmeia.apps.assistant.decision_catalogue import (
    asks_decisions,
    decision_catalogue,
    decisions_named,
    missing_decision,
    not_held,
    rapporteur_note,
    subject_of,
)
from colmeia.apps.assistant.definitions import DefinitionIndex
from colmeia.apps.assistant.hubness import hubness
from colmeia.apps.assistant.institutions import named_institutions, spell_out
from colmeia.apps.assistant.legal import LegalRef, law_key, parse_legal_path, validity
from colmeia.apps.assistant.lex_specialis import limited_to_some_bodies, names_a_body
from colmeia.apps.assistant.lexicon import Nominalizations
from colmeia.apps.assistant.named_article import ArticleIndex
from colmeia.apps.assistant.query_spelling import spelling_for
from colmeia.apps.assistant.ranking import RankedArticle, rank_articles
from colmeia.apps.assistant.relations import (
    Relation,
    asked_relation,
    content_terms,
    legal_terms,
    states_relation,
    without_relation_words,
)
from colmeia.apps.assistant.saved_catalogue import norm_catalogue
from colmeia.apps.assistant.scope import (
    jurisdiction_note,
    missing_norm,
    named_norms,
)
from colmeia.apps.assistant.shorthand import expand_shorthand
from colmeia.apps.assistant.synonyms import Synonyms
from colmeia.errors import ColmeiaError, ModelError, QueryError
from colmeia.graphs.flow import END, Flow
from colmeia.llm.base import ChatModel
from colmeia.rag.generate import (
    AnswerSink,
    CheckedCitation,
    CitedAnswer,
    answer_question,
    extractive_answer,
)
from colmeia.rag.index.embedders import Embedder
from colmeia.rag.index.lexical import Analyzer, fold_accents
from colmeia.rag.retrieve import Citation, Filters, Hit, Retriever
from colmeia.store.base import Store, StoredChunk

__all__ = [
    "RagConfig",
    "RagPipeline",
    "RagState",
    "analyze_query",
    "answer_quality",
    "answering_score",
    "citation_integrity",
    "grade_passage",
    "ranker_first",
]

log = logging.getLogger(__name__)
_PKG = "colmeia.apps.assistant"
_analyzer = Analyzer()
_DEFINITION_BOOST = 0.3
# How much deeper than the usual candidates the search goes for a norm the question names when
# the candidates hold few of its passages (k × this many ranked)
_NAMED_NORM_DEPTH = 20
# the thread's norm a follow-up is searched within, as conversation.within_norm appends it
_THREAD_NORM = re.compile(r"\s*\([^()]*\)\s*$")
# The question's nearness to a passage in the vector space (standard deviations from the
# candidates' mean) as a hand-set bonus: 0.1 chosen on the lay development set
# (0 / 0.05 / 0.1 / 0.2 gave hit@1 0.516 / 0.540 / 0.556 / 0.532); the formal set is unchanged.
_NEARNESS_WEIGHT = 0.1
# The question's nearness to the lay questions generated for a passage's article
# (:mod:`colmeia.rag.expansion`; standard deviations from the candidates' mean), as the same
# kind of bonus. On the lay development set, with the retriever's expansion at its defaults,
# 0 / 0.1 / 0.2 / 0.4 gave hit@1 0.742 / 0.782 / 0.790 / 0.790 (lay questions only); with the
# questions in the law's terms too, 0.1 / 0.2: 0.782 / 0.806, the project's conversations 30 /
# 31 of 31, the formal set 0.933 / 0.917 at hit@1. At 0.4 the formal set lost three first places.
_ASKED_WEIGHT = 0.2
# A passage this many standard deviations nearer the question than the candidates' mean is
# relevant whatever its word coverage: 1.5 on the lay development set (whole runs, hit@1
# 0.492 → 0.516; 2.0 gave 0.500); the formal set is unchanged. The same bound for the
# nearness of its article's shipped questions (lay-dev hit@1 0.806 → 0.855, formal unchanged,
# conversations 31/31, independent4 77 → 79 of 85 turns; not tuned: the bound as it was).
_NEAR_RELEVANT = 1.5
# How much of a passage's hubness (its mean cosine to its nearest passages) comes off its
# cosine to the question. On lay-dev's first ranking, 0 / 0.5 / 0.75 / 1.0 gave hit@1 0.548 /
# 0.556 / 0.581 / 0.581 and hit@5 0.790 / 0.815 / 0.823 / 0.847 (nearness weight 0.15 from
# 0.75 on); from 0.75 the formal set lost a first place (Lei 14.129's article that rewrites
# the LAI's Art. 12 came before it), at 0.5 it gained one.
_HUB_FACTOR = 0.5
# What an article limited to some bodies (the federal executive…) loses when the question
# names none of them (:mod:`.lex_specialis`); on lay-dev's first ranking 0.1 / 0.2 / 0.3
# moved 2 / 4 / 4 questions up and none down (at 0.3 one first place less than 0.2), the
# formal set unchanged at each.
_SPECIALIS_PENALTY = 0.2
_RETRY_MARGIN = 0.05
# the most items of a list a quoted dispositivo brings along (CF Art. 71 has eleven incisos)
LIST_ITEMS = 12
# A scope question ("a quem se aplica…") gets the scope clauses of the norms its first
# passages come from: the first of them is the norm named or meant, the second a fallback.
_SCOPE_NORMS = 2
_WHO_IS = re.compile(r"^\W*(?:e\s+)?quem\s+(?:e|sao)\s+(?:o|a|os|as)\s")
# Where the answer being generated streams to (set by `run` for one pipeline run; a context
# variable, not state: the state may be checkpointed and a sink is not data).
_SINK: contextvars.ContextVar[AnswerSink | None] = contextvars.ContextVar(
    "colmeia_rag_answer_sink", default=None
)

# Names people use for the shared laws; a rewrite adds the words the law itself uses.
# the federal law of the administrative process: what a procedural question about a case of
# a court of accounts is compared with (court_rules' note names it)
FEDERAL_PROCEDURE = "9784"
_ALIASES: dict[str, tuple[str, str]] = {
    "lgpd": ("13709", "proteção de dados pessoais"),
    "lei geral de protecao de dados": ("13709", "proteção de dados pessoais"),
    "lei de protecao de dados": ("13709", "proteção de dados pessoais"),
    "cdc": ("8078", "consumidor"),
    "codigo de defesa do consumidor": ("8078", "consumidor"),
    "lai": ("12527", "acesso à informação"),
    "lei de acesso a informacao": ("12527", "acesso à informação"),
    "lindb": ("4657", "normas do direito brasileiro"),
    "lei das estatais": ("13303", "empresa pública sociedade de economia mista"),
    "lei do governo digital": ("14129", "governo digital"),
    "lei de concessoes": ("8987", "concessão permissão serviço público"),
    "lei do processo administrativo": ("9784", "processo administrativo"),
}
# words a question naming a law by its alias needs to be searched by its own subject, besides
# those that only ask what the law says or since when it holds (_SAYS: "o que a LGPD diz
# sobre…", "a LAI vale desde quando?")
_OWN_SUBJECT = 2
_SAYS = frozenset(
    content_terms(
        "diz dizem fala falam sobre trata prevê regula dispõe estabelece determina manda pode "
        # and when it took effect: the law itself is asked about
        "vale valer valendo vigor vigência entrou entra começou desde quando"
    )
)
_ALIAS_RE = re.compile(r"\b(" + "|".join(re.escape(a) for a in _ALIASES) + r")\b")
_REFERENCE = re.compile(
    r"\b(?:segundo|conforme|de acordo com|nos termos d[aeo]s?|previst[oa]s? n[ao]s?|n[ao]s?|"
    r"pel[ao]s?)\s+(?:a |o )?(?=(?:" + "|".join(re.escape(a) for a in _ALIASES) + r")\b)",
    re.IGNORECASE,
)
_DEFINITION = re.compile(
    r"\b(?:o que (?:e|sao|se considera|se entende por|significa)|quem (?:e|sao)"
    r"(?: considerad[oa]s?(?: como)?)?|defin\w*|conceito de)\s+"
    r"(?:um |uma |o |a |os |as )?([a-z]+(?: [a-z]+){0,3})",
)
_LEGISLATION = re.compile(
    r"\b(lei|leis|artigo|art\.|decreto|resolu[cç][aã]o|norma|inciso|al[ií]nea|par[aá]grafo|"
    r"lgpd|cdc|lai|lindb|c[oó]digo|constitui[cç][aã]o|dispositivo|§)",
    re.IGNORECASE,
)
_DECISION = re.compile(
    r"\b(ac[oó]rd[aã]o|decis[aã]o|decis[oõ]es|julgado|jurisprud\w*|s[uú]mula|"
    r"tribunal decidiu|entendimento do tribunal|precedente)",
    re.IGNORECASE,
)
_LAW_NUMBER = re.compile(r"\blei\s*(?:complementar\s*)?(?:n[º°o.]*\s*)?(\d{1,2}\.?\d{3})\b", re.I)
_ARTICLE = re.compile(r"\bart(?:igo)?\.?\s*(\d+)", re.IGNORECASE)
# an article named by its number alone before one of its parts: "e o 37 inciso 2", "no 5, § 1º"
_BARE_ARTICLE = re.compile(
    r"\b(?:o|no|do)\s+(\d{1,3})(?!\d|/)\s*,?\s*(?:(?:o|a)\s+)?(?:inciso|inc\.|§|par[aá]grafo|caput)",
    re.IGNORECASE,
)
# a part of the article named after it: "art. 71, inciso II", "o § 3º do art. 66", "parágrafo
# único" (roman numerals upper-cased as the legal paths write them)
# "inciso 33" as people type it is inciso XXXIII
_INCISO = re.compile(r"\b(?:inciso|inc\.)\s*([ivxlc]+|\d{1,3}(?!\d))\b", re.IGNORECASE)
_PARAGRAPH = re.compile(r"(?:§\s*|\bpar[aá]grafo\s+)(\d+(?!\d)|[uú]nico\b)", re.IGNORECASE)
_YEAR = re.compile(r"\b(?:de|em)\s+((?:19|20)\d{2})\b")
# Each part a whole word: "Em quanto tempo…" and "Empresas de saúde…" keep their first word
# (a bare optional "[eé]" took their "E").
_FILLER = re.compile(
    r"^(?:por favor,?\s*)?(?:voc[eê] pode\s+)?(?:me\s+)?(?:(?:diga|explique|informe|responda)\b)?"
    r"\s*(?:(?:o que|qual|quais|quando|como|onde|quem)\b)?\s*(?:(?:[eé]|s[aã]o|diz|dizem)\b)?\s*",
    re.IGNORECASE,
)


def _fold(text: str) -> str:
    return fold_accents(text.lower())


# A question about decisions, not a decision's deadline ("recorrer de decisão" is procedure).
_ABOUT_DECISIONS = re.compile(
    r"\b(ac[oó]rd[aã]os?|jurisprud\w*|s[uú]mulas?|precedentes?|julgados?|"
    r"entendimento d[oa] (?:tcu|tribunal)|(?:o )?tcu (?:decidiu|entende|julgou))\b",
    re.IGNORECASE,
)
_WHOSE = {
    "norma do tribunal": "Normas do próprio tribunal (coleção {collection!r}):",
    "jurisprudência": "Jurisprudência (coleção {collection!r}):",
}
# The court's own norms, by the names courts give them (folded).
_COURT_NORM = re.compile(
    r"\b(?:regimento interno|lei organica do tribunal|resolucao do tribunal|"
    r"resolucoes do tribunal|normas? do tribunal|instrucao normativa do tribunal)\b"
)


def analyze_query(question: str) -> dict[str, Any]:
    """Rules: processed query, type (legislation/decision/general), complexity, filters."""
    typed = question
    # "artiog 49" names Art. 49 as surely as "artigo 49": read the citation words first
    question = mend_citation_words(expand_shorthand(question))
    folded = _fold(question)
    kind = "general"
    if _DECISION.search(question):
        kind = "decision"
    elif _LEGISLATION.search(question) or any(a in folded for a in _ALIASES):
        kind = "legislation"
    words = re.findall(r"\w+", question)
    questions = question.count("?")
    complexity = "complex" if len(words) > 30 or questions > 1 else "simple"
    filters: dict[str, Any] = {}
    law = _LAW_NUMBER.search(question)
    alias = _ALIAS_RE.search(folded)
    named = named_norms(question)
    bare = [n for n in named if n.kind in ("Lei", "Lei Complementar") and n.number]
    # the Constitution and its ADCT, named without a number ("o art. 71 da CF", "o art. 27
    # do ADCT"; not a state's constitution): keys of their own (legal.law_key)
    charter = [n for n in named if not n.number]
    if law:
        filters["law_number"] = law.group(1).replace(".", "")
    elif charter:
        filters["law_number"] = law_key(charter[0].kind)
    elif alias:
        filters["law_number"] = _ALIASES[alias.group(1)][0]
    elif bare:
        # "o art. 10 da 12527", "pela 9.784": a law named by its number alone is named
        filters["law_number"] = bare[0].number
    definition = _DEFINITION.search(folded)
    if definition:
        filters["defines"] = definition.group(1)
    art = _ARTICLE.search(question) or _BARE_ARTICLE.search(question)
    if art:
        filters["article"] = art.group(1)
        inciso = _INCISO.search(question)
        if inciso:
            typed = inciso.group(1)
            if typed.isdigit():
                # imported here: a turn never needs the ingestion package (the CLI's start-up)
                from colmeia.rag.ingest.chunk_legal import int_to_roman

                filters["inciso"] = int_to_roman(int(typed))
            else:
                filters["inciso"] = typed.upper()
        paragraph = _PARAGRAPH.search(question)
        if paragraph:
            filters["paragraph"] = _fold(paragraph.group(1))
        elif not inciso and re.search(r"\bcaput\b", folded):
            filters["caput"] = True  # "o caput do art. 37": the article's head, no item of it
    year = _YEAR.search(question)
    if year and kind == "decision":
        filters["year"] = int(year.group(1))
    processed = _FILLER.sub("", question.strip()).strip(" ?") or question.strip()
    if alias:  # the acronym is not in the law's text: the law is the filter, not a word
        processed = _REFERENCE.sub(" ", processed)
        processed = re.sub(rf"\b{re.escape(alias.group(1))}\b", " ", processed, flags=re.IGNORECASE)
        if len(set(content_terms(processed)) - _SAYS) < _OWN_SUBJECT:
            # "o que diz a LGPD?" asks the law itself: its own words ("proteção de dados
            # pessoais") find its opening articles. A question with a subject of its own ("a
            # lei das estatais, quem pode ser diretor?") is searched by it: the law's words
            # would pull every answer to the articles that define its subject
            processed = f"{processed} {_ALIASES[alias.group(1)][1]}"
        processed = " ".join(processed.split())
    # the law writes "Tribunal de Contas da União", people "o TCU": both are searched, in
    # the lexical and the dense query alike
    institutions = named_institutions(processed)
    if institutions:
        processed = spell_out(processed)
    return {
        "original": typed,
        "processed": processed,
        "type": kind,
        "complexity": complexity,
        "filters": filters,
        "relation": asked_relation(question),
        "legal_terms": legal_terms(question),
        "institutions": [i.name for i in institutions],
    }


_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
_ASKING = re.compile(
    r"\?|^\W*(?:e\s+)?(?:posso|pode\w*|tenho|tem|como|quando|quanto\w*|qual|quais|quem|onde|"
    r"o\s+que|por\s*que|existe|cabe|sou|devo|preciso|da\s+pra)\b"
)


def asked_clause(question: str) -> str:
    """The last sentence of a message that tells a situation before it asks ("Comprei… e
    negaram. Quanto tempo eu tenho pra recorrer?"), "" for a message of one sentence."""
    sentences = [s.strip() for s in _SENTENCE_END.split(question.strip()) if s.strip()]
    if len(sentences) < 2:
        return ""
    last = sentences[-1]
    if len(last.split()) < 3 or not _ASKING.search(_fold(last)):
        return ""
    return last


def _rule_rewrite(query: str, tried: Sequence[str]) -> str:
    """A different query by rules: only the content words, then only the longer ones."""
    words = [w for w in re.findall(r"\w+", query) if _analyzer.tokens(w)]
    for candidate in (" ".join(words), " ".join(w for w in words if len(w) > 5)):
        if candidate and candidate not in tried:
            return candidate
    return ""


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


class RagState(TypedDict, total=False):
    question: str
    context: str
    local: str
    attachments: list[str]
    missing: str
    jurisdiction: str
    analysis: dict[str, Any]
    query: str
    tried: list[str]
    rewrites: int
    retries: int
    exhausted: bool
    ready: bool
    ingested: list[str]
    hits: list[Hit]
    grades: dict[str, float]
    relevant: list[Hit]
    scores: dict[str, float]
    ranked: list[Hit]
    passages: list[Hit]
    answer: CitedAnswer | None
    quality: float
    best: dict[str, Any] | None
    notes: list[str]
    result: dict[str, Any]


@dataclass(slots=True)
class RagConfig:
    """Knobs of the pipeline (defaults are what the assistant uses)."""

    k: int = 10
    min_relevant: int = 2
    relevance: float = 0.3
    quality: float = 0.7
    max_rewrites: int = 2
    max_quality_retries: int = 3
    max_passages: int = 6
    sources: list[Path] = field(default_factory=list)
    # words taken from the question's nearest passages (dense neighbours); 0: none
    neighbour_terms: int = 6
    # the law's nouns for the question's verbs and back (NomLex-PT, :mod:`.lexicon`)
    nominalizations: bool = True
    # words sharing a sense with the question's (OpenWordNet-PT, :mod:`.synonyms`): how many,
    # and the weight of their list in the fusion (0: not searched). Off: at 1.0 lay-dev's
    # hit@5 rose two questions, the frozen lay-test2 lost two first places (docs/assistant.md,
    # issue 32's sixth round)
    synonym_terms: int = 4
    synonym_weight: float = 0.0
    # only for the question's words the collection uses in at most this many passages
    synonym_max_df: int | None = 20


class RagPipeline:
    """The RAG agent's pipeline over one collection of a store."""

    def __init__(
        self,
        store: Store,
        collection: str,
        model: ChatModel | None = None,
        *,
        retriever: Retriever | None = None,
        reranker: Any = None,
        config: RagConfig | None = None,
        embedder: Embedder | None = None,
        article_ranker: ArticleRanker | None | Literal["shipped"] = None,
        court_collection: str = COURT_COLLECTION,
        jurisprudence_collection: str = JURISPRUDENCE_COLLECTION,
        model_reranker: ModelArticleReranker | None = None,
    ) -> None:
        self.store = store
        self.model_reranker = model_reranker
        self.article_ranker = (
            ArticleRanker.shipped() if article_ranker == "shipped" else article_ranker
        )
        if self.article_ranker is not None and not self.article_ranker.weights:
            self.article_ranker = None  # no trained weights: the hand-set ones
        self.collection = collection
        self.court_collection = court_collection
        self.jurisprudence_collection = jurisprudence_collection
        self._siblings: dict[str, RagPipeline] = {}
        self.model = model
        self.reranker = reranker
        self.config = config or RagConfig()
        self.lexicon = self.config.nominalizations
        self.retriever = retriever or Retriever(store, collection, embedder=embedder)
        self.graph = self._build().check()

    async def evidence(self, question: str, k: int = 5) -> float:
        """How well the collection's best passage covers the question's words (0–1, each word
        weighted by its rarity, as :func:`grade_passage` grades), from the collection's own search.

        The turn classifier learnt what is out of scope from questions about courts and laws;
        a collection of other documents (a university's rules) answers questions it has never
        seen, so a scope reading yields when the documents cover the question this well."""
        try:
            hits = await self.retriever.asearch(question, k)
        except (QueryError, ColmeiaError):
            return 0.0
        if not hits:
            return 0.0
        stats = DefinitionIndex.for_collection(self.store, self.collection)
        return max(grade_passage(question, hit, {}, stats.idf) for hit in hits)

    # ------------------------------------------------------------------ nodes
    async def check_collection(self, state: RagState) -> RagState:
        """Is the collection there? If not, and sources are configured, ingest them."""
        if self.store.collection(self.collection) is not None:
            return {"ready": True}
        if not self.config.sources:
            note = (
                f"A coleção de documentos {self.collection!r} não existe; ingira os documentos "
                f"com `colmeia ingest PASTA --collection {self.collection}`."
            )
            return {"ready": False, "notes": [note]}
        from colmeia.rag.pipeline import ingest

        report = ingest(self.store, self.collection, self.config.sources)
        log.info("set up collection %s: %s documents", self.collection, report.documents)
        return {"ready": report.documents > 0}

    async def analyze(self, state: RagState) -> RagState:
        """Original and processed query, type, complexity and filters; whether the question
        names a norm the collection lacks, or a state body when the collection is federal."""
        question = state["question"]
        # "quanto tempo eu tenho pra recorer?": a word the collection, the questions shipped
        # with it and the language do not know, one slip from a word of the collection, is
        # read as that word (:mod:`.query_spelling`)
        question = spelling_for(self.store, self.collection).mend(question)
        analysis = analyze_query(question)
        if self.collection == self.jurisprudence_collection and not decisions_named(question):
            # "decisões do relator X sobre dispensa": every statement here is a decision;
            # the subject is what tells them apart (a decision named by number is looked for
            # as typed)
            subject = subject_of(question)
            if subject != question:
                analysis["processed"] = analyze_query(subject)["processed"]
                analysis["grade_query"] = subject
            unrecorded = rapporteur_note(
                question, decision_catalogue(self.store, self.collection), self.collection
            )
            if unrecorded:
                state = {**state, "notes": [*state.get("notes", []), unrecorded]}
        # The law's noun for the question's verb and back ("intervir" → "intervenção"), when
        # the collection uses it: searched with the law's words, and covering as they do.
        vocabulary = DefinitionIndex.for_collection(self.store, self.collection).df
        related = Nominalizations.shipped().related(question, vocabulary) if self.lexicon else []
        if related:
            analysis["nominalizations"] = related
            analysis["legal_terms"] = " ".join([str(analysis["legal_terms"]), *related]).strip()
        if self.config.synonym_weight > 0:
            synonyms = Synonyms.shipped().related(
                question, vocabulary, self.config.synonym_terms, rare=self.config.synonym_max_df
            )
            if synonyms:
                analysis["synonyms"] = synonyms
        catalogue = norm_catalogue(self.store, self.collection)
        jurisdiction = jurisdiction_note(question, catalogue) or ""
        # The court's own norms answering need no warning that the court's norms may differ.
        local = state.get("local", "") if self.collection != self.court_collection else ""
        filters = analysis["filters"]
        if (
            local
            and not filters.get("law_number")
            and is_procedural(question, str(analysis.get("relation")))
            and any(law_key(number) == FEDERAL_PROCEDURE for _, number in catalogue.norms)
        ):
            # "tem prazo pra isso?" in a case's thread asks the administrative process: the
            # federal rule the court-rules note compares with is the process law's, searched
            # first (a preference, as a norm named is: others may still come)
            filters["law_number"] = FEDERAL_PROCEDURE
        if (local or jurisdiction) and is_procedural(question, str(analysis.get("relation"))):
            # The law's words for everyday ones ("recorrer" → "recurso interpor") find the
            # court's dispositivo as they find the federal one.
            terms = analysis.get("legal_terms") or ""
            words = terms if isinstance(terms, str) else " ".join(map(str, terms))
            court = self._court_passages(f"{question} {words}".strip())
            if local:
                jurisdiction = court_rules_note(local, court, self.court_collection)
            elif court:
                quoted = " ".join(f"«{t}» ({label}, norma do tribunal)." for label, t in court)
                jurisdiction += f" Segundo as normas do próprio tribunal: {quoted}"
        return {
            "question": question,
            "missing": missing_norm(question, catalogue) or self._missing_decision(question),
            "jurisdiction": jurisdiction,
            "analysis": analysis,
            "query": analysis["processed"],
            "tried": [],
            "rewrites": 0,
            "retries": 0,
            "notes": state.get("notes", []),
            "best": None,
        }

    def _missing_decision(self, question: str) -> str:
        """What to say of a decision or súmula named by number that no collection searched
        holds: the jurisprudence's own catalogue tells when it answers; the laws, when no
        jurisprudence was ingested, hold no decision at all (unless other documents might
        quote it). Empty when the decision is there, or none is named."""
        if self.collection == self.jurisprudence_collection:
            return missing_decision(question, decision_catalogue(self.store, self.collection)) or ""
        if self.store.collection(self.jurisprudence_collection) is not None:
            return ""
        named = decisions_named(question)
        catalogue = norm_catalogue(self.store, self.collection)
        if not named or not catalogue.norms or catalogue.other_documents:
            return ""
        return not_held([label for label, *_ in named], "; ".join(catalogue.labels()))

    def _court_passages(self, question: str, k: int = 2) -> list[tuple[str, str]]:
        """The court's own dispositivos for a question, when it ingested its norms."""
        if self.court_collection == self.collection or (
            self.store.collection(self.court_collection) is None
        ):
            return []
        hits = Retriever(self.store, self.court_collection).search(question, k=k)
        return [(h.citation.label(), h.text) for h in hits]

    def route(self, question: str) -> str:
        """The collection that answers ``question``: the decisions for a question about
        jurisprudence ("um acórdão sobre contratação direta", "Acórdão 1234/2019-Plenário",
        "súmula 272"), the court's norms for one naming a norm only they hold ("a resolução
        nº 12", "o regimento interno"), else this pipeline's own (the laws)."""
        exists = self.store.collection
        # "decisões do relator X sobre dispensa" asks decisions as "acórdão" does
        if exists(self.jurisprudence_collection) is not None and (
            _ABOUT_DECISIONS.search(question) or asks_decisions(question)
        ):
            return self.jurisprudence_collection
        if self.court_collection != self.collection and exists(self.court_collection) is not None:
            if _COURT_NORM.search(_fold(question)):
                return self.court_collection
            named = named_norms(question)
            if named:
                own = norm_catalogue(self.store, self.collection)
                court = norm_catalogue(self.store, self.court_collection)
                if any(court.holds(n) and not own.holds(n) for n in named):
                    return self.court_collection
        return self.collection

    def sibling(self, collection: str) -> RagPipeline:
        """The same pipeline (model, reranker, knobs) over another collection."""
        if collection == self.collection:
            return self
        found = self._siblings.get(collection)
        if found is None:
            found = RagPipeline(
                self.store,
                collection,
                self.model,
                reranker=self.reranker,
                config=replace(self.config, sources=[]),
                court_collection=self.court_collection,
                jurisprudence_collection=self.jurisprudence_collection,
                model_reranker=self.model_reranker,
            )
            self._siblings[collection] = found
        return found

    async def ingest_attachments(self, state: RagState) -> RagState:
        """Ingest newly attached documents into the collection (unchanged ones are skipped)."""
        from colmeia.rag.pipeline import ingest

        paths = [Path(p) for p in state.get("attachments", [])]
        report = ingest(self.store, self.collection, paths)
        notes = list(state.get("notes", []))
        for e in report.errors:
            notes.append(f"Anexo não lido: {e.source}: {e.reason}")
        return {"ingested": [str(p) for p in paths], "notes": notes, "ready": True}

    async def retrieve(self, state: RagState) -> RagState:
        """Hybrid retrieval (lexical, + dense when the store has vectors).

        The query runs as written and, when the question uses everyday words the law words
        otherwise ("recorrer" → "recurso"), once more with the law's words; the two lists are
        fused by reciprocal rank. A definition question also gets the passages that define
        its term, found in the collection's definition index.
        """
        query = state["query"]
        analysis = dict(state.get("analysis", {}))
        year = analysis.get("filters", {}).get("year")
        filters = Filters(year=year) if year else None
        queries = [query]
        extra = analysis.get("legal_terms", "")
        if extra:
            queries.append(f"{query} {extra}")
        lists: list[list[Hit]] = []
        for q in queries:
            try:
                lists.append(await self.retriever.asearch(q, self.config.k * 3, filters=filters))
            except QueryError:
                lists.append([])
        index = DefinitionIndex.for_collection(self.store, self.collection)
        # Lay words to the law's words from the corpus itself: the passages nearest the
        # question in the vector space say what the law calls it ("devolver" lands near
        # "desistir do contrato"); their rarest words search once more.
        extra_words = neighbour_terms(
            state["question"], lists[0] if lists else [], index.idf, self.config.neighbour_terms
        )
        if extra_words:
            analysis["neighbour_terms"] = extra_words
            try:
                lists.append(
                    await self.retriever.asearch(
                        f"{query} {extra_words}", self.config.k * 3, filters=filters
                    )
                )
            except QueryError:
                pass
        list_weights = [1.0] * len(lists)
        synonyms = analysis.get("synonyms")
        if synonyms and self.config.synonym_weight > 0:
            # Words sharing a sense with the question's ("anúncio" → "publicidade"): a list of
            # their own, fused at a low weight — more candidates, the question's words intact.
            try:
                lists.append(
                    await self.retriever.asearch(
                        f"{query} {' '.join(synonyms)}", self.config.k * 3, filters=filters
                    )
                )
                list_weights.append(self.config.synonym_weight)
            except QueryError:
                pass
        earlier = state.get("hits", [])
        if earlier:
            # A reformulated query (a retry) adds candidates to what the question itself found;
            # it does not replace them: it drops the question's words, and on the lay
            # development set a retry's list alone lost first places the question's list had.
            lists.insert(0, list(earlier))
            list_weights.insert(0, 1.0)
        hits = _fuse(lists, weights=list_weights)
        asked_law = analysis.get("filters", {}).get("law_number")
        if asked_law:
            # "o tribunal pode multar os gestores, oq a constituição fala?": the norm named is
            # the one asked; its passages come first among the candidates (a grade bonus alone
            # let the CDC's sanctions lead). The others stay after them, for a question the
            # named norm does not answer
            def of_asked(found: Sequence[Hit]) -> list[Hit]:
                return [
                    h for h in found if law_key(parse_legal_path(h.citation.path).law) == asked_law
                ]

            own = of_asked(hits)
            # the norm typed in the question, not the thread's one a follow-up is searched
            # within ("… (Lei 8.078/1990)", conversation.within_norm): a follow-up may have
            # moved on to another norm, which a deeper search of the thread's would bury
            typed = _THREAD_NORM.sub("", state["question"])
            if len(own) < self.config.k and named_norms(typed):
                # "a constituição fala alguma coisa sobre obrigatoriedade de licitação?": the
                # words are a statute's everyday vocabulary (Lei 13.303 says "licitação" in
                # hundreds of passages), and the first candidates held none of the norm named;
                # a deeper search finds the named norm's own passages on those words
                try:
                    deeper = await self.retriever.asearch(
                        query, self.config.k * _NAMED_NORM_DEPTH, filters=filters
                    )
                except QueryError:
                    deeper = []
                seen = {h.chunk_id for h in own}
                own += [h for h in of_asked(deeper) if h.chunk_id not in seen]
            if own:
                hits = own + [h for h in hits if h not in own]
        named = analysis.get("filters", {})
        if named.get("law_number") and named.get("article"):
            # "o que diz o art. 49 da Lei 9.784?": that article's passages, looked up exactly
            wanted = ArticleIndex.for_collection(self.store, self.collection).lookup(
                named["law_number"], named["article"]
            )
            found = self.store.get_chunks(self.collection, wanted) if wanted else {}
            first = [_hit(found[c], self.collection) for c in wanted if c in found]
            # the inciso or paragraph named leads its article's passages
            first.sort(key=lambda h: not _names_part(named, parse_legal_path(h.citation.path)))
            hits = first + [h for h in hits if h.chunk_id not in set(wanted)]
        named_law = str(analysis.get("filters", {}).get("law_number", ""))
        folded = _fold(state["question"])
        any_law = not named_law and _ANY_LAW.search(folded) is not None
        if _VIGENCIA_Q.search(folded) or (
            (named_law or any_law) and _VIGENCIA_NAMED.search(folded)
        ):
            # "quando a LGPD entrou em vigor?": the answer is the norm's own vigência clause,
            # whatever words it shares with the question — the named norm's (wherever its
            # passages came), else those of the norms the first passages come from
            norms = list(dict.fromkeys(h.citation.path.split(",")[0].strip() for h in hits[:5]))
            named_norm = [n for n in index.in_force if named_law and law_key(n) == named_law]
            norms = named_norm or norms[:2]  # the norm named, else those the search found
            wanted = [cid for n in norms for cid in index.in_force.get(n, [])]
            if any_law:
                # "uma lei nova vale a partir de quando?": no norm's own clause answers a
                # question about laws in general, the general rule does (LINDB's "a lei começa
                # a vigorar…", LC 95's "A vigência da lei…"); the ranking picks among them
                wanted = list(index.general_in_force)
            have = {h.chunk_id for h in hits}
            found = self.store.get_chunks(self.collection, [c for c in wanted if c not in have])
            clauses = [_hit(found[c], self.collection) for c in wanted if c in found]
            clauses += [h for h in hits if h.chunk_id in set(wanted)]
            hits = clauses + [h for h in hits if h.chunk_id not in set(wanted)]
            analysis["in_force"] = [h.chunk_id for h in clauses]
            # whose clause it is, known (the norm named, or laws in general) or guessed (the
            # norms the first passages come from)
            analysis["in_force_known"] = bool(named_norm or any_law)
        if analysis.get("relation") == "scope":
            # "a quem se aplica a LAI?", "a LGPD vale para jornalistas?": the norm's scope
            # clauses ("Esta Lei aplica-se…", "Subordinam-se ao regime desta Lei") join the
            # front of the candidates — the lay words ("quem tem que cumprir") are not the
            # law's; which clause answers is left to the ranking (the relation's bonus).
            norms = list(dict.fromkeys(h.citation.path.split(",")[0].strip() for h in hits[:5]))
            if named_law:  # the norm the question names, wherever its passages came
                named_norm = [n for n in index.scope if law_key(n) == named_law]
                norms = list(dict.fromkeys([*named_norm, *norms]))
            wanted = [cid for n in norms[:_SCOPE_NORMS] for cid in index.scope.get(n, [])]
            by_id = {h.chunk_id: h for h in hits}
            missing = [c for c in wanted if c not in by_id]
            found = self.store.get_chunks(self.collection, missing) if missing else {}
            by_id.update({c: _hit(found[c], self.collection) for c in missing if c in found})
            clauses = [by_id[c] for c in wanted if c in by_id]
            hits = clauses + [h for h in hits if h.chunk_id not in set(wanted)]
            analysis["scope"] = [h.chunk_id for h in clauses]
        term = analysis.get("filters", {}).get("defines")
        weights = dict.fromkeys(index.lookup(term) if term else [], 1.0)
        relation = analysis.get("relation")
        # "Quem é o encarregado?" asks who the encarregado is: a definition when the
        # collection defines the term ("VIII – encarregado: pessoa indicada…").
        asks_who_is = relation == "who" and _WHO_IS.match(_fold(state["question"]))
        if relation == "definition" or asks_who_is:
            within = index.lookup_within(state["question"])
            if within and asks_who_is:
                analysis["relation"] = "definition"
            for cid, w in within.items():
                weights[cid] = max(w, weights.get(cid, 0.0))
        defining = list(weights)
        if defining:
            # every defining passage goes first, the most specific term first — one the search
            # also found keeps no lower place than one it did not ("dado pessoal sensível"
            # found 28th must not trail "dado pessoal" added at the front)
            known = {h.chunk_id: h for h in hits}
            ids = [i for i in defining if i not in known]
            found = self.store.get_chunks(self.collection, ids) if ids else {}
            known.update({i: _hit(found[i], self.collection) for i in ids if i in found})
            order = sorted((i for i in defining if i in known), key=lambda i: -weights[i])
            front = set(order)
            hits = [known[i] for i in order] + [h for h in hits if h.chunk_id not in front]
            analysis["definitions"] = defining
            analysis["definition_weights"] = weights
        return {"hits": hits, "tried": [*state.get("tried", []), query], "analysis": analysis}

    def candidates(
        self, state: RagState, grades: dict[str, float]
    ) -> tuple[list[ArticleCandidate], Relation]:
        """The candidate articles of the retrieved passages with their ranking features."""
        analysis = state.get("analysis", {})
        relation: Relation = analysis.get("relation", "other")
        weights: dict[str, float] = analysis.get("definition_weights", {})

        def boost(hit: Hit) -> float:
            # A definition question: the passage drafted as the term's definition goes first.
            if relation != "definition":
                return 0.0
            return _DEFINITION_BOOST * weights.get(hit.chunk_id, 0.0)

        hits = state.get("hits", [])
        found = article_candidates(
            state["question"],
            hits,
            grades,
            relation,
            boost=boost,
            similarity=self._similarity(state["question"], hits),
        )
        return found, relation

    def _similarity(self, question: str, hits: Sequence[Hit]) -> dict[str, float]:
        """Each passage's cosine to the question, from the stored vectors ({} without them)."""
        if self.retriever.embedder is None or not hits:
            return {}
        try:
            vectors = self.retriever.chunk_vectors([h.chunk_id for h in hits])
            if not vectors:
                return {}
            query = self.retriever.embed_query(question)
        except (ColmeiaError, QueryError) as exc:
            log.info("no vector similarity for ranking: %s", exc)
            return {}
        return {cid: float(vec @ query) for cid, vec in vectors.items()}

    def hand_ranking(
        self, state: RagState, grades: dict[str, float]
    ) -> tuple[list[RankedArticle], dict[str, float], dict[str, float]]:
        """The articles by the hand-set weights of :func:`rank_articles`, with each passage's
        nearness to the question (its cosine less part of its hubness) and the nearness of its
        article's shipped questions, both in standard deviations from the candidates' mean."""
        analysis = state.get("analysis", {})
        question = state["question"]
        hits = state.get("hits", [])
        relation = analysis.get("relation", "other")
        weights: dict[str, float] = analysis.get("definition_weights", {})
        # each cosine less part of the passage's hubness: near this question, not near
        # every question (:mod:`.hubness`)
        cosines = self._similarity(question, hits)
        ids = [h.chunk_id for h in hits]
        asked_by = self.retriever.expansion_similarity(question, ids) if _ASKED_WEIGHT > 0 else {}
        clause = asked_clause(question)
        if clause:
            # a situation told, then the question: "…e negaram. quanto tempo eu tenho pra
            # recorrer?" — nearness to the whole and to what is asked, alike
            own = self._similarity(clause, hits)
            cosines = {c: (v + own.get(c, v)) / 2 for c, v in cosines.items()}
            if asked_by:
                mine = self.retriever.expansion_similarity(clause, ids)
                asked_by = {c: (v + mine.get(c, v)) / 2 for c, v in asked_by.items()}
        hubs = hubness(self.store, self.collection) if cosines else {}
        near = standardised(
            {cid: cos - _HUB_FACTOR * hubs.get(cid, 0.0) for cid, cos in cosines.items()}
        )
        asked = standardised(asked_by)

        def boost(hit: Hit) -> float:
            # how near the question the passage lies in the vector space, for every
            # candidate (not only those the vector search returned)
            nearness = _NEARNESS_WEIGHT * near.get(hit.chunk_id, 0.0)
            nearness += _ASKED_WEIGHT * asked.get(hit.chunk_id, 0.0)
            if relation != "definition":
                return nearness
            return nearness + _DEFINITION_BOOST * weights.get(hit.chunk_id, 0.0)

        ranked = rank_articles(hits, grades, relation, boost=boost)
        named = analysis.get("filters", {})
        if any(named.get(k) for k in ("inciso", "paragraph", "caput")):
            # the part named leads its article, however near another part's vector lies
            for article in ranked:
                article.hits.sort(
                    key=lambda h: not _names_part(named, parse_legal_path(h.citation.path))
                )
        if not names_a_body(question):
            # lex specialis: an article whose rule is for some bodies only (any of its
            # passages found says so, its caput or an inciso under it) gives way to the
            # general rule when the question names none of them
            for article in ranked:
                if any(limited_to_some_bodies(f"{h.heading} {h.text}") for h in article.hits):
                    article.score -= _SPECIALIS_PENALTY
            ranked.sort(key=lambda a: -a.score)
        return ranked, near, asked

    def learned_candidates(
        self,
        state: RagState,
        grades: dict[str, float],
        ranked: Sequence[RankedArticle],
        near: dict[str, float],
        asked: dict[str, float],
    ) -> list[ArticleCandidate]:
        """The candidate articles with the learned ranker's features: the retrieval's and the
        ranking's own signals (:func:`article_candidates`), the hand-set ranking's place and
        score, and how near the question the article's passages and shipped questions lie."""
        found, _ = self.candidates(state, grades)
        place = {a.key: n for n, a in enumerate(ranked)}
        score = standardised({a.key: a.score for a in ranked})
        for c in found:
            cids = [h.chunk_id for h in c.hits]
            c.features["hand"] = 1.0 / (1.0 + place.get(c.key, len(place)))
            c.features["hand_score"] = score.get(c.key, 0.0)
            c.features["near"] = max((near.get(i, 0.0) for i in cids), default=0.0)
            c.features["asked"] = max((asked.get(i, 0.0) for i in cids), default=0.0)
        return found

    async def grade(self, state: RagState) -> RagState:
        """Grade each passage's relevance, rank them as parts of their articles, keep the
        best passage of each article whose grade reaches the threshold (best article first).

        Articles are ordered by the learned ranker (:mod:`.article_ranker`) when one is set,
        else by the hand-set weights of :func:`rank_articles`."""
        analysis = state.get("analysis", {})
        question = state["question"]
        grades: dict[str, float] = dict(state.get("grades", {}))
        stats = DefinitionIndex.for_collection(self.store, self.collection)
        hits = state.get("hits", [])
        graded = str(analysis.get("grade_query") or question)
        for hit in hits:
            grades[hit.chunk_id] = grade_passage(graded, hit, analysis, stats.idf)
        ranked, near, asked = self.hand_ranking(state, grades)
        if self.article_ranker is not None:
            found = self.learned_candidates(state, grades, ranked, near, asked)
            order = {c.key: n for n, (_, c) in enumerate(self.article_ranker.rank(found))}
            ranked.sort(key=lambda a: order.get(a.key, len(order)))
        if self.model_reranker is not None and len(ranked) > 1:
            ranked = await self._model_order(question, ranked)
        named_first = self._named_norm_first(question, analysis, ranked, grades, near, asked)
        clauses = set(analysis.get("in_force", []))
        if clauses:
            # A vigência question: the norm's vigência clause goes first, as a definition does
            # for "o que é X" (its words rarely match the question's).
            ranked.sort(key=lambda a: not any(h.chunk_id in clauses for h in a.hits))
            for article in ranked:
                # and within the article, the caput's rule before its paragraphs' details and
                # exceptions (LC 95, Art. 11): LINDB Art. 1's "a lei começa a vigorar… quarenta
                # e cinco dias depois…", not its § 3 on a text published again
                article.hits.sort(key=lambda h: (h.chunk_id not in clauses, _subdivision(h)))
        scores = {a.best.chunk_id: round(a.score, 4) for a in ranked}
        if named_first is not None and scores:
            # quoted, whatever its words scored beside the other norm's (see _closest)
            scores[named_first.best.chunk_id] = max(scores.values())
        if clauses and scores and analysis.get("in_force_known"):
            # the clause of the norm asked leads whatever its words scored: the extractive
            # answer quotes the articles scored near the best one (_closest), and a clause
            # scored far below it was left out of the answer it leads ("a LAI vale desde
            # quando?" quoted Art. 24's secrecy terms, Art. 47 "Esta Lei entra em vigor…" only
            # among the sources). A clause of a norm merely found is left to its score.
            highest = max(scores.values())
            for article in ranked:
                if article.best.chunk_id in clauses:
                    scores[article.best.chunk_id] = highest
        relevant = [
            h
            for article in ranked
            for h in article.hits[:1]
            if grades.get(h.chunk_id, 0.0) >= self.config.relevance
            # or the vectors vouch for it: a lay question shares few words with the law
            or any(near.get(c.chunk_id, 0.0) >= _NEAR_RELEVANT for c in article.hits)
            # or the questions people ask that the article answers lie nearest this one
            or any(asked.get(c.chunk_id, 0.0) >= _NEAR_RELEVANT for c in article.hits)
        ]
        if relevant and relevant[0] is not ranked[0].best:
            # The gate says whether there is an answer and which articles join it, not which
            # comes first: the article the ranking put first leads whenever any passes. Left
            # out, a lower article with more of the question's words led instead (the
            # instalments a buyer loses on withdrawal, CDC Art. 53, behind Lei 9.784's
            # withdrawal of a request): on the development sets the ranking's first place was
            # the right one ten times where the gate's was six (words only).
            relevant = [ranked[0].best, *[h for h in relevant if h is not ranked[0].best]]
        if not relevant and ranked and hits:
            # Nothing reaches the threshold: the passage retrieval put first still stands if
            # its article also ranks first (both signals agree on it); so does the article
            # ranked first when it holds the passage nearest the question by vectors (a lay
            # question shares few words with the law, so its coverage grade stays low).
            top = ranked[0].best
            nearest = max(near, key=lambda cid: near[cid]) if near else None
            if (
                top.chunk_id == hits[0].chunk_id
                or any(h is hits[0] for h in ranked[0].hits)
                or any(h.chunk_id == nearest for h in ranked[0].hits)
            ):
                relevant = [top]
        return {
            "grades": grades,
            "relevant": relevant,
            "scores": scores,
            "ranked": [a.best for a in ranked[: self.config.max_passages]],
        }

    def _named_norm_first(
        self,
        question: str,
        analysis: dict[str, Any],
        ranked: list[RankedArticle],
        grades: dict[str, float],
        near: dict[str, float],
        asked: dict[str, float],
    ) -> RankedArticle | None:
        """Put first the best article of the norm the question itself names ("a constituição
        fala alguma coisa sobre licitação?"), when one of its passages is relevant; the
        article moved, or ``None``. Another norm's article on more of the question's words
        answers a question nobody asked of it. The thread's norm a follow-up is searched
        within (``… (Lei 8.078/1990)``) is no norm the question names."""
        law = analysis.get("filters", {}).get("law_number")
        if not law or not ranked or not named_norms(_THREAD_NORM.sub("", question)):
            return None
        own = [a for a in ranked if law_key(parse_legal_path(a.best.citation.path).law) == law]
        if not own or own[0] is ranked[0]:
            return None
        first = own[0]
        relevant = any(
            grades.get(h.chunk_id, 0.0) >= self.config.relevance
            or near.get(h.chunk_id, 0.0) >= _NEAR_RELEVANT
            or asked.get(h.chunk_id, 0.0) >= _NEAR_RELEVANT
            for h in first.hits
        )
        if not relevant:
            return None
        ranked.remove(first)
        ranked.insert(0, first)
        return first

    async def _model_order(self, question: str, ranked: list[RankedArticle]) -> list[RankedArticle]:
        """The first articles as the model reranker orders them (each shown with its caput)."""
        assert self.model_reranker is not None
        head = ranked[: self.model_reranker.top_n]
        best = [a.best for a in head]
        wanted = {h.chunk_id: _caput_id(h) for h in best}
        ids = [c for c in wanted.values() if c]
        found = self.store.get_chunks(self.collection, ids) if ids else {}
        caputs = {cid: found[c].text for cid, c in wanted.items() if c and c in found}
        candidates = self.model_reranker.candidates(best, caputs)
        order = await self.model_reranker.order(question, candidates)
        return [head[i] for i in order] + ranked[len(head) :]

    async def rewrite(self, state: RagState) -> RagState:
        """A new query, by rules (content words only, then only the longer ones).

        Not by the model: which passages an answer rests on is decided without it, so a model
        can change how the answer reads but never which passages the ranking put first.
        """
        tried = state.get("tried", [])
        new = _rule_rewrite(state.get("analysis", {}).get("processed", state["query"]), tried)
        if not new:  # nothing left to try: leave both loops
            return {"rewrites": self.config.max_rewrites, "exhausted": True}
        return {"rewrites": state.get("rewrites", 0) + 1, "query": new}

    async def enrich(self, state: RagState) -> RagState:
        """Drop revoked/vetoed dispositivos, flag amended ones, add each § / inciso's caput."""
        notes = list(state.get("notes", []))
        passages: list[Hit] = []
        seen: set[str] = set()
        source = state.get("relevant") or state.get("hits", [])[: self.config.min_relevant]
        for hit in source:
            v = validity(hit.text, hit.doc_id)
            if v.status in ("revoked", "vetoed"):
                label = hit.citation.label()
                notes.append(f"{label} não foi usado: {v.note or v.status}.")
                continue
            if hit.chunk_id not in seen:
                passages.append(hit)
                seen.add(hit.chunk_id)
        # A paragraph or inciso reads wrongly without its caput: fetch it as context.
        wanted = []
        for hit in passages:
            m = re.match(r"^(.*!art\d+[a-z\-]*)_(?!cpt)", hit.doc_id)
            if m and f"{m.group(1)}_cpt#0" not in seen:
                wanted.append(f"{m.group(1)}_cpt#0")
        if wanted:
            found = self.store.get_chunks(self.collection, wanted)
            for cid in wanted:
                chunk = found.get(cid)
                if chunk is None or cid in seen:
                    continue
                seen.add(cid)
                passages.append(_hit(chunk, self.collection))
        passages = [self._with_items(hit) for hit in passages]
        return {"passages": passages, "notes": list(dict.fromkeys(notes))}

    def _with_items(self, hit: Hit) -> Hit:
        """A dispositivo that only introduces a list ("Os Ministros … serão escolhidos:", "…
        ao qual compete:") says nothing without its incisos or alíneas: its items join its text
        (the first :data:`LIST_ITEMS`, then "(…)"), so the quote answers what it introduces."""
        if not hit.text.rstrip().endswith(":"):
            return hit
        base = hit.chunk_id.split("#", 1)[0]
        wanted = [f"{base}_{kind}{n}#0" for kind in ("inc", "ali") for n in range(1, 41)]
        found = self.store.get_chunks(self.collection, wanted)
        items = [found[c].text.strip() for c in wanted if c in found]
        if not items:
            return hit
        more = ["(…)"] if len(items) > LIST_ITEMS else []
        text = "\n".join([hit.text.rstrip(), *items[:LIST_ITEMS], *more])
        return replace(hit, text=text)

    async def rerank(self, state: RagState) -> RagState:
        """Best first: the configured reranker, else relevance grade then retrieval order."""
        passages = list(state.get("passages", []))
        if self.reranker is not None and passages:
            try:
                passages = await self.reranker.rerank(state["query"], passages)
            except ColmeiaError as exc:
                log.info("reranker failed, keeping grade order: %s", exc)
        # Without a reranker the retrieval order stands: on the shipped laws, re-sorting by the
        # relevance grade put the right passage lower more often than higher.
        return {"passages": passages[: self.config.max_passages]}

    async def generate(self, state: RagState) -> RagState:
        """The ranking's answer for this attempt: its best passages, quoted and cited.

        The quality gate scores it and chooses among attempts on it, with or without a model,
        so the passages an answer rests on are the same either way; the model writes once, over
        the chosen attempt (:meth:`write`).
        """
        passages = list(state.get("passages", []))
        if passages:
            passages = _closest(passages, state.get("scores", {}))
        return {"answer": extractive_answer(state["question"], passages)}

    async def write(self, state: RagState) -> RagState:
        """With a model: the answer written over the chosen attempt's passages.

        What the ranking put first is never dropped or demoted (:func:`ranker_first`): its
        passages lead the citations, the model's further citations follow in rank order, and
        one outside what the ranking found is dropped. When none of the model's citations holds
        (an invented quote) or its text was withheld, the ranking's answer stands.
        """
        best = state.get("best")
        if self.model is None or not best or not best.get("relevant"):
            return {}
        ranker: CitedAnswer | None = best.get("answer")
        if ranker is None or not ranker.citations:
            return {}
        question = state["question"]
        if state.get("context"):
            question = f"{question}\n\nContexto: {state['context']}"
        passages = list(best.get("passages", []))
        sink = _SINK.get()
        try:
            answer = await answer_question(
                question, passages, self.model, max_passages=self.config.max_passages, sink=sink
            )
        except ModelError as exc:
            log.info("generation failed, answering with the ranked passages: %s", exc)
            if sink is not None:
                sink.replace(ranker.answer, "model_error")
            return {}
        if answer.extractive:  # the model wrote nothing: the ranking's answer, as offline
            ranker.model, ranker.withheld, ranker.rejected = (
                answer.model,
                answer.withheld,
                answer.rejected,
            )
            if sink is not None:
                sink.replace(ranker.answer, answer.withheld or "empty_answer")
            return {}
        if not answer.citations:
            # Not one citation held (a small model quoting words the passage does not have),
            # or the text was withheld (it recited its instructions): the text rests on nothing
            # checked, and the person gets the ranked passages quoted, as without a model.
            ranker.model, ranker.rejected = answer.model, answer.rejected
            if answer.withheld:  # the person is told why, then reads the passages themselves
                ranker.withheld = answer.withheld
                ranker.answer = f"{answer.answer}\n\n{ranker.answer}"
            else:
                ranker.withheld = "no_citation_held"
                if sink is not None:
                    sink.replace(ranker.answer, "no_citation_held")
            return {}
        written = ranker_first(answer, ranker, best.get("ranked", []))
        stats = DefinitionIndex.for_collection(self.store, self.collection)
        quality = answer_quality(
            written,
            analysis=state.get("analysis", {}),
            idf=stats.idf,
            other_jurisdiction=bool(state.get("jurisdiction")),
            context=passages,
            vocabulary=stats.df,
        )
        return {"best": {**best, "answer": written, "quality": quality}}

    async def validate(self, state: RagState) -> RagState:
        """Score the answer; keep the best so far."""
        answer = state.get("answer")
        stats = DefinitionIndex.for_collection(self.store, self.collection)
        score = (
            answer_quality(
                answer,
                analysis=state.get("analysis", {}),
                idf=stats.idf,
                other_jurisdiction=bool(state.get("jurisdiction")),
                context=state.get("passages", []),
                vocabulary=stats.df,
            )
            if answer
            else 0.0
        )
        best = state.get("best")
        update: RagState = {"quality": score}
        # A reformulated query must do clearly better to replace an earlier answer, and pass
        # the gate: it drops the question's words, so a partial answer from it is no better
        # evidence than a partial answer from the question itself (on the lay development
        # set, retries that replaced the first answer below the gate lost its first place
        # and never gained one; the formal set's first places were never changed by them).
        better = best is not None and score > best["quality"] + _RETRY_MARGIN
        if best is None or (better and score > self.config.quality):
            update["best"] = {
                "answer": answer,
                "quality": score,
                "query": state["query"],
                "relevant": len(state.get("relevant", [])),
                "passages": list(state.get("passages", [])),
                "ranked": list(state.get("ranked", [])),
                "lead": [c.chunk_id for c in answer.citations] if answer else [],
            }
        return update

    async def prepare(self, state: RagState) -> RagState:
        """The result handed back to the coordinator: answer, citations, quality, notes."""
        notes = list(state.get("notes", []))
        if state.get("missing"):
            return {"result": _result(state["missing"], None, 0.0, False, state, notes)}
        best = state.get("best") or {}
        answer: CitedAnswer | None = best.get("answer")
        quality = float(best.get("quality", 0.0))
        attempts = state.get("retries", 0)
        passed = quality > self.config.quality
        warning = state.get("jurisdiction", "")
        if answer is None or not answer.citations or not best.get("relevant"):
            text = (
                "Não encontrei nos documentos oficiais disponíveis trechos que respondam a "
                "esta pergunta."
            )
            if warning:
                text = f"{warning}\n\n{text}"
            return {"result": _result(text, None, quality, False, state, notes)}
        text = answer.answer
        if warning:  # said before any federal rule is stated
            text = f"{warning}\n\n{text}"
        for c in answer.citations:
            hit = next((h for h in answer.passages if h.chunk_id == c.chunk_id), None)
            v = validity(hit.text, hit.doc_id) if hit else None
            if v is not None and v.status == "amended" and c.citation is not None:
                notes.append(f"{c.citation.label()}: {v.note}.")
        if not passed:
            notes.append(
                f"Resposta com suporte parcial: a verificação de qualidade ficou em "
                f"{quality:.2f} (mínimo {self.config.quality}) após {attempts} nova(s) "
                "tentativa(s) com a busca reformulada; confira as fontes citadas."
            )
        return {"result": _result(text, answer, quality, passed, state, notes)}

    # ------------------------------------------------------------------ wiring
    def _after_check(self, state: RagState) -> str:
        return "analyze" if state.get("ready") else "prepare"

    def _after_analyze(self, state: RagState) -> str:
        if state.get("attachments"):
            return "ingest_attachments"
        # A norm the collection does not hold: another law's passages would not answer.
        return "prepare" if state.get("missing") else "retrieve"

    def _after_grade(self, state: RagState) -> str:
        enough = len(state.get("relevant", [])) >= self.config.min_relevant
        if enough or state.get("rewrites", 0) >= self.config.max_rewrites:
            return "enrich"
        return "rewrite"

    def _after_validate(self, state: RagState) -> str:
        if state.get("quality", 0.0) > self.config.quality:
            return "write"
        if state.get("retries", 0) >= self.config.max_quality_retries or state.get("exhausted"):
            return "write"
        return "retry"

    def _after_retry(self, state: RagState) -> str:
        return "write" if state.get("exhausted") else "retrieve"

    def _after_rewrite(self, state: RagState) -> str:
        if not state.get("exhausted"):
            return "retrieve"
        # Nothing left to rewrite: the answer rests on what was found (fewer relevant passages
        # than wished is still an answer), or the quality loop's best answer stands.
        return "write" if state.get("best") else "enrich"

    async def retry(self, state: RagState) -> RagState:
        """After a failed quality check: rewrite, and allow the retrieval loop again."""
        out = await self.rewrite(state)
        out["retries"] = state.get("retries", 0) + 1
        if not out.get("exhausted"):
            out["rewrites"] = 0
        return out

    def _build(self) -> Flow[RagState]:
        g: Flow[RagState] = Flow("rag", start="check_collection")
        for name in (
            "check_collection",
            "analyze",
            "ingest_attachments",
            "retrieve",
            "grade",
            "rewrite",
            "enrich",
            "rerank",
            "generate",
            "validate",
            "retry",
            "write",
            "prepare",
        ):
            g.node(name, getattr(self, name))
        g.branch("check_collection", self._after_check)
        g.branch("analyze", self._after_analyze)
        g.edge("ingest_attachments", "retrieve")
        g.edge("retrieve", "grade")
        g.branch("grade", self._after_grade)
        g.branch("rewrite", self._after_rewrite)
        g.edge("enrich", "rerank")
        g.edge("rerank", "generate")
        g.edge("generate", "validate")
        g.branch("validate", self._after_validate)
        g.branch("retry", self._after_retry)
        g.edge("write", "prepare")
        g.edge("prepare", END)
        return g

    @property
    def recursion_limit(self) -> int:
        loops = (self.config.max_rewrites + 1) * 3 * (self.config.max_quality_retries + 1)
        return 10 + loops + 6 * (self.config.max_quality_retries + 1)

    async def run(
        self,
        question: str,
        *,
        context: str = "",
        attachments: Sequence[str] = (),
        sink: AnswerSink | None = None,
        local: str = "",
    ) -> dict[str, Any]:
        """Run the pipeline on one question; returns the result for the coordinator.

        With ``sink``, each generation streams its answer into it (a retry withdraws the
        previous one); the result's answer is what counts. ``local`` names the thread's case
        of a state or municipal court (:func:`court_rules.local_case`): a deadline or
        procedure question is then warned that the court's own rules may differ.
        """
        target = self.route(question) if not attachments else self.collection
        if target != self.collection:
            return await self.sibling(target).run(question, context=context, sink=sink, local=local)
        state: RagState = {
            "question": question,
            "context": context,
            "local": local,
            "attachments": list(attachments),
        }
        token = _SINK.set(sink)
        try:
            out = await self.graph.run(state, limit=self.recursion_limit)
        finally:
            _SINK.reset(token)
        result: dict[str, Any] = out["result"]
        role = (
            "norma do tribunal"
            if self.collection == self.court_collection
            else "jurisprudência"
            if self.collection == self.jurisprudence_collection
            else ""
        )
        if role:  # say whose texts these are, before any of them is quoted
            for c in result.get("citations", []):
                c["source"] = role
            heading = _WHOSE[role].format(collection=self.collection)
            result["answer"] = f"{heading}\n\n{result['answer']}"
        return result


def _names_part(filters: dict[str, Any], ref: LegalRef) -> bool:
    """Whether ``ref`` is the inciso and/or paragraph the question named (``False`` when it
    named neither)."""
    inciso, paragraph = filters.get("inciso"), filters.get("paragraph")
    if filters.get("caput"):
        return not (ref.paragraph or ref.inciso or ref.alinea)
    if not inciso and not paragraph:
        return False
    if inciso and ref.inciso.upper() != inciso:
        return False
    return not paragraph or _fold(ref.paragraph) == paragraph


def _caput_id(hit: Hit) -> str:
    """The chunk id of the caput of the article a § or inciso belongs to ("" for a caput)."""
    m = re.match(r"^(.*!art\d+[a-z\-]*)_(?!cpt)", hit.doc_id)
    return f"{m.group(1)}_cpt#0" if m else ""


def _closest(passages: Sequence[Hit], scores: dict[str, float]) -> list[Hit]:
    """The passages quoted as an extractive answer: the articles ranked about as high as the
    best one (at most three), else the first."""
    best = max(scores.get(h.chunk_id, 0.0) for h in passages)
    close = [h for h in passages if scores.get(h.chunk_id, 0.0) >= best - 0.15]
    return close[:3] or list(passages[:1])


def _rank_key(hit: Hit) -> str:
    """What the ranking ranks: an article (any of its chunks), else the passage itself."""
    return _article_of(hit) or f"chunk:{hit.chunk_id}"


_BY_RANKING = "trecho que a busca classificou primeiro; acrescentado às fontes"


def ranker_first(answer: CitedAnswer, ranker: CitedAnswer, ranked: Sequence[Hit]) -> CitedAnswer:
    """A model's answer over the ranked passages, with the ranking's evidence kept first.

    ``ranker`` is the answer without a model (the passages the ranking put first, best first),
    ``ranked`` the ranking's articles, best first. The result keeps the model's text and its
    checked citations, but:

    * the ranking's passages lead the citations, in its order, each marked in the text when
      the model did not cite it (a small model cites the neighbours of the right article: seen
      on the 1.5B local model);
    * the model's further citations follow in the ranking's order;
    * a citation of a passage whose article the ranking did not rank is dropped.

    So the passages an answer gives, in order, are never worse than without a model: the
    first is the same, and a passage the model did not cite keeps its place
    (:func:`colmeia.eval.assistant.answer_passages`).
    """
    position: dict[str, int] = {}
    for i, r_hit in enumerate(ranked):
        position.setdefault(_rank_key(r_hit), i)
    passages = list(answer.passages)
    by_chunk = {h.chunk_id: h for h in passages}
    pid_of = {h.chunk_id: f"P{i}" for i, h in enumerate(passages, start=1)}
    text = answer.answer
    kept: list[CheckedCitation] = []
    rejected = list(answer.rejected)
    for c in answer.citations:
        hit = by_chunk.get(c.chunk_id)
        if hit is None or _rank_key(hit) not in position:
            c.supported, c.reason = False, "outside the passages the ranking found"
            rejected.append(c)
            text = text.replace(f"[{c.passage_id}]", "")
            continue
        kept.append(c)
    first: list[CheckedCitation] = []
    for r in ranker.citations:
        mine = next((c for c in kept if c.chunk_id == r.chunk_id), None)
        if mine is None:
            if r.chunk_id not in pid_of:
                hit = next(h for h in ranker.passages if h.chunk_id == r.chunk_id)
                passages.append(hit)
                pid_of[hit.chunk_id] = f"P{len(passages)}"
            pid = pid_of[r.chunk_id]
            quote = (
                " ".join(by_chunk[r.chunk_id].text.split()[:12]) if r.chunk_id in by_chunk else ""
            )
            mine = CheckedCitation(pid, True, _BY_RANKING, quote, r.chunk_id, r.doc_id, r.citation)
            if f"[{pid}]" not in text:
                text = f"{text} [{pid}]"
        first.append(mine)
    leading = {c.chunk_id for c in first}

    def rank(c: CheckedCitation) -> int:
        return position[_rank_key(by_chunk[c.chunk_id])]

    rest = sorted((c for c in kept if c.chunk_id not in leading), key=rank)
    text = re.sub(r"[ \t]+([.,;:!?])", r"\1", re.sub(r"[ \t]{2,}", " ", text)).strip()
    return CitedAnswer(
        answer.question,
        text,
        [*first, *rest],
        rejected,
        passages,
        False,
        answer.model,
        answer.withheld,
    )


_NEIGHBOURS = 5
_MIN_SHARED = 2
# The official texts' editorial notes — "(Redação dada pela Medida Provisória nº 869, de
# 2018)", "(Incluído pela Lei nº 13.853, de 2019)", "(VETADO)" — say how the text changed,
# not what it is about: their words ("redação", "provisória") are no vocabulary to search by.
_ANNOTATION = re.compile(
    r"\((?:[^()]*?\b(?:reda[çc][ãa]o|inclu[íi]d|acrescid|revogad|vetad|vide|regulamento|"
    r"produ[çc][ãa]o de efeito|vig[êe]ncia)[^()]*)\)",
    re.IGNORECASE,
)
# A question about when a norm came into force ("quando a LGPD entrou em vigor?", "quando a
# lei começou a valer?"), not about any other date.
_VIGENCIA_Q = re.compile(
    r"\b(?:entr\w* em vigor|em vigor|vigor\w*|vigencia|come[cç]\w* a (?:valer|vigorar)"
    r"|passou a valer|vale a partir|quando (?:\w+ )?val(?:e|eu)|a partir de quando val\w*)\b"
)
# a question about laws in general, not one norm ("uma lei nova", "qualquer lei", "as leis")
_ANY_LAW = re.compile(
    r"\b(?:uma|qualquer|toda|nova|as)\s+(?:lei|norma)s?\b|\b(?:lei|norma)s?\s+novas?\b"
)
# said of a norm the question names ("a LAI vale desde quando?", "a lei das estatais já vale?")
_VIGENCIA_NAMED = re.compile(
    r"\b(?:val\w* desde quando|desde quando (?:\w+ )?val\w*|ja (?:esta )?val(?:e|endo))\b"
)


def _subdivision(hit: Hit) -> bool:
    """Whether the passage is a paragraph, inciso or alínea, not its article's caput."""
    ref = parse_legal_path(hit.citation.path)
    return bool(ref.paragraph or ref.inciso or ref.alinea)


def neighbour_terms(question: str, hits: Sequence[Hit], idf: Callable[[str], float], n: int) -> str:
    """The ``n`` rarest words of the passages nearest the question by vectors (the first
    ``_NEIGHBOURS`` of the dense list) that the question does not already use; "" without
    vectors or when ``n`` is 0."""
    if n <= 0:
        return ""
    near = sorted((h for h in hits if h.dense_rank is not None), key=lambda h: h.dense_rank or 0)
    if not near:
        return ""
    asked = set(content_terms(question))
    weight: dict[str, float] = {}
    count: dict[str, int] = {}
    surface: dict[str, str] = {}
    for hit in near[:_NEIGHBOURS]:
        body = _ANNOTATION.sub(" ", re.sub(r"^\[.*?\]\s*", "", hit.text))
        seen: set[str] = set()
        for word in re.findall(r"[^\W\d_]{4,}", body.lower()):
            stems = content_terms(word)
            if not stems or stems[0] in asked or stems[0] in seen:
                continue
            # once per passage: a long list repeating "desde que" is not saying it louder
            stem = stems[0]
            seen.add(stem)
            weight[stem] = weight.get(stem, 0.0) + idf(stem)
            count[stem] = count.get(stem, 0) + 1
            surface.setdefault(stem, word)
    # A word of one neighbour only is that passage's own; words the near passages share say
    # what the law calls the question's subject (pseudo-relevance feedback).
    shared = [t for t in weight if count[t] >= _MIN_SHARED]
    best = sorted(shared, key=lambda t: -weight[t])[:n]
    return " ".join(surface[t] for t in best)


def _fuse(
    lists: Sequence[Sequence[Hit]], k: int = 60, weights: Sequence[float] | None = None
) -> list[Hit]:
    """Reciprocal rank fusion of hit lists (one list: itself), each list's part times its
    weight (1 when ``weights`` is not given)."""
    if len(lists) == 1:
        return list(lists[0])
    score: dict[str, float] = {}
    first: dict[str, Hit] = {}
    for i, hits in enumerate(lists):
        weight = weights[i] if weights is not None else 1.0
        for rank, hit in enumerate(hits):
            score[hit.chunk_id] = score.get(hit.chunk_id, 0.0) + weight / (k + rank)
            first.setdefault(hit.chunk_id, hit)
    return sorted(first.values(), key=lambda h: -score[h.chunk_id])


def _hit(chunk: StoredChunk, collection: str) -> Hit:
    """A stored passage as a hit (for passages found other than by search)."""
    return Hit(
        chunk.chunk_id,
        chunk.doc_id,
        0.0,
        chunk.text,
        Citation(
            chunk.title or chunk.doc_id,
            chunk.page_start,
            chunk.path,
            chunk.source_path,
            chunk.page_end,
        ),
        collection,
        heading=chunk.heading,
        doc_type=chunk.doc_type,
        year=chunk.year,
    )


def _result(
    text: str,
    answer: CitedAnswer | None,
    quality: float,
    passed: bool,
    state: RagState,
    notes: list[str],
) -> dict[str, Any]:
    best = state.get("best") or {}
    ranked: list[Hit] = best.get("ranked", state.get("ranked", []))
    lead = set(best.get("lead", []))
    position: dict[str, int] = {}
    for i, r_hit in enumerate(ranked, start=1):
        position.setdefault(_rank_key(r_hit), i)
    citations: list[dict[str, Any]] = []
    cited_keys: set[str] = set()
    if answer is not None:
        for c in answer.citations:
            cit = c.citation
            ref = parse_legal_path(cit.path if cit else "", cit.page if cit else 0)
            hit = next((h for h in answer.passages if h.chunk_id == c.chunk_id), None)
            key = _rank_key(hit) if hit is not None else f"chunk:{c.chunk_id}"
            cited_keys.add(key)
            citations.append(
                {
                    "passage": c.passage_id,
                    "label": cit.label() if cit else c.doc_id,
                    **ref.as_dict(),
                    # whose norm: Constituição Federal, lei federal, jurisprudência, tribunal
                    "source": source_kind(
                        cit.path if cit else "", hit.doc_type if hit is not None else ""
                    ),
                    "doc_id": c.doc_id,
                    "chunk_id": c.chunk_id,
                    "quote": c.quote,
                    "validity": validity(hit.text if hit else "", c.doc_id).as_dict(),
                    # who put it in the answer: the ranking (its best passages, always kept
                    # first) or the model; and the place of its article in the ranking
                    "by": "ranking" if answer.extractive or c.chunk_id in lead else "model",
                    "rank": position.get(key),
                }
            )
    sources = [
        {
            "label": h.citation.label(),
            **parse_legal_path(h.citation.path, h.citation.page).as_dict(),
            "doc_id": h.doc_id,
            "chunk_id": h.chunk_id,
            "rank": position.get(_rank_key(h)),
        }
        for h in ranked
        if _rank_key(h) not in cited_keys and answer is not None
    ]
    return {
        "answer": text,
        "citations": citations,
        "sources": sources,
        "rejected": [r.as_dict() for r in answer.rejected] if answer else [],
        "extractive": bool(answer.extractive) if answer else True,
        "quality": quality,
        "passed": passed,
        "attempts": state.get("retries", 0),
        "queries": state.get("tried", []),
        "analysis": state.get("analysis", {}),
        "notes": notes,
    }
