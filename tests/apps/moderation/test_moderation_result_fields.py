"""The fields of a result line that reports, cost summaries and ``--retry-errors`` read: the
trail in the order the loop ran (the two reviewers of a round always semantic first), each
step's cost as the client measured it, the usage totals that add those steps up (model calls
only: a policy check or the documents step costs nothing), the attempts counted when a rewrite
fails half-way, and the options each role's model is called with.

Scripted agents of the simulated model over real HTTP.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from moderation_helpers import ROLE_OF

from colmeia.apps.moderation.documents import ProductDocuments
from colmeia.apps.moderation.graph import OUTCOMES, Moderator
from colmeia.apps.moderation.records import ModerationItem, agent_view
from colmeia.apps.moderation.roles import ROLES, RoleModel
from colmeia.llm.openai_compat import OpenAIChatModel
from colmeia.rag.pipeline import ingest
from colmeia.sim.engine import Reply, SimRequest, SimulatedModel
from colmeia.store import open_store
from shared_data import DATA_DIR

DOCS = DATA_DIR / "moderation" / "product_docs"
PHONE = "Olá! Sim, é sem fio. Ligue (11) 98765-4321. Atenciosamente, equipe Logitech."
FIRST = "Olá! Sim, o mouse é sem fio por USB 2.4 GHz. Atenciosamente, equipe Logitech."
SECOND = "Olá! Sim: USB 2.4 GHz, 1600 DPI, pilha AA inclusa. Atenciosamente, equipe Logitech."


def role_of(req: SimRequest) -> str:
    return ROLE_OF[str((req.schema or {}).get("title"))]


class Agents:
    """Per role, what it answers call after call (the last one repeats); keeps the requests."""

    def __init__(self, **answers: list[Any]) -> None:
        self.answers = answers
        self.requests: dict[str, list[SimRequest]] = {}

    def __call__(self, req: SimRequest) -> Any:
        role = role_of(req)
        seen = self.requests.setdefault(role, [])
        seen.append(req)
        queue = self.answers[role]
        return queue[min(len(seen), len(queue)) - 1]


def review(score: int) -> dict[str, Any]:
    return {"justification": "Avaliada.", "score": score}


def rewrite(text: str) -> dict[str, Any]:
    return {"can_rewrite": True, "answer": text, "reason": ""}


SUGGEST = {"suggestions": ["Diga que é sem fio."]}
AGAIN = {"reasoning": "Falta o DPI.", "decision": "rewrite_again"}
ANSWER = {"reasoning": "Completa.", "decision": "answer"}


@pytest.fixture
async def client(sim_server: Any) -> AsyncIterator[Callable[..., OpenAIChatModel]]:
    clients: list[OpenAIChatModel] = []

    def make(agents: Agents, **settings: Any) -> OpenAIChatModel:
        srv = sim_server(SimulatedModel(responder=agents))
        options: dict[str, Any] = {"backoff_base": 0.0, "max_retries": 0} | settings
        clients.append(OpenAIChatModel(base_url=srv.base_url, model="sim", **options))
        return clients[-1]

    yield make
    for c in clients:
        await c.aclose()


def steps(result: dict[str, Any]) -> list[tuple[str, int]]:
    return [(s["role"], s["round"]) for s in result["trail"]]


async def test_the_trail_runs_in_loop_order_and_each_round_lists_semantic_before_contextual(
    client: Any, item: ModerationItem
) -> None:
    # the semantic reviewer answers late every time: contextual finishes first in each round
    late = Reply.stall(0.3, review(1))
    agents = Agents(
        semantic=[late],
        contextual=[review(1)],
        suggester=[SUGGEST],
        rewriter=[rewrite(PHONE), rewrite(FIRST), rewrite(SECOND)],
        decider=[AGAIN, ANSWER],
    )
    result = await Moderator(client(agents)).moderate(item)
    assert (result["outcome"], result["final_answer"]) == ("ANSWER_REVISED", SECOND)
    assert steps(result) == [
        ("semantic", 0),
        ("contextual", 0),
        ("suggester", 0),
        ("rewriter", 1),
        ("policy", 1),  # the phone number: back to the rewriter, no review
        ("rewriter", 2),
        ("semantic", 2),
        ("contextual", 2),
        ("decider", 2),
        ("rewriter", 3),
        ("semantic", 3),
        ("contextual", 3),
        ("decider", 3),
    ]
    assert result["revisions"] == 3
    # a rewrite the policy stopped was never reviewed: two rewrites have scores
    assert result["scores"] == {
        "original": {"semantic": 1, "contextual": 1},
        "rewrites": [{"semantic": 1, "contextual": 1}, {"semantic": 1, "contextual": 1}],
    }
    [violation] = result["policy"]["violations"]
    assert (violation["round"], violation["checked"], violation["rule"]) == (1, "rewrite", "phone")
    assert violation["message"] == "remove the phone number (11) 98765-4321"
    assert result["policy"]["name"] and result["policy"]["language"] == "pt"
    assert (result["policy"]["threshold"], result["policy"]["max_rewrites"]) == (8.0, 3)


async def test_each_step_keeps_what_its_call_cost_and_the_usage_adds_up_the_model_calls(
    client: Any, item: ModerationItem
) -> None:
    agents = Agents(
        semantic=[review(9), review(7), review(1)],  # out of the 0-5 scale twice: two repairs
        contextual=[Reply.http_error(503, "busy"), review(1)],  # one retry
        suggester=[SUGGEST],
        rewriter=[rewrite(PHONE), rewrite(FIRST)],
        decider=[ANSWER],
    )
    model = client(
        agents,
        max_retries=1,
        max_repairs=2,
        # prices with many digits: the totals are rounded, not the prices' own precision
        price_input_per_mtok=0.1234577,
        price_output_per_mtok=0.7654321,
    )
    result = await Moderator(model).moderate(item)
    assert result["outcome"] == "ANSWER_REVISED"
    trail = result["trail"]
    by_role = {(s["role"], s["round"]): s for s in trail}
    assert (by_role["semantic", 0]["repairs"], by_role["semantic", 0]["retries"]) == (2, 0)
    assert (by_role["contextual", 0]["retries"], by_role["contextual", 0]["repairs"]) == (1, 0)
    assert (by_role["semantic", 0]["requests"], by_role["contextual", 0]["requests"]) == (3, 2)
    calls = [s for s in trail if s["role"] != "policy"]
    assert len(calls) == len(trail) - 1 == 8
    for s in calls:
        assert s["model"] == "sim" and s["simulated"] is True and s["error"] is None
        assert s["prompt_tokens"] > 0 and s["completion_tokens"] > 0
        price = (s["prompt_tokens"] * 0.1234577 + s["completion_tokens"] * 0.7654321) / 1e6
        assert s["cost"] == pytest.approx(price)
        assert s["latency_s"] > 0 and s["latency_s"] == round(s["latency_s"], 4)
    policy = by_role["policy", 1]
    assert (policy["model"], policy["requests"], policy["cost"], policy["simulated"]) == (
        "",
        0,
        0.0,
        False,
    )
    usage = result["usage"]
    assert usage["calls"] == 8
    for key in ("requests", "prompt_tokens", "completion_tokens", "retries", "repairs"):
        assert usage[key] == sum(s[key] for s in calls), key
    assert (usage["requests"], usage["retries"], usage["repairs"]) == (11, 1, 2)
    # the total is rounded to 8 decimals (a hundredth of a micro-unit), no coarser
    assert usage["cost"] == pytest.approx(sum(s["cost"] for s in calls), abs=6e-9)
    assert usage["cost"] == round(usage["cost"], 8)
    assert usage["latency_s"] == pytest.approx(sum(s["latency_s"] for s in calls), abs=1e-3)
    assert usage["latency_s"] == round(usage["latency_s"], 4)
    assert (usage["simulated"], usage["failed_calls"]) == (8, 0)


async def test_a_rewriter_failing_on_the_second_attempt_counts_the_first_one_only(
    client: Any, item: ModerationItem
) -> None:
    agents = Agents(
        semantic=[review(1)],
        contextual=[review(2)],
        suggester=[SUGGEST],
        rewriter=[rewrite(FIRST), Reply.http_error(500, "boom")],
        decider=[AGAIN],
    )
    result = await Moderator(client(agents)).moderate(item)
    assert (result["outcome"], result["error_kind"]) == ("ERROR", "http")
    assert result["error"].startswith("rewriter: ModelHTTPError: ")
    assert result["revisions"] == 1  # the failed call wrote nothing
    assert steps(result)[-1] == ("rewriter", 2) and result["trail"][-1]["output"] is None
    assert result["scores"]["rewrites"] == [{"semantic": 1, "contextual": 2}]
    assert (result["usage"]["calls"], result["usage"]["failed_calls"]) == (8, 1)


async def test_each_role_is_called_with_its_own_temperature_and_token_limit(
    client: Any, item: ModerationItem
) -> None:
    agents = Agents(
        semantic=[review(1)],
        contextual=[review(1)],
        suggester=[SUGGEST],
        rewriter=[rewrite(FIRST)],
        decider=[ANSWER],
    )
    model = client(agents, temperature=0.5, max_tokens=77)  # the client's own defaults
    options: dict[str, tuple[float | None, int | None]] = {
        "semantic": (None, None),  # none of its own: the client's defaults apply
        "contextual": (0.0, 256),
        "suggester": (0.3, None),
        "rewriter": (0.7, 900),
        "decider": (None, 64),
    }
    models = {r: RoleModel(model, *options[r]) for r in ROLES}
    result = await Moderator(models).moderate(item)
    assert result["outcome"] == "ANSWER_REVISED"
    for role, (temperature, max_tokens) in options.items():
        for req in agents.requests[role]:
            assert req.body.get("temperature") == (0.5 if temperature is None else temperature)
            limit = req.body.get("max_tokens", req.body.get("max_completion_tokens"))
            assert limit == (77 if max_tokens is None else max_tokens), role


async def test_a_documents_store_that_fails_costs_the_item_before_any_model_call(
    client: Any, item: ModerationItem, tmp_path: Path
) -> None:
    """The failure is the item's, not the batch's; no policy was resolved into the state yet,
    so the line has none, and nothing was spent."""
    agents = Agents(semantic=[review(5)], contextual=[review(5)])
    db = tmp_path / "docs.db"
    store = open_store(f"sqlite:///{db}", cache_dir=tmp_path / "cache")
    try:
        ingest(store, "produtos", [DOCS], relative_to=DOCS)
    finally:
        store.close()
    broken = ProductDocuments.open(str(db), "produtos")
    broken.close()  # a store that went away under the run
    result = await Moderator(client(agents), documents=broken).moderate(item)
    assert result["outcome"] == "ERROR" and result["outcome"] in OUTCOMES
    assert result["error_kind"] == "internal"
    # the exception's type and message, as the store raised them
    assert result["error"].startswith("internal error: StoreError: SQLite store ")
    assert result["error"].endswith("Cannot operate on a closed database."), result["error"]
    assert (result["trail"], result["policy"], result["documents"]) == ([], None, None)
    assert result["scores"] == {"original": None, "rewrites": []}
    assert (result["usage"]["calls"], result["usage"]["cost"]) == (0, 0.0)
    assert agents.requests == {}


async def test_a_review_round_one_reviewer_did_not_finish_has_no_score(
    client: Any, item: ModerationItem
) -> None:
    """A score is a pair: a rewrite only the semantic reviewer scored is not reported as
    scored (the report's before/after comparison would compare half a review)."""
    agents = Agents(
        semantic=[review(1), review(4)],
        contextual=[review(2), Reply.http_error(500, "boom")],
        suggester=[SUGGEST],
        rewriter=[rewrite(FIRST)],
    )
    result = await Moderator(client(agents)).moderate(item)
    assert (result["outcome"], result["error_kind"]) == ("ERROR", "http")
    assert result["error"].startswith("contextual: ModelHTTPError: ")
    assert steps(result)[-2:] == [("semantic", 1), ("contextual", 1)]
    assert result["trail"][-2]["output"] == review(4)  # the finished half is in the trail
    assert result["scores"] == {"original": {"semantic": 1, "contextual": 2}, "rewrites": []}
    assert result["revisions"] == 1


async def test_an_agent_view_is_moderated_like_the_record_it_comes_from(
    client: Any, item: ModerationItem
) -> None:
    """A caller holding only what the agents see (no labels, no store) gets the same loop."""
    agents = Agents(
        semantic=[review(1)],
        contextual=[review(1)],
        suggester=[SUGGEST],
        rewriter=[rewrite(FIRST)],
        decider=[ANSWER],
    )
    model = client(agents)
    from_record = await Moderator(model).moderate(item)
    from_view = await Moderator(model).moderate(agent_view(item))
    for result in (from_record, from_view):
        assert (result["outcome"], result["final_answer"]) == ("ANSWER_REVISED", FIRST)
    assert steps(from_view) == steps(from_record)
    assert from_view["policy"] == from_record["policy"]


async def test_a_rewriter_that_gives_up_without_a_reason_is_said_to_lack_information(
    client: Any, item: ModerationItem
) -> None:
    agents = Agents(
        semantic=[review(1)],
        contextual=[review(1)],
        suggester=[SUGGEST],
        rewriter=[{"can_rewrite": False, "answer": "", "reason": ""}],
    )
    result = await Moderator(client(agents)).moderate(item)
    assert (result["outcome"], result["reason_code"]) == ("DO_NOT_ANSWER", "rewriter_could_not")
    assert result["reason"] == "rewriter cannot rewrite: not enough information"
    assert (result["final_answer"], result["revisions"]) == (None, 1)
