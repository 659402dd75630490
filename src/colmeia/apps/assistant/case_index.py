"""A BM25 ranking of cases over everything that describes them, as people type it.

One document per case: its subject, audited body (``unidade jurisdicionada``), technical
unit, class, rapporteur and parties. Words are lower-cased, accent-folded ("Marabá" and
"maraba" are one word) and reduced to their Portuguese stem ("aposentadorias" finds
"aposentadoria"). The person's filler ("não sei o número mas é sobre…") is dropped before
ranking: Portuguese stop words and the words people wrap a description in (:data:`FILLER`).
Every case that holds a word of the query is ranked — no cut of common words, no row limit —
so a three-word description is decided by its rarest word, not lost to its most common one.

This module knows nothing of the registry's storage: :class:`CaseIndex` takes ``(key, text)``
pairs, and the registries build it from their rows.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import Stemmer

from colmeia.apps.assistant.scope import one_slip

__all__ = ["FILLER", "CaseIndex", "Hit", "fold", "query_terms", "query_words", "tokens"]

#: words a person wraps a description in, that say nothing about which case it is
FILLER = frozenset(
    [
        "processo",
        "processos",
        "caso",
        "casos",
        "expediente",
        "expedientes",
        "numero",
        "numeros",
        "n",
        "nº",
        "tc",
        "exp",
        "sei",
        "nao",
        "sim",
        "saber",
        "quero",
        "queria",
        "gostaria",
        "preciso",
        "precisava",
        "pode",
        "poderia",
        "podia",
        "consegue",
        "ajudar",
        "ajuda",
        "favor",
        "obrigado",
        "obrigada",
        "oi",
        "ola",
        "bom",
        "dia",
        "tarde",
        "noite",
        "tem",
        "tinha",
        "ter",
        "ha",
        "existe",
        "existia",
        "algum",
        "alguma",
        "alguns",
        "algumas",
        "acho",
        "parece",
        "lembro",
        "lembrar",
        "parte",
        "partes",
        "nele",
        "nela",
        "dele",
        "dela",
        "deles",
        "delas",
        "situacao",
        "andamento",
        "status",
        "sobre",
        "acerca",
        "respeito",
        "referente",
        "relativo",
        "mas",
        "porem",
        "entao",
        "ai",
        "la",
        "aqui",
        "isso",
        "esse",
        "essa",
        "este",
        "esta",
        "aquele",
        "aquela",
        "coisa",
        "negocio",
        "tal",
        "tipo",
        "meu",
        "minha",
        "meus",
        "minhas",
        "nosso",
        "nossa",
        "voce",
        "voces",
        "vc",
        "tribunal",
        "encontrar",
        "achar",
        "procurar",
        "procuro",
        "busco",
        "buscar",
        "falar",
        "fala",
        "diz",
        "dizer",
        "sabe",
        "qual",
        "quais",
        "quem",
        "onde",
        "quando",
        "como",
        "ta",
        "tá",
        "esta",
        "estao",
        "foi",
        "sao",
        "e",
        "o",
        "a",
        "os",
        "as",
        "um",
        "uma",
        # colloquial wrappers: "tem uns processos de … aí, né? quais são"
        "uns",
        "umas",
        "ne",
        "vcs",
        "mostra",
        "mostrar",
        "ver",
        "ve",
        "de",
        "do",
        "da",
        # "pra"/"pro" (para o), as typed: a preposition, never a case's word
        "pra",
        "pro",
        "pras",
        "pros",
    ]
)
# what is asked of a case's state, not what describes it ("o processo da prefeitura de X já foi
# julgado?"): the registry's index holds no status, and these words only pull in the few
# subjects that happen to use them. Matched as typed (folded), not by stem: "arquivado" and
# "Arquivo Público", an audited body, share one.
ASKED_STATE = frozenset(
    [
        "julgado",
        "julgada",
        "julgados",
        "julgamento",
        "julgou",
        "arquivado",
        "arquivada",
        "arquivamento",
        "parado",
        "parada",
        "tramitacao",
        "tramitando",
        "movimentacao",
        "movimentacoes",
        "decidido",
        "decidida",
        "encerrado",
        "encerrada",
        "concluido",
        "concluida",
    ]
)
_WORD = re.compile(r"[a-z0-9]+")
_STEMMER = Stemmer.Stemmer("portuguese")


def fold(text: str) -> str:
    """``text`` lower-cased without accents ("Ananindeua", "SÃO JOÃO" → "sao joao")."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@lru_cache(maxsize=1)
def _stop() -> frozenset[str]:
    # bm25s (numpy, scipy) is imported when a description is ranked, not by every turn
    from bm25s.stopwords import STOPWORDS_PORTUGUESE

    return frozenset(fold(w) for w in STOPWORDS_PORTUGUESE)


def tokens(text: str) -> list[str]:
    """The stems a text is indexed under: folded words, stop words dropped, stemmed."""
    words = [w for w in _WORD.findall(fold(text)) if w not in _stop()]
    return list(_STEMMER.stemWords(words))


@lru_cache(maxsize=1)
def _filler_stems() -> frozenset[str]:
    # the filler by its stem too: "falam", "falando" are "fala" said otherwise
    return frozenset(_STEMMER.stemWords(sorted(FILLER)))


@lru_cache(maxsize=1)
def _long_filler() -> tuple[str, ...]:
    return tuple(sorted(w for w in FILLER if len(w) >= _SLIP_LENGTH))


# a filler word typed with a slip ("processsos", "expedinete") is filler still; short words are
# read as typed (one slip from a short filler word is often a real word: "parte" / "porte")
_SLIP_LENGTH = 6


def _slipped_filler(word: str) -> bool:
    return len(word) >= _SLIP_LENGTH - 1 and any(one_slip(word, f) for f in _long_filler())


def query_terms(text: str) -> list[str]:
    """The stems of a person's description worth ranking by: :func:`tokens` without the
    filler (:data:`FILLER`, as typed or in another form of the same stem) and without numbers
    (a number is a case reference, read apart), each once, in order."""
    return list(dict.fromkeys(stem for _, stem in _kept(text)))


def query_words(text: str) -> str:
    """The words of a description that :func:`query_terms` ranks by, as typed (folded): what
    a search says it looked for ("transporte acompanhar", not the whole sentence)."""
    return " ".join(dict.fromkeys(word for word, _ in _kept(text)))


def _kept(text: str) -> list[tuple[str, str]]:
    words = [
        w
        for w in _WORD.findall(fold(text))
        if w not in _stop()
        and w not in FILLER
        and w not in ASKED_STATE
        and not _slipped_filler(w)
        and not w.isdigit()
        and len(w) > 1
    ]
    stems = _STEMMER.stemWords(words)
    return [(w, s) for w, s in zip(words, stems, strict=True) if s not in _filler_stems()]


@dataclass(frozen=True, slots=True)
class Hit:
    """One ranked case: its key, its BM25 score, how many query terms it holds, whether it
    holds them all in a row (a party's or a body's whole name, as typed), and how many of the
    query's terms any case holds (``known``: a word no case uses cannot tell cases apart)."""

    key: str
    score: float
    matched: int
    phrase: bool = False
    known: int = 0


class CaseIndex:
    """BM25 over ``(key, text)`` documents; :meth:`rank` scores every document at once."""

    def __init__(self, documents: Iterable[tuple[str, str]]) -> None:
        self.keys: list[str] = []
        #: each case's description as written (what a reading by meaning compares)
        self.texts: dict[str, str] = {}
        self._terms: list[frozenset[str]] = []
        corpus: list[list[str]] = []
        for key, text in documents:
            toks = tokens(text)
            self.keys.append(key)
            self.texts[key] = text
            self._terms.append(frozenset(toks))
            corpus.append(toks or [""])
        self._corpus = corpus
        self._vocabulary: frozenset[str] = frozenset().union(*self._terms)
        import bm25s

        self._bm25 = bm25s.BM25()
        if corpus:
            self._bm25.index(corpus, show_progress=False)

    def __len__(self) -> int:
        return len(self.keys)

    def rank(self, text: str) -> list[Hit]:
        """Every document holding a term of ``text`` (filler dropped), best first: most
        query terms held, then all of them in a row, then BM25 score, then key."""
        terms = query_terms(text)
        if not terms or not self.keys:
            return []
        scores = self._bm25.get_scores(terms)
        known = sum(1 for t in terms if t in self._vocabulary)
        hits = []
        for i, score in enumerate(scores):
            if score > 0:
                matched = sum(1 for t in terms if t in self._terms[i])
                phrase = (
                    len(terms) > 1 and matched == len(terms) and _in_a_row(terms, self._corpus[i])
                )
                hits.append(Hit(self.keys[i], float(score), matched, phrase, known))
        # coordination first: a case holding more of the words (then all of them in a row)
        # ranks above one holding fewer, whatever their weights; BM25 orders the rest
        hits.sort(key=lambda h: (-h.matched, not h.phrase, -h.score, h.key))
        return hits


def _in_a_row(terms: list[str], doc: list[str]) -> bool:
    n = len(terms)
    return any(doc[i : i + n] == terms for i in range(len(doc) - n + 1))
