"""Lex specialis in the ranking: a dispositivo limited to some bodies gives way to the general
rule when the question names none of them.

LAI Art. 16 ("Negado o acesso a informação pelos órgãos ou entidades do Poder Executivo
Federal, o requerente poderá recorrer à CGU") repeats a lay question's words better than the
general rule it narrows (Art. 15: "No caso de indeferimento de acesso… poderá o interessado
interpor recurso… no prazo de 10 dias"), so it ranked first for "se negarem meu pedido, posso
recorrer?" asked of a municipality. The special rule answers only when the question is about
the bodies it names; otherwise the general one does. The restriction read here is the one the
shipped federal laws write: the federal executive, the federal public administration, the
Union's sphere.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["limited_to_some_bodies", "names_a_body"]

_RESTRICTED = re.compile(
    r"\b(?:pel[oa]s?|d[oa]s?|n[oa]s?|em|no ambito d[oa])\s+"
    r"(?:(?:orgaos?|entidades?)(?: (?:ou|e) (?:orgaos?|entidades?))? d[oa] )?"
    r"(?:poder executivo federal|administracao publica federal|ambito da uniao)\b"
)
# Words by which a question places itself among those bodies.
_BODY = re.compile(
    r"\b(?:federa(?:l|is)|uniao|executivo|ministerios?|cgu|controladoria|governo federal)\b"
)


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def limited_to_some_bodies(text: str) -> bool:
    """Whether the dispositivo applies only within the federal executive / administration."""
    return bool(_RESTRICTED.search(_fold(text)))


def names_a_body(question: str) -> bool:
    """Whether the question places itself within the federal sphere the restriction names."""
    return bool(_BODY.search(_fold(question)))
