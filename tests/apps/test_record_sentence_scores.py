"""A work's score is the mean cosine of its two best units (title, keywords line, abstract
sentences) with the question, work by work in the order given; a title repeated as the
abstract's first line is one unit, not two; a keywords line given as one text is kept whole."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from colmeia.apps.literature.record_sentences import record_units, sentence_scores

_AXES = ["ônibus", "saúde", "escola", "água"]


class _Axes:
    """A real embedder in four dimensions: a text's vector counts the four topic words in it."""

    name = "axes-4"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        rows = [[t.count(w) for w in _AXES] for t in texts]
        m = np.asarray(rows, np.float32)
        return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-9)


def test_each_work_scores_the_mean_of_its_two_best_units_in_order() -> None:
    question = np.asarray([1, 0, 0, 0], np.float32)  # about ônibus
    works = [
        ("Saúde na escola", {"abstract": "A água da escola. O ônibus e a saúde."}),
        ("Ônibus", {"abstract": "", "keywords": ["ônibus", "água"]}),
        ("", {"abstract": "A escola."}),
        ("Nada", {"keywords": "ônibus; ônibus"}),
        ("ônibus", {"abstract": "A escola. O ônibus e a saúde."}),
    ]
    got = sentence_scores(_Axes(), question, works)
    assert got.dtype == np.float32
    half = 1 / np.sqrt(2)
    # 1: units "Saúde na escola" (0), "A água da escola." (0), "O ônibus e a saúde." (half)
    # 2: "Ônibus" (0: capital Ô is not counted), "ônibus; água" (half)
    # 3: "A escola." (0); 4: "Nada" (0), "ônibus; ônibus" (1)
    # 5: "ônibus" (1), "A escola." (0), "O ônibus e a saúde." (half): the best two, not 1 and 0
    assert np.allclose(got, [half / 2, half / 2, 0.0, 0.5, (1 + half) / 2], atol=1e-6)


def test_works_with_no_text_score_zero() -> None:
    got = sentence_scores(_Axes(), np.asarray([1, 0, 0, 0], np.float32), [("", {}), ("", {})])
    assert got.dtype == np.float32
    assert got.tolist() == [0.0, 0.0]


def test_a_keywords_line_given_as_text_is_one_unit_as_written() -> None:
    assert record_units("T", "", "saúde; escola") == ["T", "saúde; escola"]
    assert record_units("T", "", ["saúde", "escola"]) == ["T", "saúde; escola"]


def test_the_title_repeated_atop_the_abstract_is_not_a_second_unit() -> None:
    assert record_units("Ônibus urbanos", "Ônibus urbanos\nO estudo mede atrasos.") == [
        "Ônibus urbanos",
        "O estudo mede atrasos.",
    ]
