"""The limits of citation checking, as a reader of the checked answer sees them.

A quote holds when it is in the passage or shares at least 80 % of its content words with it;
a citation without a quote holds when a sentence citing it shares at least half of its content
words with the passage (the ``[P…]`` markers are not words). A citation of a passage that was
not given is rejected with its quote kept, so the reader sees what was claimed.
"""

from __future__ import annotations

from typing import Any

from colmeia.llm import OpenAIChatModel
from colmeia.rag.generate import CitedAnswer, answer_question
from colmeia.rag.retrieve import Citation, Hit
from colmeia.sim.engine import SimulatedModel

PASSAGE = "A concessão será precedida de licitação na modalidade concorrência."
HITS = [Hit("lei#1", "lei.md", 1.0, PASSAGE, Citation("Lei 8.987/1995", 1, "Art. 14"), "leis", 1)]


async def _answer(sim_server: Any, reply: dict[str, Any]) -> CitedAnswer:
    srv = sim_server(SimulatedModel(script=[reply]))
    async with OpenAIChatModel(
        base_url=srv.base_url, model="sim", api_key="x", max_repairs=1
    ) as model:
        return await answer_question("Como é feita a concessão?", HITS, model)


async def test_a_quote_sharing_exactly_four_of_five_words_holds(sim_server: Any) -> None:
    quote = "concessão precedida licitação modalidade leilão"  # 4 of 5 stems in the passage
    result = await _answer(
        sim_server,
        {"answer": "Há licitação [P1].", "citations": [{"passage": "P1", "quote": quote}]},
    )
    assert [c.as_dict()["reason"] for c in result.citations] == [""]
    assert result.citations[0].supported is True and result.citations[0].quote == quote
    assert result.rejected == []


async def test_a_sentence_sharing_exactly_half_its_words_holds(sim_server: Any) -> None:
    # concessão, licitação in the passage; exige, tarifa not: 2 of 4, the marker not counted
    result = await _answer(
        sim_server, {"answer": "Concessão exige licitação e tarifa [P1].", "citations": []}
    )
    assert [c.passage_id for c in result.citations] == ["P1"]
    assert result.citations[0].reason == ""
    assert result.answer == "Concessão exige licitação e tarifa [P1]."


async def test_a_quote_of_only_small_words_supports_nothing(sim_server: Any) -> None:
    result = await _answer(
        sim_server,
        {"answer": "Há licitação [P1].", "citations": [{"passage": "P1", "quote": "e o que"}]},
    )
    assert result.citations == []
    assert [(c.passage_id, c.supported, c.reason, c.quote) for c in result.rejected] == [
        ("P1", False, "the quote is not in the cited passage", "e o que")
    ]


async def test_a_citation_of_a_passage_not_given_is_rejected_with_its_quote(
    sim_server: Any,
) -> None:
    result = await _answer(
        sim_server,
        {
            "answer": "Há licitação [P1]. A multa é de 2% [P9].",
            "citations": [{"passage": "P9", "quote": "multa de 2%"}],
        },
    )
    assert [r.as_dict() for r in result.rejected] == [
        {
            "passage_id": "P9",
            "supported": False,
            "reason": "unknown passage id",
            "quote": "multa de 2%",
            "chunk_id": "",
            "doc_id": "",
            "citation": None,
        }
    ]
    assert "[P9]" not in result.answer and "[P1]" in result.answer


async def test_a_bracketed_or_repeated_citation_counts_once_by_its_first_quote(
    sim_server: Any,
) -> None:
    result = await _answer(
        sim_server,
        {
            "answer": "Há licitação [P1].",
            "citations": [
                {"passage": " [p1] ", "quote": "precedida de licitação"},
                {"passage": "P1", "quote": "uma frase inventada"},
            ],
        },
    )
    assert [(c.passage_id, c.quote) for c in result.citations] == [("P1", "precedida de licitação")]
    assert result.rejected == []


async def test_a_removed_marker_leaves_no_double_space_nor_space_before_a_stop(
    sim_server: Any,
) -> None:
    result = await _answer(
        sim_server,
        {"answer": "Há licitação [P9] em todas as concessões [P1]. Sempre [P9].", "citations": []},
    )
    assert result.answer == "Há licitação em todas as concessões [P1]. Sempre."


async def test_at_most_eight_passages_are_given_to_the_answer() -> None:
    hits = [
        Hit(
            f"lei#{n}",
            "lei.md",
            1.0 / n,
            f"Trecho {n}.",
            Citation("Lei", 1, f"Art. {n}"),
            "leis",
            n,
        )
        for n in range(1, 10)
    ]
    result = await answer_question("Quais são os artigos?", hits, None)
    assert len(result.passages) == 8 and result.question == "Quais são os artigos?"
