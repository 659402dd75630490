"""The question's own words decide the answer unless a reformulation does clearly better and
passes the quality gate; and the query keeps the question's first word ("Em quanto tempo…",
"Empresas de saúde…": the leading-filler rule once took their "E")."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.rag_query import analyze_query
from colmeia.rag.pipeline import ingest
from colmeia.store import Store, open_store

LAWS = Path(__file__).resolve().parents[3] / "data" / "laws" / "lexml"


@pytest.fixture(scope="module")
def laws(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = open_store(str(tmp_path_factory.mktemp("first") / "laws.db"))
    ingest(store, "docs", [LAWS])
    return store


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("Em quanto tempo a loja tem que trocar?", "Em quanto tempo a loja tem que trocar"),
        ("Empresas podem vender dados?", "Empresas podem vender dados"),
        ("Qualquer pessoa pode pedir?", "Qualquer pessoa pode pedir"),
        ("O que é fornecedor?", "fornecedor"),
        ("É crime vender produto vencido?", "crime vender produto vencido"),
    ],
)
def test_only_whole_filler_words_leave_the_query(question: str, query: str) -> None:
    assert analyze_query(question)["processed"] == query


def test_a_deadline_question_is_answered_from_its_own_words(laws: Store) -> None:
    # CDC Art. 18 § 1º: "Não sendo o vício sanado no prazo máximo de trinta dias…"
    result = asyncio.run(
        RagPipeline(laws, "docs", None).run(
            "Em quanto tempo a loja tem que consertar o produto com defeito?"
        )
    )
    assert result["citations"][0]["label"].startswith("Lei 8.078/1990, Art. 18")


def _attempt(laws: Store, question: str, passage: str, best: float) -> tuple[float, bool]:
    """One attempt answered by the law's ``passage`` (an article's path) after an earlier
    answer of quality ``best``: its quality, and whether it replaced the earlier one."""
    from colmeia.rag.generate import extractive_answer
    from colmeia.rag.retrieve import Retriever

    hits = [
        h
        for h in Retriever(laws, "docs").search(f"{question} {passage}", k=50)
        if h.citation.path == passage
    ]
    assert hits, passage
    rag = RagPipeline(laws, "docs", None)
    state = {
        "question": question,
        "query": question,
        "analysis": analyze_query(question),
        "answer": extractive_answer(question, hits[:1]),
        "passages": hits[:1],
        "best": {"quality": best, "answer": None},
    }
    out = asyncio.run(rag.validate(state))  # type: ignore[arg-type]
    return out["quality"], "best" in out


def test_a_retry_replaces_the_first_answer_only_when_it_passes_the_gate(laws: Store) -> None:
    question = "qual o prazo para interpor recurso administrativo?"
    # a passage on appeals that states no time span: better than nothing, not an answer
    quality, replaced = _attempt(laws, question, "Lei 9.784/1999, Art. 56", best=0.1)
    assert 0.15 < quality <= 0.7 and not replaced
    # the deadline itself ("dez dias"): it passes the gate and replaces the earlier answer
    quality, replaced = _attempt(laws, question, "Lei 9.784/1999, Art. 59", best=0.1)
    assert quality > 0.7 and replaced
