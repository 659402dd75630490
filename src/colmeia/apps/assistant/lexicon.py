"""The verb a person uses and the noun the law uses for the same act, and back.

A lay question says what people do — "posso *devolver*…", "o governo pode *intervir*…", "a
concessão *acaba*…" —; the law names the act — "devolução", "intervenção", "extinção". The
stemmer joins "alterar" and "alteração" but not "intervir" and "intervenção". This module
reads NomLex-PT, the verb ↔ noun nominalizations of the Open WordNet for Portuguese (CC BY 4.0,
shipped as ``data/nomlex_pt.tsv``, built by ``data/lexicon/build_nomlex.py``; only the pairs
the stemmer does not already join), and gives, for a question's verbs, the nouns that name their
acts — kept only when the collection uses that word, so a search is never sent words no
passage has.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterable
from importlib import resources

from colmeia.apps.assistant.relations import content_terms
from colmeia.rag.index.lexical import fold_accents

__all__ = ["Nominalizations"]

_FILE = "nomlex_pt.tsv"


# Light and modal verbs say how, not what: "posso", "deve", "tem que", "dar", "fazer", "ver"
# carry no act the law would name ("dever" → "dívida", "ver" → "vista" would only mislead).
_LIGHT = frozenset(
    [
        "dar",
        "dever",
        "estar",
        "fazer",
        "ficar",
        "haver",
        "ir",
        "poder",
        "querer",
        "saber",
        "ser",
        "ter",
        "ver",
        "vir",
        "usar",
        "precisar",
        "passar",
        "levar",
        "deixar",
        "achar",
    ]
)


# The verb forms read as the verb: the infinitive ("posso revogar", "pode intervir"), with an
# object pronoun ("descumpri-la"), the past ("prometeu", "decidiu", "cobraram") and the
# gerund. Not the present ("cobra", "conta", "forma") nor the participle ("adquirido"): they
# read like nouns and adjectives ("a conta", "direito adquirido").
_MIN_VERB = 5
_ENDINGS = ("ou", "ei", "eu", "iu", "aram", "eram", "iram", "ando", "endo", "indo")


def _forms(verb: str) -> set[str]:
    stem = verb[:-2]
    return {verb, *(stem + e for e in _ENDINGS)}


class Nominalizations:
    """A verb's forms → the nouns that name its act (the law's words for what people do)."""

    def __init__(self, pairs: Iterable[tuple[str, str]]) -> None:
        # One way only, verb → noun: a lay question says what people do, the law names the
        # act; a noun's verb ("produto" → "produzir") is rarely the law's word.
        self._pairs: dict[str, list[tuple[str, str]]] = {}
        for verb, noun in pairs:
            v = fold_accents(verb.lower())
            # a short verb's forms are other words ("ler": "lei", "leu")
            if len(v) < _MIN_VERB or v in _LIGHT or not v.endswith(("ar", "er", "ir", "or")):
                continue
            for form in _forms(v):
                self._pairs.setdefault(form, []).append((v, noun))
        # Stemming every pair took a new process (one CLI turn) ~0.03 s: a form's nouns are
        # stemmed when a text first uses it.
        self._nouns: dict[str, list[tuple[str, str]]] = {}

    def _nouns_of(self, form: str) -> list[tuple[str, str]]:
        """(noun, its stem) for a verb form: one-word nouns the stemmer does not join already."""
        found = self._nouns.get(form)
        if found is None:
            found = []
            for v, noun in self._pairs.get(form, []):
                n = content_terms(noun)
                if len(n) == 1 and content_terms(v) != n:
                    found.append((noun, n[0]))
            self._nouns[form] = found
        return found

    @classmethod
    @functools.cache
    def shipped(cls) -> Nominalizations:
        """The pairs shipped in package data."""
        text = (
            resources.files("colmeia.apps.assistant")
            .joinpath("data", _FILE)
            .read_text(encoding="utf-8")
        )
        rows = (line.split("\t") for line in text.splitlines() if line and line[0] != "#")
        return cls((r[0], r[1]) for r in rows if len(r) == 2)

    def related(self, text: str, vocabulary: Collection[str]) -> list[str]:
        """The nouns of ``text``'s verbs that the collection uses (stems in ``vocabulary``)
        and ``text`` does not already use, in the order of ``text``'s words."""
        have = set(content_terms(text))
        out: list[str] = []
        for word in re.findall(r"[a-z]+(?:-[a-z]+)?", fold_accents(text.lower())):
            # "descumpri-la": the infinitive loses its r before the pronoun
            verb = f"{word.split('-')[0]}r" if "-" in word else word
            for noun, stem in self._nouns_of(verb):
                if stem in vocabulary and stem not in have:
                    have.add(stem)
                    out.append(noun)
        return out
