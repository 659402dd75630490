"""A model adds to a law answer; it never loses the passage the ranking put first.

The passages an answer rests on are chosen without the model (the quality gate scores the
ranking's own answer), the model writes over them, and its citations are merged behind the
ranking's (``rag_result.ranker_first``). So the gold article's place among the passages the
answer gives (``eval.assistant.answer_passages``, what ``colmeia eval`` and the CLI's
"Fontes" both use) is never later with a model than without one — whatever the model cites.
Scripted models over real HTTP (colmeia's simulated server), the shipped laws.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assistant_helpers import Roles, passages

from colmeia.apps.assistant.rag_result import ranker_first
from colmeia.eval.assistant import GoldCitation, answer_passages, gold_rank
from colmeia.rag.generate import CheckedCitation, CitedAnswer, extractive_answer
from colmeia.rag.retrieve import Citation, Hit
from colmeia.sim.engine import Reply, SimRequest

# (question, gold article) from the shipped laws' question set and the issue
QUESTIONS = [
    ("Quais dados pessoais são considerados sensíveis pela LGPD?", GoldCitation("13709", "5")),
    (
        "Quais direitos o titular pode pedir ao controlador sobre seus dados pessoais?",
        GoldCitation("13709", "18"),
    ),
    ("Qual o prazo para interpor recurso administrativo?", GoldCitation("9784", "59")),
    # its gold ranked second offline: the case where a model could push it down
    (
        "O que caracteriza um serviço público adequado na concessão?",
        GoldCitation("8987", "6"),
    ),
]


def _cite(req: SimRequest, pids: list[str]) -> dict[str, Any]:
    found = passages(req)
    cites, sentences = [], []
    for pid in pids:
        quote = " ".join(found[pid][1].split()[:8])
        sentences.append(f"Segundo o texto, {quote} [{pid}].")
        cites.append({"passage": pid, "quote": quote})
    return {"answer": " ".join(sentences), "citations": cites}


def cites_only_the_last(req: SimRequest) -> dict[str, Any]:
    """The wrong passage: the last one it was given (seen on the 1.5B model)."""
    return _cite(req, [list(passages(req))[-1]])


def drops_the_first(req: SimRequest) -> dict[str, Any]:
    """Every passage but the first: the right one dropped, its neighbours cited."""
    return _cite(req, list(passages(req))[1:])


def _to_rag(req: SimRequest) -> Reply:
    return Reply(
        tool_calls=[{"name": "transfer_to_rag", "arguments": {"task": req.last_user_text}}]
    )


async def test_whatever_the_model_cites_the_gold_is_never_later_than_offline(
    assistant: Callable[..., Any], scripted: Callable[[Roles], Any]
) -> None:
    offline = await assistant(None)
    ranks: list[int] = []
    for writer in (cites_only_the_last, drops_the_first):
        roles = Roles(main=[_to_rag], answer=[writer])
        bot = await assistant(scripted(roles))
        for i, (question, gold) in enumerate(QUESTIONS):
            plain = await offline.ask(f"off-{i}", question)
            written = await bot.ask(f"{writer.__name__}-{i}", question)
            assert written.agent == "rag" and written.mode == "model"
            before = gold_rank(answer_passages(plain.citations, plain.sources), [gold])
            after = gold_rank(answer_passages(written.citations, written.sources), [gold])
            # Red when the citations are the model's alone, or in the model's order.
            assert before is not None and before <= 2, (question, before)
            assert after is not None and after <= before, (writer.__name__, question, after)
            first = written.citations[0]
            assert first["by"] == "ranking" and f"[{first['passage']}]" in written.answer
            ranks.append(before)
        assert len(roles.seen["answer"]) == len(QUESTIONS)  # one written answer each
    assert 1 in ranks and 2 in ranks  # a gold ranked first, and one ranked second


def _hit(chunk_id: str, article: str) -> Hit:
    path = f"Lei 9.784/1999 > Art. {article}" if article else "Lei 9.784/1999 > Anexo"
    return Hit(chunk_id, chunk_id.split("#")[0], 1.0, f"texto {chunk_id}", Citation("Lei", 1, path))


def test_a_model_citation_outside_the_ranking_is_dropped_and_the_order_is_the_rankings() -> None:
    a, b, c, outside = _hit("a#0", "59"), _hit("b#0", "58"), _hit("c#0", "60"), _hit("x#0", "")
    ranked = [a, b, c]  # what the ranking found, best first
    ranker = extractive_answer("q", [a])
    model_passages = [a, b, c, outside]

    def cited(pid: str, h: Hit) -> CheckedCitation:
        return CheckedCitation(pid, True, "", "", h.chunk_id, h.doc_id, h.citation)

    written = CitedAnswer(
        "q",
        "Primeiro [P3]. Depois [P2]. Fora [P4].",
        [cited("P3", c), cited("P4", outside), cited("P2", b)],
        passages=model_passages,
    )
    out = ranker_first(written, ranker, ranked)
    # Red without the merge: P3 first, P4 kept.
    assert [x.chunk_id for x in out.citations] == ["a#0", "b#0", "c#0"]
    assert out.citations[0].reason.startswith("trecho que a busca classificou primeiro")
    assert "[P4]" not in out.answer and out.answer.endswith("[P1]")
    assert [r.chunk_id for r in out.rejected] == ["x#0"]


def test_the_passages_shown_keep_the_rankings_place_for_what_the_model_did_not_cite() -> None:
    # The ranking's lead (rank 1), a model citation ranked 5th, the gold ranked 3rd uncited:
    # listed citations-then-sources the gold would fall to 3rd behind the model's extra; in
    # the ranking's order it keeps its place. Red when answer_passages returns
    # [*citations, *sources].
    citations = [
        {"law": "Lei 9.784/1999", "article": "1", "by": "ranking", "rank": 1},
        {"law": "Lei 9.784/1999", "article": "5", "by": "model", "rank": 5},
    ]
    sources = [
        {"law": "Lei 9.784/1999", "article": "2", "rank": 2},
        {"law": "Lei 9.784/1999", "article": "3", "rank": 3},
    ]
    shown = answer_passages(citations, sources)
    assert [p["article"] for p in shown] == ["1", "2", "3", "5"]
    assert gold_rank(shown, [GoldCitation("9784", "3")]) == 3
    # results of another pipeline (no rank): citations, then sources, as before
    assert answer_passages([{"a": 1}], [{"b": 2}]) == [{"a": 1}, {"b": 2}]
