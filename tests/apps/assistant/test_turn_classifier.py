"""The turn classifier: the shipped artefact is what the generator's training corpus trains, its
numpy inference gives scikit-learn's own probabilities, and it reads what people type."""

from __future__ import annotations

from importlib import resources
from io import BytesIO

import numpy as np
import pytest

from colmeia.apps.assistant.intents import TurnClassifier, classifier, prepare
from colmeia.errors import ConfigurationError

sklearn = pytest.importorskip("sklearn", reason="scikit-learn (dev dependency) trains the model")


def _shipped() -> dict[str, np.ndarray]:
    data = resources.files("colmeia.apps.assistant").joinpath("data", "turn_model.npz")
    with np.load(BytesIO(data.read_bytes()), allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def test_the_shipped_artefact_is_what_the_training_corpus_trains() -> None:
    from colmeia.apps.assistant.turngen.train import train

    trained = train()
    shipped = _shipped()
    assert sorted(trained) == sorted(shipped)
    for key, value in trained.items():
        if value.dtype.kind in "US":
            assert list(value) == list(shipped[key]), key
        else:
            np.testing.assert_allclose(value, shipped[key], atol=1e-5, err_msg=key)


def test_numpy_inference_equals_scikit_learn() -> None:
    from sklearn.feature_extraction.text import TfidfVectorizer

    from colmeia.apps.assistant.intents import NGRAMS, WORD_NGRAMS, WORD_TOKEN

    shipped = _shipped()
    chars = TfidfVectorizer(
        analyzer="char_wb", ngram_range=NGRAMS, lowercase=False, sublinear_tf=True,
        vocabulary={str(v): i for i, v in enumerate(shipped["vocabulary"])},
    )  # fmt: skip
    chars.idf_ = shipped["idf"].astype(np.float64)
    words = TfidfVectorizer(
        analyzer="word", token_pattern=WORD_TOKEN, ngram_range=WORD_NGRAMS, lowercase=False,
        sublinear_tf=True, vocabulary={str(v): i for i, v in enumerate(shipped["word_vocabulary"])},
    )  # fmt: skip
    words.idf_ = shipped["word_idf"].astype(np.float64)
    texts = [
        "qual a situação do processo 12/2024?", "oi tudo bem", "o que diz o art. 5 da lgpd",
        "quem relata o tc 12/2024 e a lei 9.784 permite isso",
    ]  # fmt: skip
    ready = [prepare(t) for t in texts]
    x = np.hstack([chars.transform(ready).toarray(), words.transform(ready).toarray()])
    assert x[:, len(shipped["vocabulary"]) :].any()  # the word block is read too
    clf = classifier()
    for row, text in zip(x, texts, strict=True):
        raw = shipped["intent_coef"].astype(np.float64) @ row + shipped["intent_intercept"]
        p = np.exp(raw - raw.max())
        p /= p.sum()
        ours = clf.scores(text, "intent")
        want = dict(zip([str(c) for c in shipped["intent_classes"]], p, strict=True))
        assert ours == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize(
    ("text", "intent", "aspect"),
    [
        ("processo 4506 de 2023 ta com quem?", "case", "location"),
        ("quem relata o tc 12/2024", "case", "rapporteur"),
        ("me indica um restaurante bom", "scope", None),
        ("horario de funcionamento do tribunal", "institutional", None),
        ("o que diz a lei 9.784 sobre recurso?", "law", None),
        ("bom dia", "greeting", None),
        ("quero achar o processo de Maria Souza Lima", "find", None),
    ],
)
def test_it_reads_colloquial_turns(text: str, intent: str, aspect: str | None) -> None:
    got = classifier().predict(text)
    assert got.intent == intent
    if aspect:
        assert got.aspect == aspect


def test_a_damaged_artefact_is_refused_with_a_clear_error() -> None:
    with pytest.raises(ConfigurationError, match=r"turn_model\.npz"):
        TurnClassifier(b"not an npz")
