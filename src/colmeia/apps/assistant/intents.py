"""What a turn asks, predicted by a small classifier learnt from generated conversations.

Two heads over TF-IDF character n-grams and word uni- and bigrams (two blocks, each
l2-normalised): the intent (``case``, ``find``, ``law``, ``mixed``,
``scope``, ``institutional``, ``greeting``) and the aspect of a case asked about (``status``,
``rapporteur``, ``parties``, ``location``, ``since``, ``movements``, ``judgement``,
``archive``, ``documents``, ``deadlines``). The weights are a small shipped artefact
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
                for head in ("intent", "aspect")
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

    def predict(self, text: str) -> Prediction:
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
