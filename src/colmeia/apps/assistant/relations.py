"""What a legal question asks for, and whether a passage says it.

"Qual o prazo para recorrer?" asks for a *deadline*; "o que é dado pessoal sensível?" for a
*definition*; "quem deve indicar o encarregado?" for *who*; "quando a lei começa a vigorar?" for
*when*; "a quem se aplica a LAI?", "a LGPD vale para jornalistas?" for the norm's *scope*. A passage can share every word of the question and still not answer it (Art. 12 §2º of
the LGPD mentions "dados pessoais sensíveis" but defines nothing). This module names the asked
relation (:func:`asked_relation`) and tells whether a text states that relation
(:func:`states_relation`): a definition is drafted "X: …", "X é …", "considera-se X"; a deadline
carries a time span ("no prazo de 10 (dez) dias", "cinco anos"); *who* names an agent by
"compete", "cabe", "caberá" or "deverá/deve". Retrieval ranks with it and the quality gate
scores with it.

The same folder of rules turns a citizen's wording into the law's (:func:`legal_terms`):
"recorrer" is "recurso" in the text, "negado" is "indeferimento"/"negativa", a purchase "pela
internet" is made "fora do estabelecimento comercial". These are drafting conventions of
Brazilian federal law, not answers to particular questions.
"""

from __future__ import annotations

import re
from typing import Literal

from colmeia.rag.index.lexical import Analyzer, fold_accents

__all__ = [
    "Relation",
    "asked_relation",
    "content_terms",
    "legal_terms",
    "states_relation",
    "without_relation_words",
]

Relation = Literal["definition", "deadline", "who", "when", "amount", "penalty", "scope", "other"]

# Matched on the folded (lower case, no accents) question.
_DEFINITION_Q = re.compile(
    r"\b(?:o que (?:e|sao|seria|significa|caracteriza|se considera|se entende)|"
    r"que (?:e|sao) (?:um|uma|o|a)\b|"
    r"(?:quem|quais|qual|que)\b[\w\s,]{0,60}?\b(?:e|sao|sera|serao) considerad[oa]s?|"
    r"considera-se|entende-se por|entende\w* por|conceito|definicao|defin[ei]\w*|significado)\b"
)
# Words that say which relation is asked, not what about: "o que *significa* X", "qual o
# *conceito* de X". A passage defining X does not repeat them; grading leaves them out.
_RELATION_WORDS = re.compile(
    r"\b(?:significa\w*|conceito|definicao|defin[ei]\w*|considerad[oa]s?|considera|"
    r"entende-se|entende|entendid[oa]s?|caracteriza\w*|quant[oa]s?|qual|quais|quando|onde|"
    r"quem|como|posso|preciso)\b"
)
_WHO_Q = re.compile(r"^\W*(?:e\s+)?(?:quem|a quem|de quem|qual (?:o )?orgao|que orgao)\b")
_DEADLINE_Q = re.compile(
    r"\b(?:prazo|prazos|quantos (?:dias|anos|meses|horas)|em quanto tempo|por quanto tempo|"
    r"ate quando|quanto tempo|antecedencia|prescri\w+|decai\w*|decadencia|dentro de quantos)\b"
)
_WHEN_Q = re.compile(r"^\W*(?:e\s+)?(?:quando|a partir de quando|desde quando)\b")
_AMOUNT_Q = re.compile(
    r"\b(?:qual (?:o )?valor|quanto (?:custa|e|vale)|valor maximo|valor minimo|ate que valor|"
    r"multa|quantia|percentual)\b"
)
# What befalls whoever breaks a rule: "quais punições…", "é crime?", "o que acontece se…".
_PENALTY_Q = re.compile(
    r"\b(?:puni\w*|penas?|penalidades?|crimes?|criminos\w*|sanc(?:ao|oes)|castig\w*|"
    r"infrac(?:ao|oes)|o que acontece (?:se|com quem|quando)|que acontece se)\b"
)

# Whom or what a norm covers: "a quem se aplica a lei…", "quem tem que cumprir a LAI?", "a
# LGPD vale para jornalistas?", "empresa estatal está sujeita a essa lei?" (not "vale a partir
# de", a vigência question).
_SCOPE_Q = re.compile(
    r"\b(?:a quem (?:se )?aplica\w*|(?:se )?aplica(?:-se)? (?:a|ao|aos|as|para|pra)\b|"
    r"(?:vale|valem) (?:para|pra)\b|(?:quem|que orgaos?|que entidades?|quais orgaos|"
    r"quais entidades) (?:tem que|tem de|precisa|precisam|deve|devem) (?:cumprir|seguir|"
    r"obedecer|respeitar|observar)|(?:esta|estao|fica|ficam) sujeit\w* a (?:essa |esta |a )?"
    r"(?:lei|lai|lgpd)|abrange\w*)"
)
# A norm drafting its scope: "Esta Lei aplica-se…", "não se aplica", "Subordinam-se ao
# regime desta Lei", "Submetem-se ao regime previsto nesta Lei".
_SCOPE = re.compile(
    r"\b(?:aplica-se|aplicam-se|se aplicam?|subordinam-se|sujeitam-se|submetem-se|abrang\w*)\b"
)
_SPAN = re.compile(
    r"\b(?:\d+|um|uma|dois|duas|tres|quatro|cinco|seis|sete|oito|nove|dez|onze|doze|quinze|"
    r"vinte|trinta|sessenta|noventa|cento|cem)\b[^.;:]{0,20}?\b(?:dias?|anos?|meses|mes|horas?|"
    r"semanas?)\b|\bprazo\b|\bimediat\w+"
)
_DEFINES = re.compile(
    r"(?:^\W*(?:[ivxlcdm]+\s*[-–]\s*)?|[;:]\s*|\s[ivxlcdm]+\s*[-–]\s*)[a-z][a-z\- ]{2,50}?:\s|"
    r"\b(?:considera-se|consideram-se|entende-se por|entendem-se por|denomina-se)\b|"
    r"^\W*(?:[a-z][a-z\- ]{2,40}?)\s(?:e|sao)\s(?:o|a|os|as|um|uma|toda|todo|aquel\w*)\b"
)
_WHO = re.compile(
    r"\b(?:compete|competira|competem|cabe|cabera|incumbe|devera|deverao|deve|devem|"
    r"e responsavel|sao responsaveis|responde|respondem)\b"
)
_WHEN = re.compile(
    r"\b(?:apos|antes|quando|desde|a partir d[aeo]|ate|durante|enquanto|\d+ (?:dias|anos)|"
    r"data|vigor)\b"
)
# A sanction as the law drafts it: the penalty itself, or its kinds listed.
_PENALTY = re.compile(
    r"\b(?:pena|penas|detencao|reclusao|multa|sancoes|sancao|penalidades?|advertencia|"
    r"suspensao temporaria|inidoneidade|infrac(?:ao|oes)|sujeit\w* (?:a|as|o|os) (?:seguintes )?"
    r"(?:sancoes|penalidades|penas))\b"
)
_AMOUNT = re.compile(r"(?:r\$\s*[\d.,]+|\b\d[\d.,]*\s*(?:%|por cento|reais|milh\w+|mil)\b)")


def _fold(text: str) -> str:
    return fold_accents(text.lower())


_analyzer = Analyzer()
# Plural → singular before stemming: the stemmer makes "pessoal" "pessoal" but "pessoais"
# "pesso", "sensível" "sensivel" but "sensíveis" "sensiv", so "dados pessoais sensíveis" would
# not match the law's "dado pessoal sensível".
_PLURALS: tuple[tuple[str, str], ...] = (
    ("oes", "ao"),
    ("aes", "ao"),
    ("ais", "al"),
    ("eis", "el"),
    ("ois", "ol"),
    ("uis", "ul"),
    ("ns", "m"),
    ("res", "r"),
    ("zes", "z"),
    ("ses", "s"),
)


def _singular(word: str) -> str:
    if len(word) <= 4:
        return word
    for plural, singular in _PLURALS:
        if word.endswith(plural):
            return word[: -len(plural)] + singular
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def content_terms(text: str) -> list[str]:
    """The text's content words, folded, in the singular, stemmed (stop words dropped)."""
    words = re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", _fold(text))
    return _analyzer.tokens(" ".join(_singular(w) for w in words))


def asked_relation(question: str) -> Relation:
    """The relation the question asks for (``other`` when none is marked)."""
    q = _fold(question)
    if _DEADLINE_Q.search(q):
        return "deadline"
    if _DEFINITION_Q.search(q):
        return "definition"
    if _AMOUNT_Q.search(q):
        return "amount"
    if _PENALTY_Q.search(q):
        return "penalty"
    if _SCOPE_Q.search(q):
        return "scope"
    if _WHO_Q.search(q):
        return "who"
    if _WHEN_Q.search(q):
        return "when"
    return "other"


def without_relation_words(question: str) -> str:
    """The question without the words that only name the relation (folded)."""
    return _RELATION_WORDS.sub(" ", _fold(question))


def states_relation(relation: Relation, text: str) -> bool:
    """Whether ``text`` states the kind of thing ``relation`` asks for."""
    t = _fold(text)
    if relation == "definition":
        return bool(_DEFINES.search(t))
    if relation == "deadline":
        return bool(_SPAN.search(t))
    if relation == "who":
        return bool(_WHO.search(t))
    if relation == "when":
        return bool(_WHEN.search(t) or _SPAN.search(t))
    if relation == "amount":
        return bool(_AMOUNT.search(t))
    if relation == "penalty":
        return bool(_PENALTY.search(t))
    if relation == "scope":
        return bool(_SCOPE.search(t))
    return True


# A citizen's word (folded stem prefix) → the words the law's text uses for it.
_LEGAL_TERMS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(rf"\b{pattern}"), words)
    for pattern, words in (
        (r"recorr\w*", "recurso interpor"),
        (r"interp(?:or|osto|oe)\w*", "interposição"),
        (r"(?:negad|negou|negar)\w*", "indeferimento negativa"),
        (r"desist\w*", "desistir arrependimento"),
        (r"reclam\w*", "reclamar reclamação"),
        (r"(?:puni|castig)\w*", "sanções penalidade"),
        (r"multa\w*", "multa sanções administrativas"),
        (r"internet|online|on-line|site\b|aplicativo", "fora do estabelecimento comercial"),
        (r"loja\w*", "estabelecimento comercial"),
        (r"compr(?:a|as|ar|ei|ou)\b", "contrato fornecimento"),
        (r"(?:cobrad|cobranc)\w*", "cobrança indevida"),
        (r"demor\w*|atras\w*", "prazo"),
        (r"(?:apag|delet|exclu)\w*", "eliminação"),
        (r"vaz(?:ou|amento)\w*", "incidente de segurança"),
        (r"(?:gratis|gratuit)\w*", "gratuito"),
        (r"troc(?:a|ar|as)\b", "substituição"),
        (r"consert\w*", "sanado reparo"),
        (r"motiv(?:o|os|ar)\b", "motivos"),
        (r"empresa estatal|estatais", "empresa pública sociedade de economia mista"),
        (r"(?:comeca|começa|entra) a vigorar|entra em vigor", "vigor vigorar"),
        (r"sigil\w*|secret\w*", "sigilo classificação"),
    )
)


def legal_terms(question: str) -> str:
    """Words the law uses for the question's everyday words ("" when none applies)."""
    q = _fold(question)
    extra: list[str] = []
    for pattern, words in _LEGAL_TERMS:
        if pattern.search(q) and words not in extra:
            extra.append(words)
    return " ".join(extra)
