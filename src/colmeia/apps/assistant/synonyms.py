"""The law's words for a lay question's words, from a public wordnet's synsets.

A lay question and the article that answers it often share no word: "o que prometeu no
*anúncio*" for the CDC's *publicidade*, "*volta* do dinheiro" for *restituição*. The Open
WordNet for Portuguese (OpenWordNet-PT) groups words that share a sense into synsets
("propaganda", "publicidade", "anúncio"); the synsets holding a word of the shipped laws are
shipped as ``data/ownpt_synonyms.tsv`` (built by ``data/lexicon/build_synonyms.py``,
attribution and licence in ``data/lexicon/README.md``).

A word has many senses ("anúncio" is also a *proclamação*, an *edital*, an *aviso*), and the
question does not say which: each synonym is weighed by the share of the word's synsets that
hold it, and only those the collection uses and the question lacks are given, the best few.
They are searched as a list of their own, fused at a low weight beside the question's own
(:class:`~colmeia.apps.assistant.rag_agent.RagPipeline`): they add candidates, never replace
the question's words.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Mapping, Sequence
from importlib import resources

from colmeia.apps.assistant.relations import content_terms
from colmeia.rag.index.lexical import fold_accents

__all__ = ["Synonyms"]

_FILE = "ownpt_synonyms.tsv"

# Words whose senses are too many and too thin for a synonym to mean anything: light and modal
# verbs ("poder", "dever", "fazer", "dar") and a question's frame ("coisa", "pessoa", "parte").
_VAGUE = frozenset(
    content_terms(
        "poder dever fazer dar ter ser estar ficar haver ir vir ver querer saber precisar "
        "levar deixar achar coisa pessoa parte vez caso tipo forma jeito lei artigo pra pro"
    )
)


class Synonyms:
    """A word's stem → the words that share one of its senses, each with its share."""

    def __init__(self, synsets: Iterable[Sequence[str]]) -> None:
        # Stemming every word cost a new process (one CLI turn) 1.6 s at load 12: a word is
        # stemmed when a question first uses a word beginning as it does (a stem begins as
        # its word does, folded), a synset's words when a question first reaches it.
        self._words: list[list[str]] = [list(words) for words in synsets]
        self._starting: dict[str, list[tuple[int, str]]] = {}
        # (0.3 s at load 12 this way)
        folded = fold_accents("\n".join("\t".join(w) for w in self._words).lower()).split("\n")
        for index, (words, line) in enumerate(zip(self._words, folded, strict=True)):
            for word, bare in zip(words, line.split("\t"), strict=True):
                for key in {bare[:2], bare[:3]}:
                    self._starting.setdefault(key, []).append((index, word))
        self._stems: dict[str, list[str]] = {}
        self._members: dict[int, list[tuple[str, str]]] = {}
        self._senses: dict[str, list[int]] = {}

    def _terms(self, word: str) -> list[str]:
        found = self._stems.get(word)
        if found is None:
            found = self._stems[word] = content_terms(word)
        return found

    def _synset(self, index: int) -> list[tuple[str, str]]:
        """(word, stem) of a synset's one-word lemmas, one word a stem (none if fewer than 2)."""
        found = self._members.get(index)
        if found is None:
            found = []
            for word in self._words[index]:
                terms = self._terms(word)
                if len(terms) == 1 and all(t != terms[0] for _, t in found):
                    found.append((word, terms[0]))
            if len(found) < 2:
                found = []
            self._members[index] = found
        return found

    def _of(self, stem: str) -> list[int]:
        """The synsets holding a word with this stem."""
        found = self._senses.get(stem)
        if found is None:
            found = sorted(
                {
                    index
                    for index, word in self._starting.get(stem[:3], [])
                    if self._terms(word) == [stem] and self._synset(index)
                }
            )
            self._senses[stem] = found
        return found

    @classmethod
    @functools.cache
    def shipped(cls) -> Synonyms:
        """The synsets shipped in package data."""
        text = (
            resources.files("colmeia.apps.assistant")
            .joinpath("data", _FILE)
            .read_text(encoding="utf-8")
        )
        return cls(line.split("\t") for line in text.splitlines() if line and line[0] != "#")

    def related(
        self,
        text: str,
        vocabulary: Collection[str] | Mapping[str, int],
        limit: int = 4,
        share: float = 0.0,
        rare: int | None = None,
    ) -> list[str]:
        """Up to ``limit`` words sharing a sense with ``text``'s words that the collection uses
        (stems in ``vocabulary``) and ``text`` does not, best share first (a word's share: the
        part of its synsets that hold the synonym; at least ``share``), then in the order of
        ``text``'s words."""
        have = content_terms(text)
        seen = set(have)
        scored: dict[str, tuple[float, int, str]] = {}
        for position, stem in enumerate(have):
            if stem in _VAGUE:
                continue
            # a word the law uses often is the law's word already; a rare one is the asker's
            if (
                rare is not None
                and isinstance(vocabulary, Mapping)
                and vocabulary.get(stem, 0) > rare
            ):
                continue
            senses = self._of(stem)
            for index in senses:
                for word, other in self._synset(index):
                    if other in seen or other not in vocabulary:
                        continue
                    weight, first, _ = scored.get(other, (0.0, position, word))
                    scored[other] = (weight + 1.0 / len(senses), first, word)
        best = sorted((v for v in scored.values() if v[0] >= share), key=lambda v: (-v[0], v[1]))
        return [word for _, _, word in best[:limit]]
