"""What a turn asks, predicted by a small classifier learnt from generated conversations.

Heads over TF-IDF character n-grams and word uni- and bigrams (two blocks, each
l2-normalised): the intent (``case``, ``find``, ``law``, ``mixed``,
``scope``, ``institutional``, ``greeting``) and the aspect of a case asked about (``status``,
``rapporteur``, ``parties``, ``location``, ``since``, ``movements``, ``judgement``,
``archive``, ``documents``, ``deadlines``); and ``scope_law``, which tells a question about
the law from an out-of-scope request, learnt from the templates' law and scope turns and from
the questions shipped with each article of the laws (read only where the intent head says out
of scope: :func:`colmeia.apps.assistant.frame.read_frame`). The weights are a small shipped artefact
(``data/turn_model.npz``) trained by :mod:`colmeia.apps.assistant.turngen.train` from the
generator's training corpus; inference is numpy alone (a few hundred microseconds).

Numbers are read by the parsers, not learnt: digits are masked before the classifier sees the
text, so "processo 12/2024" and "processo 3456/2023" are the same words to it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from io import BytesIO

import numpy as np

from colmeia.apps.assistant.shorthand import expand_shorthand
from colmeia.errors import ConfigurationError

__all__ = [
    "NGRAMS",
    "WORD_NGRAMS",
    "WORD_TOKEN",
    "Prediction",
    "TurnClassifier",
    "classifier",
    "prepare",
]

NGRAMS = (2, 5)
WORD_NGRAMS = (1, 2)
# scikit-learn's default token: two or more word characters
WORD_TOKEN = r"(?u)\b\w\w+\b"
_TOKEN = re.compile(WORD_TOKEN)
_SPACES = re.compile(r"\s\s+")


def prepare(text: str) -> str:
    """Lower case, no accents, every digit a 0 — what the classifier reads."""
    folded = "".join(
        c for c in unicodedata.normalize("NFD", text.lower()) if unicodedata.category(c) != "Mn"
    )
    return re.sub(r"\d", "0", folded)


def _ngrams(text: str) -> list[str]:
    """scikit-learn's ``char_wb`` analyzer: n-grams inside each word padded with spaces."""
    out: list[str] = []
    lo, hi = NGRAMS
    for word in _SPACES.sub(" ", text).split():
        w = f" {word} "
        size = len(w)
        for n in range(lo, hi + 1):
            offset = 0
            out.append(w[offset : offset + n])
            while offset + n < size:
                offset += 1
                out.append(w[offset : offset + n])
            if offset == 0:  # the word is shorter than n: once is enough
                break
    return out


def _word_ngrams(text: str) -> list[str]:
    """scikit-learn's ``word`` analyzer: the tokens, then each pair of neighbours."""
    tokens = _TOKEN.findall(text)
    lo, hi = WORD_NGRAMS
    out: list[str] = list(tokens) if lo == 1 else []
    for n in range(max(lo, 2), hi + 1):
        out += [" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
    return out


# words shorter than this are left as typed: among short words one slip turns many real words
# into others ("causa" → "casa")
MIN_SPELLED = 6
_LETTERS = re.compile(r"[a-z]+")


def _deletes(word: str) -> set[str]:
    """``word`` and every form of it with one letter left out."""
    return {word, *(word[:i] + word[i + 1 :] for i in range(len(word)))}


def differs_in_ending(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ only in their last letter, one having it or not."""
    return a[:-1] == b[:-1] or a[:-1] == b or b[:-1] == a


def _one_slip(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are one edit apart: a letter left out, added or changed, or two
    neighbours swapped (optimal string alignment distance 1)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        i = diff[0]
        return len(diff) == 2 and diff[1] == i + 1 and a[i] == b[i + 1] and a[i + 1] == b[i]
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k in range(len(short)) if short[k] != long[k]), len(short))
    return short[i:] == long[i + 1 :]


def _block(
    grams: list[str], index: dict[str, int], idf: np.ndarray, offset: int
) -> tuple[np.ndarray, np.ndarray]:
    """One TF-IDF block, sparse and l2-normalised, its indices shifted by ``offset``."""
    counts: dict[int, int] = {}
    for gram in grams:
        i = index.get(gram)
        if i is not None:
            counts[i] = counts.get(i, 0) + 1
    idx = np.fromiter(counts, dtype=np.int64, count=len(counts))
    tf = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
    x = (1.0 + np.log(tf)) * idf[idx]  # sublinear tf × idf, as trained
    norm = float(np.linalg.norm(x))
    return idx + offset, (x / norm if norm else x)


@dataclass(frozen=True, slots=True)
class Prediction:
    intent: str
    aspect: str
    # the probability of each intent (softmax of the head's scores)
    intents: dict[str, float]

    @property
    def confidence(self) -> float:
        return self.intents.get(self.intent, 0.0)


class TurnClassifier:
    """The shipped heads, applied with numpy."""

    def __init__(self, data: bytes) -> None:
        try:
            self._load(data)
        except (OSError, ValueError, KeyError) as exc:
            raise ConfigurationError(
                f"the turn classifier's artefact (data/turn_model.npz) is not readable: {exc}; "
                "reinstall colmeia or retrain it (colmeia.apps.assistant.turngen.train)"
            ) from exc

    _deletes: dict[str, tuple[str, ...]] | None = None

    def _load(self, data: bytes) -> None:
        with np.load(BytesIO(data), allow_pickle=False) as z:
            vocab = [str(v) for v in z["vocabulary"]]
            self.index = {v: i for i, v in enumerate(vocab)}
            self.idf = z["idf"].astype(np.float64)
            words = [str(v) for v in z["word_vocabulary"]]
            self.word_index = {v: i for i, v in enumerate(words)}
            self.word_idf = z["word_idf"].astype(np.float64)
            self.heads = {
                head: (
                    [str(c) for c in z[f"{head}_classes"]],
                    z[f"{head}_coef"].astype(np.float64),
                    z[f"{head}_intercept"].astype(np.float64),
                )
                for head in ("intent", "aspect", "scope_law")
            }

    def vector(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """The text's features, sparse: (feature indices, values) — the character block then
        the word block, each l2-normalised as trained."""
        ready = prepare(text)
        ci, cx = _block(_ngrams(ready), self.index, self.idf, 0)
        wi, wx = _block(_word_ngrams(ready), self.word_index, self.word_idf, len(self.index))
        return np.concatenate([ci, wi]), np.concatenate([cx, wx])

    def scores(self, text: str, head: str) -> dict[str, float]:
        classes, coef, intercept = self.heads[head]
        idx, values = self.vector(text)
        raw = coef[:, idx] @ values + intercept
        if len(classes) == 2 and raw.shape[0] == 1:  # a binary head keeps one row
            raw = np.array([-raw[0], raw[0]])
        p = np.exp(raw - raw.max())
        p /= p.sum()
        return {c: float(v) for c, v in zip(classes, p, strict=True)}

    def spelled(self, text: str) -> str:
        """``text`` as the classifier reads it (:func:`prepare`), each word it never saw
        written as the word of its vocabulary one slip away ("procsso" → "processo": a letter
        left out, added, changed or two swapped), the most common one when several are.

        A typo changes a few of a word's character n-grams and its whole word feature; read
        against what was learnt, "preciso de informação sobre um procsso" is the case
        question it is, not a law question that happens to share the other words."""
        # the chat's shorthand first ("qnto" → "quanto"): forms the corpus never had
        ready = prepare(expand_shorthand(text))
        known = self._spelling()

        def fix(m: re.Match[str]) -> str:
            word = m.group(0)
            if len(word) < MIN_SPELLED or word in self.word_index:
                return word
            found = [w for key in _deletes(word) for w in known.get(key, ())]
            # a word that differs only in its last letter is another form of it ("mesma",
            # "vizinho"), which the character n-grams already read
            near = sorted(
                {w for w in found if _one_slip(word, w) and not differs_in_ending(word, w)}
            )
            return min(near, key=lambda w: (self.word_idf[self.word_index[w]], w), default=word)

        return _LETTERS.sub(fix, ready)

    def _spelling(self) -> dict[str, tuple[str, ...]]:
        # each word that weighs in the frame under itself and under each form with one letter
        # left out: two words one slip apart share a key (the symmetric-delete index)
        if self._deletes is None:
            keys: dict[str, set[str]] = {}
            for word in self._frame_words():
                for key in _deletes(word):
                    keys.setdefault(key, set()).add(word)
            self._deletes = {k: tuple(sorted(v)) for k, v in keys.items()}
        return self._deletes

    def _frame_words(self) -> list[str]:
        """The single words that weigh in the frame: those whose largest weight in either
        head is the median word's or more ("processo", "relator", "horário"). A slip is read
        as one of them, never as a word that barely counts ("casa" for "causa")."""
        words = [w for w in self.word_index if len(w) >= MIN_SPELLED - 1 and _LETTERS.fullmatch(w)]
        if not words:
            return []
        columns = [len(self.index) + self.word_index[w] for w in words]
        weight = np.max(
            [np.abs(coef[:, columns]).max(axis=0) for _, coef, _ in self.heads.values()], axis=0
        )
        floor = float(np.median(weight))
        return [w for w, x in zip(words, weight, strict=True) if x >= floor]

    def predict(self, text: str) -> Prediction:
        text = self.spelled(text)
        intents = self.scores(text, "intent")
        aspects = self.scores(text, "aspect")
        return Prediction(
            max(intents, key=intents.__getitem__), max(aspects, key=aspects.__getitem__), intents
        )


@lru_cache(maxsize=1)
def classifier() -> TurnClassifier:
    """The shipped classifier (read once per process)."""
    data = resources.files("colmeia.apps.assistant").joinpath("data", "turn_model.npz")
    return TurnClassifier(data.read_bytes())
