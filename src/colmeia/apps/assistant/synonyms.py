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
        self._synsets: list[list[tuple[str, str]]] = []
        self._of: dict[str, list[int]] = {}
        for words in synsets:
            members: list[tuple[str, str]] = []
            for word in words:
                terms = content_terms(word)
                if len(terms) == 1 and all(t != terms[0] for _, t in members):
                    members.append((word, terms[0]))
            if len(members) < 2:
                continue
            index = len(self._synsets)
            self._synsets.append(members)
            for _, stem in members:
                self._of.setdefault(stem, []).append(index)

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
            senses = self._of.get(stem, [])
            for index in senses:
                for word, other in self._synsets[index]:
                    if other in seen or other not in vocabulary:
                        continue
                    weight, first, _ = scored.get(other, (0.0, position, word))
                    scored[other] = (weight + 1.0 / len(senses), first, word)
        best = sorted((v for v in scored.values() if v[0] >= share), key=lambda v: (-v[0], v[1]))
        return [word for _, _, word in best[:limit]]
