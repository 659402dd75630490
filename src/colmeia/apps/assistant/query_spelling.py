"""A question's typing slips mended against the words the collection and its questions use.

"quanto tempo eu tenho pra recorer?": the search stems "recorer" to a term no passage holds, and
the law's noun for the verb ("recorrer" → "recurso") is never looked up; the question loses the
one word that said what it asks. A word of the question that neither the collection's passages,
the questions shipped with them, nor the language (pyspellchecker's Portuguese word list,
:func:`colmeia.rag.ingest.wordlist.word_frequencies`) knows, and that is one slip (a letter left
out, added or changed, two neighbours swapped) from a word of the collection, is read as that
word — the commonest when several are, and none when a word the collection lacks is as likely
("reltor": "relator" or "reator"?). Short words stay as typed (among them one slip turns many
real words into others), and so does a word that differs from a known one only in its last
letter: another form of it, not a slip. Without the word list, a word the collection does not
hold might be a word of the language: the question stays as typed.

The candidates are the word's own one-slip forms looked up among the known words (a few
hundred dictionary lookups, only for a word the collection lacks); the collection's words are
counted once per collection generation and kept on disk beside its other indexes.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterable

import orjson

from colmeia.apps.assistant.collection_cache import PerCollection, Saved
from colmeia.apps.assistant.intents import classifier, differs_in_ending
from colmeia.rag.expansion import packaged_questions
from colmeia.rag.index.lexical import fold_accents
from colmeia.store.base import Store

__all__ = ["MIN_MENDED", "Spelling", "spelling_for"]

# the shortest word mended (and the shortest known word a slip is read as)
MIN_MENDED = 6
_WORD = re.compile(r"[^\W\d_]+")


_LETTERS = "abcdefghijklmnopqrstuvwxyz"
# how many times commoner in the language the word read must be than the next candidate
_CLEAR = 2


def _one_slip_forms(word: str) -> set[str]:
    """Every form of ``word`` one slip away: a letter left out, added or changed, or two
    neighbours swapped (a few hundred, each a dictionary lookup)."""
    cuts = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = {a + b[1:] for a, b in cuts if b}
    out |= {a + b[1] + b[0] + b[2:] for a, b in cuts if len(b) > 1}
    out |= {a + c + b[1:] for a, b in cuts if b for c in _LETTERS}
    out |= {a + c + b for a, b in cuts for c in _LETTERS}
    out.discard(word)
    return out


def _language_words(words: Iterable[str]) -> dict[str, int] | None:
    # imported on first use: the ingest package costs an offline CLI turn ~0.06 s, and only a
    # question holding a word its collection lacks asks the list
    from colmeia.rag.ingest.wordlist import word_frequencies, word_list_available

    return word_frequencies(words) if word_list_available() else None


class Spelling:
    """The words a collection (and the questions shipped with it) uses, with their counts;
    ``language`` tells which of some words the language has, with their frequencies (``None``
    without a word list), asked only when a question holds a word the collection does not."""

    def __init__(
        self,
        counts: dict[str, int],
        language: Callable[[Iterable[str]], dict[str, int] | None] = _language_words,
    ) -> None:
        self.counts = counts
        self._language = language

    @classmethod
    def of(cls, texts: Iterable[str]) -> Spelling:
        counts: Counter[str] = Counter()
        for text in texts:
            counts.update(_WORD.findall(fold_accents(text)))
        return cls(dict(counts))

    def mended_word(self, word: str) -> str | None:
        """The collection's word ``word`` was meant to be, or ``None``: a word the collection
        or the language knows ("relator", "almoçar" are words, not slips of "reator" and
        "alocar"), a short word, or a slip that no word of the collection explains better
        than a word it lacks ("reltor" is "relator" as much as "reator")."""
        folded = fold_accents(word)
        if len(folded) < MIN_MENDED or folded in self.counts:
            return None
        candidates = [
            w
            for w in _one_slip_forms(folded)
            if len(w) >= MIN_MENDED - 1 and not differs_in_ending(folded, w)
        ]
        language = self._language([folded, *candidates])
        if language is None or folded in language:
            return None  # no word list to tell a slip from a word; or a word it holds
        forms = [w for w in candidates if w in self.counts or w in language]
        ranked = sorted(forms, key=lambda w: (language.get(w, 0), self.counts.get(w, 0), w))
        if not ranked or ranked[-1] not in self.counts:
            return None  # no slip of a word the collection holds: nothing the search gains
        best = ranked[-1]
        if len(ranked) > 1 and language.get(ranked[-2], 0) * _CLEAR > language.get(best, 0):
            # "reltor": "relator" or "reator"? anyone's guess; the question stays as typed
            return None
        return best

    def mend(self, text: str) -> str:
        """``text`` with each slip written as the word it was meant to be; the rest as typed."""

        def fix(m: re.Match[str]) -> str:
            return self.mended_word(m.group(0)) or m.group(0)

        return _WORD.sub(fix, text)


def _build(store: Store, collection: str) -> Spelling:
    passages = (f"{c.path} {c.text}" for c in store.chunks(collection))
    # the questions shipped with the laws: the words people use for them are words too
    asked = (q for questions in packaged_questions().values() for q in questions)
    # and so are those of the turns the classifier learnt ("relatora", "autuado"; its word
    # pairs hold the same words)
    turns = iter(classifier().word_index)
    return Spelling.of(itertools.chain(passages, asked, turns))


def _dump(spelling: Spelling) -> bytes:
    return orjson.dumps(spelling.counts)


def _load(data: bytes) -> Spelling:
    counts: dict[str, int] = orjson.loads(data)
    return Spelling(counts)


_SPELLINGS: PerCollection[Spelling] = PerCollection(
    _build,
    lambda: Spelling({}),
    saved=Saved(
        "spelling", _dump, _load, (__name__, "colmeia.rag.index.lexical", "colmeia.rag.expansion")
    ),
)


def spelling_for(store: Store, collection: str) -> Spelling:
    """The known words of ``collection`` (counted again when it changes)."""
    return _SPELLINGS.get(store, collection)
