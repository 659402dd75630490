"""Where a collection defines its terms ("Fornecedor é toda pessoa…", "considera-se X"), and
how rare each word is in it.

"O que é fornecedor?" is a common question about laws, and BM25 ranks the definition badly:
the word appears in hundreds of dispositivos, the definition is one of them. This index maps
each defined term (stemmed) to the passages that define it, found once per collection
generation with a few patterns of legislative drafting (LC 95/1998 style):

* ``X é …`` / ``X são …`` at the start of a dispositivo;
* ``considera-se X …`` / ``entende-se por X …``;
* ``X: …`` items of a "Para os fins desta Lei, considera-se:" list (incisos).

The same pass counts in how many passages each (stemmed) word occurs, so relevance grading can
weigh a rare word ("desistir") above a common one ("prazo").
"""

from __future__ import annotations

import math
import re

import orjson

from colmeia.apps.assistant.collection_cache import PerCollection, Saved
from colmeia.apps.assistant.relations import content_terms
from colmeia.rag.index.lexical import Analyzer
from colmeia.store.base import Store

__all__ = ["SAVED", "DefinitionIndex"]

_analyzer = Analyzer()
# Matched on the lower-cased text with its accents: folded, "é" (is) and "e" (and) look alike.
_STARTS = re.compile(
    r"^\W*(?:o |a |os |as )?([a-zà-ú][a-zà-ú\- ]{2,40}?)\s+(?:é|são)\s+"
    r"(?:o|a|os|as|um|uma|toda|todo|todos|todas|aquel\w*)\b"
)
_CONSIDERA = re.compile(
    r"(?:considera-se|consideram-se|entende-se por|entendem-se por)\s+"
    r"([a-zà-ú][a-zà-ú\- ]{2,40}?)[\s,:]"
)
# "São direitos básicos do consumidor:" — a list that says what X are.
_ARE = re.compile(r"^\W*s[ãa]o\s+([a-zà-ú][a-zà-ú\- ]{2,50}?)\s*:")
_ITEM = re.compile(r"^\W*(?:[ivxlcdm]+\s*[-–]\s*)?([a-zà-ú][a-zà-ú\- ]{2,40}?)\s*:\s")


# A norm's vigência clause: "Esta Lei entra em vigor…", "Este Decreto-Lei entrará em vigor…",
# "Esta Lei Complementar entra em vigor no prazo de…".
_IN_FORCE = re.compile(
    r"\b(?:esta|este)\s+(?:lei|decreto|decreto-lei|lei complementar|c[óo]digo|estatuto|resolu[çc][ãa]o|"
    r"medida provis[óo]ria|regimento|portaria|instru[çc][ãa]o normativa)\b[^.]{0,40}?"
    r"\b(?:entra|entrar[áa]|come[çc]a|come[çc]ar[áa])\s+(?:em\s+vigor|a\s+vigorar)",
    re.IGNORECASE,
)
# A clause on when laws in general begin to hold, not one norm's own: "a lei começa a vigorar…
# depois de oficialmente publicada" (LINDB), "A vigência da lei será indicada…" (LC 95). "a lei"
# followed by a number or "complementar" is one norm ("a vigência da Lei nº 9.311"), and one
# followed by "que" is a kind of law ("A lei que alterar o processo eleitoral entrará em vigor…"),
# not laws in general; how long a law holds ("terá vigor até…") is not when it begins.
_ONE_LAW = r"(?!\s*(?:n[º°o.]|complementar\b|\d|que\b))"
_GENERAL_IN_FORCE = re.compile(
    rf"\ba\s+lei\b{_ONE_LAW}[^.;]{{0,40}}?\b(?:come[çc]a\s+a\s+vigorar|(?:entra|entrar[áa]?)"
    rf"\s+em\s+vigor)|\bentrar\s+a\s+lei\s+em\s+vigor|\bvig[êe]ncia\s+da\s+lei\b{_ONE_LAW}",
    re.IGNORECASE,
)

# A norm's scope clause: "Esta Lei aplica-se…", "Esta Lei não se aplica…", "Subordinam-se ao
# regime desta Lei", "Aplicam-se as disposições desta Lei…", "O disposto nesta Lei não se
# aplica…": the answer to "a quem se aplica a lei?", whatever words the question uses.
_VERB = (
    r"(?:aplica-se|aplicam-se|n[ãa]o se aplicam?|se aplicam?|subordinam-se|sujeitam-se|submetem-se)"
)
_THIS_NORM = r"(?:esta|desta|nesta|este|deste|neste)\s+(?:lei|c[óo]digo|decreto)"
_SCOPE = re.compile(
    rf"\b{_VERB}\b[^.;]{{0,80}}?\b{_THIS_NORM}|\b{_THIS_NORM}\b[^.;]{{0,40}}?\b{_VERB}",
    re.IGNORECASE,
)


def _own_clause(text: str) -> bool:
    """Whether ``text`` states its norm's vigência clause — not quotes one as a formula to use
    (LC 95 Art. 8 § 2: "deverão utilizar a cláusula “esta lei entra em vigor após decorridos…”").
    """
    m = _IN_FORCE.search(text)
    if m is None:
        return False
    before = text[: m.start()]
    quoted = before.count("“") > before.count("”") or before.count('"') % 2 == 1
    return not quoted


def _key(term: str) -> str:
    return " ".join(content_terms(term))


class DefinitionIndex:
    """Defined term (stemmed words) → chunk ids of the passages defining it."""

    def __init__(
        self,
        terms: dict[str, list[str]],
        df: dict[str, int] | None = None,
        passages: int = 0,
        in_force: dict[str, list[str]] | None = None,
        scope: dict[str, list[str]] | None = None,
        general_in_force: list[str] | None = None,
    ) -> None:
        self.terms = terms
        self.df = df or {}
        self.passages = passages
        # the norm's own vigência clause ("Esta Lei entra em vigor…"), chunk ids per path
        # prefix (the norm's name as its passages cite it)
        self.in_force = in_force or {}
        # the norm's scope clauses ("Esta Lei aplica-se…", "Subordinam-se ao regime desta
        # Lei"), chunk ids per path prefix
        self.scope = scope or {}
        # the clauses on when laws in general take effect (_GENERAL_IN_FORCE), in corpus order
        self.general_in_force = general_in_force or []

    @classmethod
    def build(cls, store: Store, collection: str) -> DefinitionIndex:
        terms: dict[str, list[str]] = {}
        df: dict[str, int] = {}
        in_force: dict[str, list[str]] = {}
        scope: dict[str, list[str]] = {}
        general: list[str] = []
        chunks = store.chunks(collection)
        for chunk in chunks:
            norm = chunk.path.split(",")[0].strip()
            if _own_clause(chunk.text[:400]):
                in_force.setdefault(norm, []).append(chunk.chunk_id)
            elif _GENERAL_IN_FORCE.search(chunk.text[:400]):
                general.append(chunk.chunk_id)
            if _SCOPE.search(chunk.text[:400]):
                scope.setdefault(norm, []).append(chunk.chunk_id)
            for word in set(content_terms(f"{chunk.path} {chunk.text}")):
                df[word] = df.get(word, 0) + 1
            text = chunk.text[:300].lower()
            for pattern in (_STARTS, _CONSIDERA, _ARE, _ITEM):
                m = pattern.search(text)
                if m:
                    key = _key(m.group(1))
                    if key:
                        terms.setdefault(key, []).append(chunk.chunk_id)
        return cls(terms, df, len(chunks), in_force, scope, general)

    def idf(self, word: str) -> float:
        """How rare a stemmed word is; a word the collection never uses weighs the most."""
        n = self.df.get(word, 0)
        return math.log(1.0 + (self.passages + 1) / (n + 0.5))

    @classmethod
    def for_collection(cls, store: Store, collection: str) -> DefinitionIndex:
        """The index of ``collection``, rebuilt when the collection changed."""
        return _INDEXES.get(store, collection)

    def lookup(self, term: str) -> list[str]:
        """Chunk ids defining ``term``: the longest defined phrase its words start with."""
        words = _key(term).split()
        for n in range(min(len(words), 4), 0, -1):
            key = " ".join(words[:n])
            found = self.terms.get(key, [])
            if not found and n >= 2:  # the question may stop short of the defined phrase
                found = [c for k, ids in self.terms.items() if k.startswith(key + " ") for c in ids]
            if found:
                return list(found)[:5]
        return []

    def lookup_within(self, question: str) -> dict[str, float]:
        """Passages defining a term all of whose words the question uses, in any order or
        inflection ("quais dados pessoais são considerados sensíveis" uses every word of "dado
        pessoal sensível"), each with a weight: 1 for the longest such term and for terms one
        word shorter, less for shorter ones (their share of its length). {} when the question
        uses no defined term.

        Shorter terms are kept: "serviço público adequado na concessão" uses both "concessão de
        serviço público" and "serviço adequado", and the ranking that follows tells which
        definition the question is about; a one-word term inside a three-word one weighs less
        ("direitos básicos do consumidor" is about those rights, not about who a consumer is), and
        so does a term whose words all belong to a longer term the question uses ("dado pessoal"
        inside "dado pessoal sensível")."""
        words = set(content_terms(question))
        found = [
            (frozenset(key.split()), ids)
            for key, ids in self.terms.items()
            if key and set(key.split()) <= words
        ]
        if not found:
            return {}
        longest = max(len(k) for k, _ in found)
        weights: dict[str, float] = {}
        for key, ids in sorted(found, key=lambda x: -len(x[0])):
            n = len(key)
            weight = 1.0 if n >= longest - 1 else n / longest
            # a term the question uses only inside a longer defined one ("dado pessoal" in
            # "dado pessoal sensível") is that longer term's part, not what is asked
            wider = [len(k) for k, _ in found if key < k]
            if wider:
                weight = min(weight, n / max(wider))
            for i in ids[:5]:
                weights.setdefault(i, weight)
        return weights


def _dump(index: DefinitionIndex) -> bytes:
    return orjson.dumps(
        {
            "terms": index.terms,
            "df": index.df,
            "passages": index.passages,
            "in_force": index.in_force,
            "scope": index.scope,
            "general_in_force": index.general_in_force,
        }
    )


def _load(data: bytes) -> DefinitionIndex:
    d = orjson.loads(data)
    return DefinitionIndex(
        d["terms"], d["df"], d["passages"], d["in_force"], d["scope"], d["general_in_force"]
    )


# kept on disk: a new process (one CLI turn) reads it in milliseconds instead of building it
SAVED = Saved(
    "definitions",
    _dump,
    _load,
    (__name__, "colmeia.apps.assistant.relations", "colmeia.rag.index.lexical"),
)
_INDEXES: PerCollection[DefinitionIndex] = PerCollection(
    DefinitionIndex.build, lambda: DefinitionIndex({}), saved=SAVED
)
