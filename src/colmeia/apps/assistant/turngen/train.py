"""Train the turn classifier (intent, aspect, scope or law) on the generated training corpus.

scikit-learn (a development dependency) fits two TF-IDF blocks — character n-grams inside words
(robust to typos and missing accents) and word uni- and bigrams (the order of a few words:
"quem relata", "a lei") — each l2-normalised and set side by side, and one logistic regression
per head; :func:`export` keeps what inference needs (vocabulary, idf, weights) in a
small ``.npz`` that :mod:`colmeia.apps.assistant.intents` reads with numpy alone, so the
assistant never imports scikit-learn at run time. Training is deterministic (fixed corpus seed,
lbfgs), and a test checks the shipped artefact is what this module trains.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np

from colmeia.apps.assistant.intents import NGRAMS, WORD_NGRAMS, WORD_TOKEN, prepare
from colmeia.apps.assistant.turngen.generate import training_corpus

__all__ = ["export", "train"]

MAX_FEATURES = 6000
MAX_WORD_FEATURES = 3000


def _top_terms(params: dict[str, Any], texts: list[str], limit: int) -> dict[str, int]:
    """The ``limit`` most frequent terms (summed counts, as scikit-learn's ``max_features``),
    ties broken by the term itself.

    scikit-learn breaks ties with numpy's default ``argsort``, whose order among equal counts
    depends on the CPU's SIMD sort (AVX-512 machines pick other boundary n-grams than AVX2
    ones), so the same corpus trained a different vocabulary on another machine. A stable sort
    over the alphabetical vocabulary gives one answer everywhere."""
    from sklearn.feature_extraction.text import CountVectorizer

    counter = CountVectorizer(**params)
    totals = np.asarray(counter.fit_transform(texts).sum(axis=0)).ravel()
    names = counter.get_feature_names_out()  # alphabetical: a stable sort keeps ties in it
    kept = sorted(str(names[i]) for i in np.argsort(-totals, kind="stable")[:limit])
    return {term: i for i, term in enumerate(kept)}


def train(conversations: int = 1500) -> dict[str, Any]:
    """Fit both heads; returns the arrays :func:`export` writes."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import FeatureUnion

    corpus = training_corpus(conversations=conversations)
    texts = [prepare(x.text) for x in corpus]
    # the features are the templates' (what the intent and aspect heads read is as without
    # the shipped questions); those questions are read through them by the scope-or-law head
    templated = [t for t, x in zip(texts, corpus, strict=True) if not x.asked]
    char_params: dict[str, Any] = {"analyzer": "char_wb", "ngram_range": NGRAMS, "lowercase": False}
    word_params: dict[str, Any] = {
        "analyzer": "word",
        "token_pattern": WORD_TOKEN,
        "ngram_range": WORD_NGRAMS,
        "lowercase": False,
    }
    vec = TfidfVectorizer(
        **char_params,
        vocabulary=_top_terms(char_params, templated, MAX_FEATURES),
        sublinear_tf=True,
        dtype=np.float64,
    )
    words = TfidfVectorizer(
        **word_params,
        vocabulary=_top_terms(word_params, templated, MAX_WORD_FEATURES),
        sublinear_tf=True,
        dtype=np.float64,
    )
    # the two blocks side by side, each normalised on its own (as intents.vector reads them)
    union = FeatureUnion([("chars", vec), ("words", words)]).fit(templated)
    x = union.transform(texts)
    out: dict[str, Any] = {
        "vocabulary": np.array([str(v) for v in vec.get_feature_names_out()], dtype=str),
        "idf": vec.idf_.astype(np.float32),
        "word_vocabulary": np.array([str(v) for v in words.get_feature_names_out()], dtype=str),
        "word_idf": words.idf_.astype(np.float32),
    }
    templates = np.array([not c.asked for c in corpus])
    either = np.array([c.intent in ("law", "scope") for c in corpus])
    heads = {
        "intent": ([c.intent for c in corpus], templates),
        # the aspect is learnt from the turns that ask about a case
        "aspect": ([c.aspect for c in corpus], templates),
        # out of scope or a question about the law, with the questions shipped with the laws
        "scope_law": ([c.intent for c in corpus], either),
    }
    for head, (labels, rows) in heads.items():
        clf = LogisticRegression(C=8.0, max_iter=2000)
        clf.fit(x[rows], np.array(labels)[rows])
        out[f"{head}_classes"] = np.array([str(c) for c in clf.classes_], dtype=str)
        out[f"{head}_coef"] = clf.coef_.astype(np.float32)
        out[f"{head}_intercept"] = clf.intercept_.astype(np.float32)
    return out


def export(arrays: dict[str, Any], path: Path | None = None) -> bytes:
    """The artefact's bytes (written to ``path`` when given)."""
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    data = buf.getvalue()
    if path is not None:
        path.write_bytes(data)
    return data
