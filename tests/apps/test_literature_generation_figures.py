"""The generation judge's figures worked out by hand: a judgement turned into context
relevance and faithfulness, a reading turned into the answer the judge is shown, the figures
of one work read and judged (by a scripted model, in process), and the summary over queries
and works with every figure known."""

from __future__ import annotations

import asyncio
import math
import random
import re
import statistics
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from literature_helpers import library_store
from pydantic import BaseModel, ValidationError

from colmeia.apps.literature import generation
from colmeia.apps.literature.generation import (
    GenerationSample,
    JudgedWork,
    Judgement,
    generation_samples,
    generation_summary,
)
from colmeia.apps.literature.review import Passage, ReviewedWork
from colmeia.apps.literature.schemas import CitedText
from colmeia.errors import ModelError
from colmeia.rag.index.embedders import normalize
from colmeia.rag.retrieve import Retriever
from colmeia.sim.engine import hashed_embedding
from colmeia.store import Store

# -- a judgement read as figures --------------------------------------------------------------


def _passages(*ids: str) -> list[Passage]:
    return [Passage(pid, f"c{pid}", f"texto {pid}", "", "", 0.0) for pid in ids]


def _judgement(passages: dict[str, bool], supported: Sequence[bool], rating: int = 2) -> Judgement:
    return Judgement.model_validate(
        {
            "passages": [{"id": k, "relevant": v} for k, v in passages.items()],
            "claims": [{"claim": f"c{i}", "supported": s} for i, s in enumerate(supported)],
            "answer_relevance": rating,
        }
    )


def test_context_relevance_counts_the_passages_given_and_faithfulness_the_claims() -> None:
    given = _passages("P1", "P2", "P3", "P4")
    # P1 relevant (written " p1 " by a sloppy judge), P2 not, P3 and P4 skipped (not relevant);
    # P9 was never given: ignored, though the judge calls it relevant.
    j = _judgement({" p1 ": True, "P2": False, "P9": True}, [True, False, True])
    assert generation._judged(j, given) == (1 / 4, 2 / 3)
    # Nothing given, no claims: nothing to measure (not zero).
    assert generation._judged(_judgement({}, []), []) == (None, None)


def _reading(**fields: tuple[str, list[str]]) -> ReviewedWork:
    w = ReviewedWork("d1", "Título", 1, 0.0)
    for name, (text, cited) in fields.items():
        setattr(w, name, CitedText(text=text, passages=cited))
    return w


def test_the_answer_shown_to_the_judge_is_each_informed_field_with_what_it_cites() -> None:
    w = _reading(
        summary=("Resumo do trabalho.", ["P1", "P2"]),
        objectives=("Analisar o tema.", []),
        conclusions=("  Não informado ", []),
    )
    assert generation._answer_text(w) == (
        "summary [P1, P2]: Resumo do trabalho.\nobjectives: Analisar o tema."
    )
    assert generation._field_texts(_reading(summary=("   ", []), objectives=("x", []))) == {
        "objectives": "x"
    }


# -- one work read and judged by a scripted model ---------------------------------------------

READING = {
    "summary": {"text": "O trabalho trata de esgoto.", "passages": ["P1"]},
    "objectives": {"text": "Analisar o esgoto.", "passages": ["P1"]},
    "conclusions": {"text": "não informado", "passages": []},
    "relevance": "alta",
    "why": "Trata da pergunta.",
}


class ScriptedModel:
    """A model in process: it reads every work as READING, judges every passage relevant
    when it names "esgoto" (claims: 2 of 4 supported; the answer rated ``rating``; the summary
    rated 3, the objectives 1) and, mixed with distractors, picks those naming "esgoto".
    ``fail`` names the kinds of request it answers with an error."""

    name = "scripted"

    def __init__(self, rating: int = 2, fail: Sequence[str] = (), fail_from: int = 0) -> None:
        self.rating = rating
        self.fail = set(fail)
        self.fail_from = fail_from  # the requests of a failing kind before it fails
        self.calls: list[tuple[str, str, dict[str, Any]]] = []
        self.schemas: list[dict[str, Any]] = []  # the JSON Schema of each request

    async def structured(self, messages: Sequence[Any], output_type: Any, **kw: Any) -> Any:
        text = "\n".join(m.content for m in messages)
        kind = (
            "mixed"
            if "quais trechos ajudam a responder" in text
            else "judge"
            if "Você avalia, com rigor" in text
            else "reading"
        )
        self.calls.append((kind, text, kw))
        self.schemas.append(output_type.model_json_schema())
        if kind in self.fail and sum(c[0] == kind for c in self.calls) > self.fail_from:
            raise ModelError(f"{kind} refused")
        if kind == "reading":
            return output_type.model_validate(READING)
        if kind == "mixed":
            picked = [i for i, said in _given(text, "T") if "esgoto" in said.lower()]
            return output_type.model_validate({"relevant": picked})
        given = _given(text.split("Resposta do sistema")[0], "P")
        verdicts = [{"id": i, "relevant": "esgoto" in said.lower()} for i, said in given]
        out: dict[str, Any] = {
            "passages": verdicts,
            "claims": [{"claim": f"a{i}", "supported": i < 2} for i in range(4)],
            "answer_relevance": self.rating,
        }
        if "fields: para CADA campo" in text:
            out["fields"] = {"summary": 3, "objectives": 1}
        return output_type.model_validate(out)


def _given(text: str, letter: str) -> list[tuple[str, str]]:
    """(id, text) of each passage listed in a prompt as ``[P1] …`` (or ``[T1] …``)."""
    pattern = rf"^\[({letter}\d+)\] (.*?)(?=^\[{letter}\d+\] |\Z)"
    return re.findall(pattern, text, re.M | re.S)


class TableEmbedder:
    """Each text → a fixed unit vector: the answer, each field and the abstract are at known
    angles (cosines 0.123456, 0.8 and 0.0 to the abstract)."""

    name = "table"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        table = {
            generation._answer_text(_read_as(READING)): [0.123456, math.sqrt(1 - 0.123456**2), 0],
            READING["summary"]["text"]: [0.8, 0.6, 0.0],
            READING["objectives"]["text"]: [0.0, 1.0, 0.0],
            "O resumo.": [1.0, 0.0, 0.0],
        }
        return np.asarray([table[t] for t in texts], np.float32)


def _read_as(reading: dict[str, Any]) -> ReviewedWork:
    return _reading(
        **{
            name: (reading[name]["text"], reading[name]["passages"])
            for name in ("summary", "objectives", "conclusions")
        }
    )


def _work(*texts: str) -> ReviewedWork:
    w = ReviewedWork("d1", "Título", 2, 0.0)
    w.passages = [Passage(f"P{i}", f"c{i}", t, "", "", 0.0) for i, t in enumerate(texts, 1)]
    return w


def test_one_work_read_and_judged_gives_its_figures_and_each_fields() -> None:
    model = ScriptedModel(rating=2)
    w = _work("O esgoto rural.", "Outra coisa.")
    out = asyncio.run(generation._judge_work(model, "esgoto?", w, TableEmbedder(), "O resumo."))
    assert (out.doc_id, out.rank, out.error) == ("d1", 2, "")
    assert (out.context_relevance, out.faithfulness) == (1 / 2, 2 / 4)
    assert out.answer_relevance == 2 / 3
    # "conclusions" was "não informado": neither rated nor embedded.
    assert out.field_relevance == {"summary": 1.0, "objectives": 1 / 3}
    assert out.similarity_to_abstract == 0.1235  # to four places
    assert out.field_similarity == pytest.approx({"summary": 0.8, "objectives": 0.0})
    # The judge was shown the answer with its citations, asked for each informed field, at
    # temperature 0 and within its token limit.
    kind, prompt, kw = model.calls[-1]
    assert kind == "judge"
    assert (
        "summary [P1]: O trabalho trata de esgoto.\nobjectives [P1]: Analisar o esgoto." in prompt
    )
    assert "(summary, objectives)" in prompt
    assert kw == {"temperature": 0.0, "max_tokens": generation._JUDGE_MAX_TOKENS}
    # ...in a schema that allows only the passages given and asks for those two fields.
    schema = model.schemas[-1]
    assert schema["properties"]["passages"]["maxItems"] == 2
    assert schema["properties"]["fields"]["required"] == ["summary", "objectives"]
    assert model.calls[0][2]["temperature"] == 0.2  # the reading, as the review reads
    # Without an embedder or without the abstract: no similarity.
    for embedder, abstract in ((None, "O resumo."), (TableEmbedder(), "")):
        again = asyncio.run(
            generation._judge_work(ScriptedModel(), "esgoto?", _work("esgoto"), embedder, abstract)
        )
        assert again.similarity_to_abstract is None and again.field_similarity == {}


@pytest.mark.parametrize(
    ("fail", "error"),
    [
        ("reading", "the reading failed, nothing to judge: reading refused"),
        ("judge", "the judge failed: judge refused"),
    ],
)
def test_a_work_whose_reading_or_judge_fails_says_which_and_is_not_judged(
    fail: str, error: str
) -> None:
    w = _work("O esgoto rural.")
    out = asyncio.run(generation._judge_work(ScriptedModel(fail=[fail]), "q", w, None, ""))
    assert out == JudgedWork("d1", 2, error=error)


# -- the queries of a catalogue ---------------------------------------------------------------

CSV = (
    "Titulo,Resumo\n"
    '"Consórcios","O esgoto rural depende de metas."\n'
    '"Tarifas","O esgoto das cidades pequenas e as tarifas."\n'
    '"Vacinação","Campanhas de vacinação infantil."\n'
    '"Ônibus","Linhas noturnas nas periferias."\n'
)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    yield from library_store(tmp_path, CSV)


class Query(BaseModel):
    doc_id: str
    text: str


def _doc(store: Store, title: str) -> str:
    return next(d.doc_id for d in store.documents("col") if d.title == title)


def test_each_query_reads_the_works_found_and_a_control_of_other_works_passages(
    store: Store,
) -> None:
    model = ScriptedModel(rating=3)
    own = _doc(store, "Consórcios")
    queries = [Query(doc_id=own, text="esgoto"), Query(doc_id=_doc(store, "Ônibus"), text="zzz")]
    seen: list[tuple[int, int, str]] = []
    samples = asyncio.run(
        generation_samples(
            store, "col", queries, model, Retriever(store, "col"), {},
            works=2, progress=lambda *a: seen.append(a),
        )
    )  # fmt: skip
    assert seen == [(1, 2, "generation"), (2, 2, "generation")]
    assert [s.doc_id for s in samples] == [q.doc_id for q in queries]
    first, second = samples
    # "esgoto" finds two works, both read; nothing found for "zzz": its own work is read.
    assert [w.rank for w in first.works] == [1, 2]
    assert {w.doc_id for w in first.works} == {own, _doc(store, "Tarifas")}
    assert [(w.doc_id, w.rank) for w in second.works] == [(queries[1].doc_id, 1)]
    # Rank 1's figures at the top; its control read one passage of another work, judged.
    w1 = first.works[0]
    assert (first.context_relevance, first.faithfulness) == (1.0, 0.5)
    assert (first.answer_relevance, first.similarity_to_abstract) == (1.0, None)
    assert first.context_relevance == w1.context_relevance
    assert first.answer_relevance_random == 1.0
    assert first.faithfulness_random == 0.5
    assert first.seconds is not None and 0 <= first.seconds < 60
    # Each work is read with its abstract; the control under rank 1's title, from as many
    # passages of other works as rank 1 has (one: a record is one passage).
    readings = [text for kind, text, _ in model.calls if kind == "reading"]
    rank_1 = next(d for d in store.documents("col") if d.doc_id == w1.doc_id)
    assert str(rank_1.metadata["abstract"]) in readings[0]
    control = readings[2]
    assert rank_1.title in control and "[P1]" in control and "[P2]" not in control
    controls = [c for c in model.calls if c[0] == "judge"]
    assert len(controls) == 2 + 1 + 1 + 1  # two works and a control; one work and a control
    # The mixed judgement picks the work's passage (it names "esgoto") and, of the control's
    # passage (drawn from another work that does not name it), none.
    assert first.context_relevance_mixed == 1.0
    assert (first.distractors_picked, first.context_relevance_random) == (0.0, 0.0)
    assert first.error == second.error == ""


def test_the_control_draws_the_same_passages_for_the_same_seed(store: Store) -> None:
    queries = [Query(doc_id=_doc(store, "Vacinação"), text="vacinação")]

    def control_prompt(seed: int | None) -> str:
        model = ScriptedModel()
        rng = None if seed is None else random.Random(seed)
        asyncio.run(
            generation_samples(
                store, "col", queries, model, Retriever(store, "col"), {}, works=1, rng=rng
            )
        )
        readings = [c[1] for c in model.calls if c[0] == "reading"]
        return readings[1]  # the work's reading, then its control's

    assert control_prompt(None) == control_prompt(0)
    drawn = {control_prompt(s) for s in range(8)}
    assert len(drawn) > 1  # other seeds draw other works' passages


def test_a_failed_control_or_mixed_judgement_leaves_only_its_figures_unset(store: Store) -> None:
    queries = [Query(doc_id=_doc(store, "Consórcios"), text="esgoto")]
    retriever = Retriever(store, "col")
    (mixed_failed,) = asyncio.run(
        generation_samples(store, "col", queries, ScriptedModel(fail=["mixed"]), retriever, {})
    )
    assert mixed_failed.context_relevance == 1.0 and mixed_failed.faithfulness_random == 0.5
    assert (mixed_failed.context_relevance_mixed, mixed_failed.distractors_picked) == (None, None)
    assert mixed_failed.error == ""
    # The control's reading (the second, after the one work's) fails: the work stays judged,
    # the query's rank-1 and control figures are not given, and the error says why.
    model = ScriptedModel(fail=["reading"], fail_from=1)
    (control_failed,) = asyncio.run(
        generation_samples(store, "col", queries, model, retriever, {}, works=1)
    )
    assert control_failed.works[0].context_relevance == 1.0
    assert control_failed.error == "the reading failed, nothing to judge: reading refused"
    assert (control_failed.context_relevance, control_failed.faithfulness) == (None, None)
    assert control_failed.answer_relevance is None
    assert control_failed.context_relevance_random is None
    assert control_failed.answer_relevance_random is None
    assert control_failed.context_relevance_mixed is None
    summary = generation_summary([control_failed], works_per_query=1)
    assert (summary["judged"], summary["works_judged"]) == (0, 1)


# -- the summary ------------------------------------------------------------------------------


def _w(rank: int, c: float, f: float, a: float, s: float | None, **fields: Any) -> JudgedWork:
    out = JudgedWork("d", rank, c, f, a, s)
    out.field_relevance = fields.get("rated", {})
    out.field_similarity = fields.get("similar", {})
    return out


def test_the_summary_gives_rank_1_and_its_control_every_work_and_each_field() -> None:
    a = GenerationSample("a", 1.0, 0.75, 1.0, 0.0, 0.25, 0.9, "", 1.0, 0.0, 0.5)
    a.works = [
        _w(1, 1.0, 0.75, 1.0, 0.9, rated={"summary": 1.0}, similar={"summary": 0.8}),
        _w(2, 0.0, 0.25, 1 / 3, 0.3, rated={"summary": 0.0, "objectives": 1.0}),
        JudgedWork("d", 3, error="the reading failed, nothing to judge: x"),
    ]
    b = GenerationSample("b", 0.5, 0.5, 2 / 3, 0.5, 0.0, 0.7, "", 0.5, 0.5, 0.0)
    b.works = [_w(1, 0.5, 0.5, 2 / 3, 0.7, rated={"summary": 2 / 3}, similar={"summary": 0.6})]
    failed = GenerationSample("c", None, None, None, None, None, None, "the judge failed: y")
    failed.works = [JudgedWork("d", 1, error="the judge failed: y")]
    summary = generation_summary([a, b, failed], works_per_query=3)
    fields = summary.pop("fields")
    rank_1 = summary.pop("fields_rank_1")
    assert summary.pop("note") == (
        "the figures at the top level are the rank-1 work's (with its random-context "
        "control), as in runs that judged only that work; all_works: every work judged. "
        "similarity is cosine similarity (higher is better); the published answer "
        "figures are distances (1 - similarity, lower is better)"
    )
    assert summary == {
        "queries": 3,
        "judged": 2,
        "works_per_query": 3,
        "works_judged": 3,
        "works_failed": 2,
        "context_relevance": 0.75,
        "context_relevance_random_context": 0.25,
        "faithfulness": 0.625,
        "faithfulness_random_context": 0.125,
        "answer_relevance": round((1 + 2 / 3) / 2, 4),
        "answer_relevance_random_context": 0.25,
        "context_relevance_with_distractors": 0.75,
        "distractors_judged_relevant": 0.25,
        "answer_similarity_to_abstract": 0.8,
        "answer_distance_to_abstract": 0.2,
        "all_works": {
            "context_relevance": 0.5,
            "faithfulness": 0.5,
            "answer_relevance": round((1 + 1 / 3 + 2 / 3) / 3, 4),
            "answer_similarity_to_abstract": round((0.9 + 0.3 + 0.7) / 3, 4),
            "answer_distance_to_abstract": round(1 - round((0.9 + 0.3 + 0.7) / 3, 4), 4),
        },
    }
    sd = round(statistics.stdev([1.0, 0.0, 2 / 3]), 4)
    assert fields == {
        "summary": {
            "answer_relevance": {"mean": round(5 / 9, 4), "sd": sd, "n": 3},
            "similarity_to_abstract": {"mean": 0.7, "sd": round(math.sqrt(0.02), 4), "n": 2},
        },
        "objectives": {
            "answer_relevance": {"mean": 1.0, "sd": None, "n": 1},
            "similarity_to_abstract": {"mean": None, "sd": None, "n": 0},
        },
    }
    assert list(rank_1) == ["summary"]  # no rank-1 work rated the objectives
    assert rank_1["summary"]["answer_relevance"]["n"] == 2


def test_a_summary_of_nothing_judged_gives_no_figures_rather_than_zeros() -> None:
    summary = generation_summary([])
    assert summary["works_per_query"] == generation.GENERATION_WORKS == 5
    assert summary["context_relevance"] is None
    assert summary["answer_distance_to_abstract"] is None
    assert summary["fields"] == summary["fields_rank_1"] == {}


def test_the_judges_score_is_read_from_text_with_spaces_or_a_decimal_point() -> None:
    for written, read in ((" 2 ", 2), ("2.6", 3), ("1.4", 1), ("-3.5", 0), (3, 3)):
        j = Judgement.model_validate({"passages": [], "claims": [], "answer_relevance": written})
        assert j.answer_relevance == read, written
    with pytest.raises(ValidationError, match="answer_relevance"):
        Judgement.model_validate({"passages": [], "claims": [], "answer_relevance": "1.2.3"})


def test_the_judge_reads_the_schema_it_fills_in_words() -> None:
    """The JSON Schema a guided judge is given, whole: each item described in words (what a
    passage id may be, what a claim is, what each 0-3 rating rates), the passage ids limited
    to those given, the claims bounded, a rating asked for each field of the answer."""
    schema = generation.judgement_schema(["P1", "P2"], ["summary"]).model_json_schema()
    rating = {"enum": [0, 1, 2, 3], "type": "integer"}
    assert schema == {
        "title": "Judgement",
        "type": "object",
        "required": ["passages", "claims", "answer_relevance", "fields"],
        "properties": {
            "passages": {
                "title": "Passages",
                "description": "One verdict per passage given.",
                "type": "array",
                "maxItems": 2,
                "items": {
                    "title": "PassageVerdict",
                    "type": "object",
                    "required": ["id", "relevant"],
                    "properties": {
                        "id": {
                            "title": "Id",
                            "description": "The passage id, one of those given.",
                            "enum": ["P1", "P2"],
                            "type": "string",
                        },
                        "relevant": {
                            "title": "Relevant",
                            "description": "Whether the passage helps answer the question.",
                            "type": "boolean",
                        },
                    },
                },
            },
            "claims": {
                "title": "Claims",
                "description": "Every claim of the answer, judged.",
                "type": "array",
                "maxItems": generation.JUDGE_MAX_CLAIMS,
                "items": {
                    "title": "ClaimVerdict",
                    "type": "object",
                    "required": ["claim", "supported"],
                    "properties": {
                        "claim": {
                            "title": "Claim",
                            "description": "One statement of the answer, short.",
                            "maxLength": generation.JUDGE_CLAIM_CHARS,
                            "type": "string",
                        },
                        "supported": {
                            "title": "Supported",
                            "description": "Whether the passages given say it.",
                            "type": "boolean",
                        },
                    },
                },
            },
            "answer_relevance": {
                "title": "Answer Relevance",
                "description": "0 = does not address the question, 1 = tangential, "
                "2 = partly, 3 = fully.",
                **rating,
            },
            "fields": {
                "title": "FieldRatings",
                "description": "A 0-3 rating for each field of the answer.",
                "type": "object",
                "required": ["summary"],
                "properties": {
                    "summary": {
                        "title": "Summary",
                        "description": "0-3: how well the field summary addresses the question.",
                        **rating,
                    }
                },
            },
        },
    }


class BagEmbedder:
    """A hashed bag of words: texts sharing words are near."""

    name = "bag"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return normalize(np.asarray([hashed_embedding(t, 64) for t in texts], np.float32))


def test_answers_are_compared_with_the_abstract_of_the_querys_own_work_when_given(
    store: Store,
) -> None:
    own = _doc(store, "Consórcios")
    queries = [Query(doc_id=own, text="esgoto")]
    retriever = Retriever(store, "col", embedder=BagEmbedder())
    abstract = "O esgoto rural depende de metas."
    (with_abstract,) = asyncio.run(
        generation_samples(store, "col", queries, ScriptedModel(), retriever, {own: abstract})
    )
    assert all(w.similarity_to_abstract is not None for w in with_abstract.works)
    assert with_abstract.similarity_to_abstract == with_abstract.works[0].similarity_to_abstract
    # No abstract for the query's work: nothing to compare with, no similarity at all.
    (without,) = asyncio.run(
        generation_samples(store, "col", queries, ScriptedModel(), retriever, {"other": abstract})
    )
    assert [w.similarity_to_abstract for w in without.works] == [None] * len(without.works)
    assert all(w.field_similarity == {} for w in without.works)
