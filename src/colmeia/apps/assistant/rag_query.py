"""How the RAG agent reads a question by rules: the norm, article and part it names (a law's
number or alias, "art. 71, inciso II", "o caput do art. 37"), its kind, complexity and filters,
the question a told situation ends with, and a rule rewrite of the query
(:class:`colmeia.apps.assistant.rag_agent.RagPipeline` runs them)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from colmeia.apps.assistant.citation_words import mend_citation_words
from colmeia.apps.assistant.institutions import named_institutions, spell_out
from colmeia.apps.assistant.legal import LegalRef, law_key
from colmeia.apps.assistant.relations import asked_relation, content_terms, legal_terms
from colmeia.apps.assistant.scope import named_norms
from colmeia.apps.assistant.shorthand import expand_shorthand
from colmeia.rag.index.lexical import Analyzer, fold_accents

__all__ = ["analyze_query", "asked_clause"]

_analyzer = Analyzer()


# Names people use for the shared laws; a rewrite adds the words the law itself uses.
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
