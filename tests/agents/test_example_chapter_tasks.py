"""The chapter's own three tasks run offline with the scripted model, showing its reasoning:
a question looked up with a search (ReAct, a local index standing in for the web), the apples
computed step by step (Plan-and-Solve), and primes refined by a critic (Reflection)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from examples.chapter_tasks.local_search import LocalSearch, Page  # noqa: E402
from examples.chapter_tasks.run import main  # noqa: E402

from colmeia.errors import ConfigurationError, ToolError  # noqa: E402


@pytest.fixture(scope="module")
def traces() -> dict[str, Any]:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["all", "--demo", "--json"]) == 0
    return {t["example"]: t for t in map(json.loads, out.getvalue().splitlines())}


def test_the_search_question_is_looked_up_then_answered_from_the_result(
    traces: dict[str, Any],
) -> None:
    trace = traces["search"]
    tools = [s for s in trace["steps"] if s["kind"] == "tool"]
    assert [s["tool"] for s in tools] == ["web_search"]
    assert "ESTAGIO_PROFISSIONAL" in tools[0]["observation"].split("\n")[0]  # the right page first
    assert trace["status"] == "finished"
    assert "4 horas diárias" in trace["answer"] and "11.788/2008" in trace["answer"]


def test_the_apples_are_planned_then_computed_on_the_earlier_results(
    traces: dict[str, Any],
) -> None:
    trace = traces["apples"]
    calls = [s["input"]["expression"] for s in trace["steps"] if s["kind"] == "tool"]
    assert calls == ["15 * 2", "30 - 5", "15 + 30 + 25"]
    assert trace["answer"] == "A frutaria vendeu 70 maçãs nos três dias."


def test_primes_are_refined_until_the_critic_is_satisfied(traces: dict[str, Any]) -> None:
    trace = traces["primes"]
    kinds = [s["kind"] for s in trace["steps"]]
    assert kinds == ["attempt", "critique", "refine", "critique"]
    first, last = trace["steps"][0]["observation"], trace["answer"]
    assert "% d" in first and "crivo de Eratóstenes" in last  # trial division → the sieve
    scores = [s["meta"]["score"] for s in trace["steps"] if s["kind"] == "critique"]
    assert scores[0] < 0.8 <= scores[-1]


def test_the_local_search_ranks_the_page_that_answers_and_refuses_an_empty_query() -> None:
    search = LocalSearch.faquad()
    assert search.search("lei que rege o estágio de estudantes")[0].title == "ESTAGIO_PROFISSIONAL"
    assert search.search("o de a") == []  # only stopwords: nothing to look for
    with pytest.raises(ToolError, match="no result"):
        search.tool().func(query="de que")
    with pytest.raises(ConfigurationError, match="no pages"):
        LocalSearch([])


def test_one_page_index_still_answers() -> None:
    search = LocalSearch([Page("T", "faquad://t/1", "O crivo de Eratóstenes acha primos.")])
    assert [p.title for p in search.search("crivo primos")] == ["T"]


def test_with_hierarchical_the_plan_has_sub_steps_carried_out_in_order() -> None:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["apples", "--demo", "--json", "--hierarchical"]) == 0
    trace = json.loads(out.getvalue())
    plan = trace["steps"][0]["meta"]["plan"]["steps"]
    assert [len(s["substeps"]) for s in plan] == [2, 0]
    done = [(s["meta"]["plan_step"], s["input"]["expression"]) for s in trace["steps"]
            if s["kind"] == "tool"]  # fmt: skip
    assert done == [("1.1", "15 * 2"), ("1.2", "30 - 5"), ("2", "15 + 30 + 25")]
    assert trace["answer"] == "A frutaria vendeu 70 maçãs nos três dias."
