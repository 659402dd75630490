"""Citation verification: a quote is checked against the passage it names, whatever the sentence.

A model may write a sentence the passage does support and back it with a quote the passage
does not contain (an invented quotation). The person reading sees the quote as the source's
words, so the citation is rejected on the quote, even though the sentence alone would pass.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rag_fixtures import laws_folder

from colmeia.llm import OpenAIChatModel
from colmeia.rag.generate import CitedAnswer, answer_question
from colmeia.rag.pipeline import ingest
from colmeia.rag.retrieve import Hit, Retriever
from colmeia.sim.engine import SimulatedModel
from colmeia.store import open_store

SUPPORTED = "A concessão de serviço público será precedida de licitação na modalidade concorrência"


@pytest.fixture
def hits(tmp_path: Path) -> list[Hit]:
    store = open_store(str(tmp_path / "c.db"))
    ingest(store, "leis", [laws_folder(tmp_path / "docs")])
    found = Retriever(store, "leis").search("concessão licitação concorrência consumidor", 4)
    store.close()
    assert found[0].doc_id.endswith("concessao.md")
    assert found[1].doc_id.endswith("consumidor.txt")
    return found


async def _answer(sim_server: Any, hits: list[Hit], reply: dict[str, Any]) -> CitedAnswer:
    srv = sim_server(SimulatedModel(script=[reply]))
    async with OpenAIChatModel(
        base_url=srv.base_url, model="sim", api_key="x", max_repairs=1
    ) as model:
        return await answer_question("Como é feita a concessão?", hits, model)


async def test_a_wrong_quote_in_a_supported_sentence_is_rejected(
    sim_server: Any, hits: list[Hit]
) -> None:
    result = await _answer(
        sim_server,
        hits,
        {
            "answer": f"{SUPPORTED} [P1].",
            "citations": [{"passage": "P1", "quote": "a concessão dispensa qualquer certame"}],
        },
    )
    assert result.citations == []
    assert [(c.passage_id, c.reason) for c in result.rejected] == [
        ("P1", "the quote is not in the cited passage")
    ]
    assert result.rejected[0].quote == "a concessão dispensa qualquer certame"
    assert result.answer == f"{SUPPORTED}."


async def test_a_right_quote_passes_whatever_its_case_accents_and_punctuation(
    sim_server: Any, hits: list[Hit]
) -> None:
    result = await _answer(
        sim_server,
        hits,
        {
            "answer": "A concessão exige concorrência [P1].",
            "citations": [{"passage": "P1", "quote": "PRECEDIDA DE LICITACAO, na modalidade"}],
        },
    )
    assert [(c.passage_id, c.doc_id) for c in result.citations] == [("P1", hits[0].doc_id)]
    assert result.citations[0].supported
    assert result.rejected == []
    assert result.answer == "A concessão exige concorrência [P1]."


async def test_a_right_quote_from_another_passage_is_rejected(
    sim_server: Any, hits: list[Hit]
) -> None:
    # the quote is real, but in P1; the model cites P2 (the consumer-law passage)
    result = await _answer(
        sim_server,
        hits,
        {
            "answer": f"{SUPPORTED} [P2].",
            "citations": [
                {"passage": "P2", "quote": "precedida de licitação na modalidade concorrência"}
            ],
        },
    )
    assert result.citations == []
    assert [(c.passage_id, c.reason) for c in result.rejected] == [
        ("P2", "the quote is not in the cited passage")
    ]


@pytest.mark.parametrize(
    ("quote", "kept"),
    [
        # every word there, some in another form: kept
        ("serviço público precedido de licitação na modalidade de concorrência", True),
        # two words of five there ("serviço público"): an invented quotation
        ("serviço público dispensado de certame por urgência", False),
    ],
)
async def test_a_quote_may_paraphrase_a_little_but_not_much(
    sim_server: Any, hits: list[Hit], quote: str, kept: bool
) -> None:
    result = await _answer(
        sim_server,
        hits,
        {
            "answer": "A concessão segue regras próprias [P1].",
            "citations": [{"passage": "P1", "quote": quote}],
        },
    )
    assert [c.passage_id for c in result.citations] == (["P1"] if kept else [])
    assert [c.passage_id for c in result.rejected] == ([] if kept else ["P1"])


async def test_without_a_quote_the_sentence_must_share_half_its_words_with_the_passage(
    sim_server: Any, hits: list[Hit]
) -> None:
    result = await _answer(
        sim_server,
        hits,
        {
            "answer": "O consumidor tem proteção contra publicidade enganosa [P2]. "
            "O consumidor pode devolver tudo em trinta dias sem motivo algum [P2]. "
            "A concessão exige licitação [P1].",
            "citations": [],
        },
    )
    # P2 is kept: one of its sentences is supported (the best sentence counts)
    assert [c.passage_id for c in result.citations] == ["P2", "P1"]
    assert result.rejected == []
