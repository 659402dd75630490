"""The relevance gate decides whether the documents answer and which articles join the answer;
the ranking decides which comes first. An article the ranking put first is not overtaken by a
lower one that merely shares more of the question's words."""

from __future__ import annotations

from typing import Any


async def test_the_article_ranked_first_leads_the_answer_when_any_article_passes(
    assistant: Any,
) -> None:
    bot = await assistant(None)
    result = await bot.ask(
        "t", "Posso perder tudo que paguei se desistir de um consórcio ou compra parcelada?"
    )
    first = result.citations[0]
    # Red when the gate reorders: Lei 9.784's withdrawal of a request ("desistir", "pedido")
    # passes the word-coverage gate and leads; the consumer's instalments are CDC Art. 53
    assert (first["law"], first["article"]) == ("Lei 8.078/1990", "53"), result.citations
