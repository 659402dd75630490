"""`case_meaning.nearest_in_meaning`: the described case nearest in meaning is given only when
a word of the description named it (it is a candidate) and it leads every other case compared
by the margin. The vectors here come from a small embedder of this test (one axis per word),
so that the distances, and the margin's edge, are known exactly; the offline e5 model's own
reading is tested end to end in ``test_turns_blind7.py``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from colmeia.apps.assistant.case_meaning import BASELINE, MARGIN, MAX_CANDIDATES, nearest_in_meaning

_AXES = ["escola", "transporte", "saude", "obra", "camara", "contas"]


class WordAxes:
    """One axis per known word; a text's vector counts its words (query and passage alike)."""

    name = "word-axes"

    def __init__(self) -> None:
        self.queries: list[str] = []

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        rows = [[float(t.split().count(w)) for w in _AXES] for t in texts]
        return np.asarray(rows, dtype=np.float32)

    def embed_query(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.queries += list(texts)
        return self.embed(texts)


_CASES = {
    "TC/1": "escola transporte",
    "TC/2": "saude obra",
    "TC/3": "camara contas",
}


def test_the_candidate_nearest_by_a_clear_margin_is_the_case() -> None:
    embedder = WordAxes()
    assert nearest_in_meaning(embedder, _CASES, "escola transporte", ["TC/1", "TC/2"]) == "TC/1"
    assert embedder.queries == ["escola transporte"]  # asked in the query form


def test_the_nearest_case_no_word_named_is_never_given() -> None:
    # TC/1 is the nearest, but only TC/2 was a candidate
    assert nearest_in_meaning(WordAxes(), _CASES, "escola transporte", ["TC/2"]) is None


def test_a_tie_is_no_lead() -> None:
    # as near TC/1 as TC/2: the description says which no better than a coin
    assert nearest_in_meaning(WordAxes(), _CASES, "escola saude", ["TC/1", "TC/2"]) is None


def test_the_lead_must_reach_the_margin() -> None:
    # cosine to TC/1 (escola transporte) against TC/2 (saude obra) for "escola" a times and
    # "saude" once: a / sqrt(2 (a² + 1)) against 1 / sqrt(2 (a² + 1))
    def lead(a: float) -> float:
        return (a - 1) / np.sqrt(2 * (a * a + 1))

    cases = {"TC/1": "escola transporte", "TC/2": "saude obra"}
    # "escola escola saude": a lead of 0.316, far above the margin
    assert lead(2) > MARGIN
    assert nearest_in_meaning(WordAxes(), cases, "escola escola saude", ["TC/1"]) == "TC/1"
    # equal counts: no lead at all, whatever the candidates
    assert nearest_in_meaning(WordAxes(), cases, "escola saude", ["TC/1"]) is None


def test_a_description_every_case_fits_is_too_vague() -> None:
    many = {f"TC/{n}": "escola transporte" for n in range(MAX_CANDIDATES + 1)}
    many["TC/x"] = "saude obra"
    assert nearest_in_meaning(WordAxes(), many, "escola transporte", list(many)[:-1]) is None


def test_one_candidate_is_measured_against_other_cases() -> None:
    # the only candidate, compared with up to BASELINE others (here the two of the registry)
    assert BASELINE >= 2
    assert nearest_in_meaning(WordAxes(), _CASES, "camara contas", ["TC/3"]) == "TC/3"
    # with nothing to compare it with, there is no lead to measure
    alone = {"TC/3": "camara contas"}
    assert nearest_in_meaning(WordAxes(), alone, "camara contas", ["TC/3"]) is None


def test_candidates_the_registry_does_not_describe_are_left_out() -> None:
    assert nearest_in_meaning(WordAxes(), _CASES, "escola transporte", ["TC/404"]) is None
    assert nearest_in_meaning(WordAxes(), _CASES, "escola transporte", []) is None


def test_as_many_candidates_as_allowed_are_compared() -> None:
    # exactly MAX_CANDIDATES candidates, the last one the case described
    many = {f"TC/{n}": "saude obra" for n in range(MAX_CANDIDATES - 1)}
    many["TC/bus"] = "escola transporte"
    assert len(many) == MAX_CANDIDATES
    assert nearest_in_meaning(WordAxes(), many, "escola transporte", list(many)) == "TC/bus"


class PassagesOnly:
    """An embedder with no query form (a plain sentence model): the description is embedded
    as any text is."""

    name = "passages-only"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return WordAxes().embed(texts)


def test_an_embedder_without_a_query_form_embeds_the_description_as_text() -> None:
    assert nearest_in_meaning(PassagesOnly(), _CASES, "saude obra", ["TC/2"]) == "TC/2"


def test_nearness_is_the_angle_not_the_length() -> None:
    # a long description of another subject is no nearer for its length: TC/long repeats
    # "saude" ten times and shares no axis with the question's "camara"
    cases = {"TC/long": " ".join(["saude"] * 10), "TC/3": "camara contas"}
    assert nearest_in_meaning(WordAxes(), cases, "camara", ["TC/long", "TC/3"]) == "TC/3"
    # and a question typed at length is as near its case as the short one: the lead of
    # "camara ×4 contas ×4" over an unrelated case is the same cosine as "camara contas"
    long_question = " ".join(["camara"] * 4 + ["contas"] * 4)
    assert nearest_in_meaning(WordAxes(), _CASES, long_question, ["TC/3"]) == "TC/3"


def test_a_lead_just_under_the_margin_is_no_lead() -> None:
    # "escola ×a saude ×b": cos to TC/1 minus cos to TC/2 is (a - b) / sqrt(2 (a² + b²))
    cases = {"TC/1": "escola transporte", "TC/2": "saude obra"}

    def lead(a: int, b: int) -> float:
        return (a - b) / float(np.sqrt(2 * (a * a + b * b)))

    # 21 against 20: a lead of 0.0172, under the margin; 12 against 10: 0.0640, above it
    assert lead(21, 20) < MARGIN < lead(12, 10)
    under = " ".join(["escola"] * 21 + ["saude"] * 20)
    over = " ".join(["escola"] * 12 + ["saude"] * 10)
    assert nearest_in_meaning(WordAxes(), cases, under, ["TC/1"]) is None
    assert nearest_in_meaning(WordAxes(), cases, over, ["TC/1"]) == "TC/1"
