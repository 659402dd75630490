"""Every path through the moderation graph, with scripted models over real HTTP.

The simulated server answers through a responder that tells the roles apart by the JSON
Schema each agent asks for (its title is the output class name), so each test scripts what
every role says and then checks the outcome, the trail and what each agent was sent.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from moderation_helpers import ROLE_OF

from colmeia.apps.moderation.graph import Moderator
from colmeia.apps.moderation.records import ModerationItem
from colmeia.llm.openai_compat import OpenAIChatModel
from colmeia.sim.engine import SimRequest, SimulatedModel
from shared_data import DATA_DIR

DATA = DATA_DIR / "moderation/sample_items.json"
REWRITE_1 = "Olá! Sim, o mouse funciona sem fio por USB 2.4 GHz. Atenciosamente, equipe Logitech."
REWRITE_2 = (
    "Olá! Sim: conexão USB 2.4 GHz, 1600 DPI, pilha AA inclusa. Atenciosamente, equipe Logitech."
)


def role_of(req: SimRequest) -> str:
    schema = req.schema or {}
    return ROLE_OF[str(schema.get("title"))]


def user_text(req: SimRequest) -> str:
    return "\n".join(str(m.get("content") or "") for m in req.messages if m.get("role") == "user")


Answer = dict[str, Any] | str | Callable[[SimRequest], dict[str, Any] | str]


class Script:
    """What each role answers, call after call (the last answer repeats), and what it was sent."""

    def __init__(self, **answers: list[Answer]) -> None:
        self.answers = answers
        self.requests: defaultdict[str, list[SimRequest]] = defaultdict(list)

    def __call__(self, req: SimRequest) -> dict[str, Any] | str:
        role = role_of(req)
        seen = self.requests[role]
        seen.append(req)
        queue = self.answers[role]
        answer = queue[min(len(seen) - 1, len(queue) - 1)]
        return answer(req) if callable(answer) else answer

    def calls(self, role: str) -> int:
        return len(self.requests[role])


def review(score: int, why: str = "Resposta avaliada.") -> dict[str, Any]:
    return {"justification": why, "score": score}


def score_by_answer(original: int, rewrite: int) -> Callable[[SimRequest], dict[str, Any]]:
    """A reviewer that scores the original answer and any rewrite differently."""

    def answer(req: SimRequest) -> dict[str, Any]:
        is_rewrite = "ANSWER UNDER REVIEW: Olá! Sim" in user_text(req)
        return review(rewrite if is_rewrite else original)

    return answer


SUGGEST = {"suggestions": ["Responda se o mouse é sem fio.", "Cite a conexão USB 2.4 GHz."]}
DECIDE_ANSWER = {"reasoning": "A reescrita está correta e completa.", "decision": "answer"}
DECIDE_AGAIN = {"reasoning": "Falta citar o DPI.", "decision": "rewrite_again"}
DECIDE_WITHHOLD = {"reasoning": "Não é possível responder.", "decision": "do_not_answer"}


def rewrite(text: str) -> dict[str, Any]:
    return {"can_rewrite": True, "answer": text, "reason": ""}


@pytest.fixture
def item() -> ModerationItem:
    raw = json.loads(DATA.read_text(encoding="utf-8"))[1]  # pt, Logitech mouse
    return ModerationItem.model_validate(raw)


@pytest.fixture
async def run(sim_server: Any) -> AsyncIterator[Callable[..., Moderator]]:
    """Start a simulated server answering with ``script``; return a ready Moderator."""
    models: list[OpenAIChatModel] = []

    def make(script: Script, **kwargs: Any) -> Moderator:
        srv = sim_server(SimulatedModel(responder=script))
        model = OpenAIChatModel(base_url=srv.base_url, model="sim", max_repairs=2, backoff_base=0.0)
        models.append(model)
        return Moderator(model, **kwargs)

    yield make
    for model in models:
        await model.aclose()


def roles_in(result: dict[str, Any]) -> list[str]:
    return [step["role"] for step in result["trail"]]


async def test_good_answer_is_kept_after_two_reviews(run: Any, item: ModerationItem) -> None:
    script = Script(semantic=[review(5)], contextual=[review(4)])
    result = await run(script).moderate(item)
    assert result["outcome"] == "KEEP_ORIGINAL"
    assert result["final_answer"] == item.answer
    assert result["revisions"] == 0
    assert result["scores"]["original"] == {"semantic": 5, "contextual": 4}
    assert roles_in(result) == ["semantic", "contextual"]
    assert result["error"] is None


async def test_threshold_is_strictly_greater_and_configurable(
    run: Any, item: ModerationItem
) -> None:
    script = Script(
        semantic=[review(4)],
        contextual=[review(4)],
        suggester=[SUGGEST],
        rewriter=[rewrite(REWRITE_1)],
        decider=[DECIDE_ANSWER],
    )
    assert (await run(script).moderate(item))["outcome"] == "ANSWER_REVISED"  # 8 is not > 8
    script2 = Script(semantic=[review(4)], contextual=[review(4)])
    kept = await run(script2, threshold=7).moderate(item)
    assert kept["outcome"] == "KEEP_ORIGINAL"


async def test_flagged_answer_is_rewritten_and_accepted(run: Any, item: ModerationItem) -> None:
    script = Script(
        semantic=[score_by_answer(2, 5)],
        contextual=[score_by_answer(1, 5)],
        suggester=[SUGGEST],
        rewriter=[rewrite(REWRITE_1)],
        decider=[DECIDE_ANSWER],
    )
    result = await run(script).moderate(item)
    assert result["outcome"] == "ANSWER_REVISED"
    assert result["final_answer"] == REWRITE_1
    assert result["revisions"] == 1
    assert result["scores"]["original"] == {"semantic": 2, "contextual": 1}
    assert result["scores"]["rewrites"] == [{"semantic": 5, "contextual": 5}]
    assert roles_in(result) == [
        "semantic",
        "contextual",
        "suggester",
        "rewriter",
        "semantic",
        "contextual",
        "decider",
    ]
    step = result["trail"][0]
    assert step["output"] == {"justification": "Resposta avaliada.", "score": 2}
    assert step["model"]
    assert step["prompt_tokens"] > 0
    assert {"completion_tokens", "latency_s", "retries"} <= step.keys()
    assert result["usage"]["calls"] == 7
    # Each agent got only what it needs: the rewriter saw the suggestions, the decider the
    # original, the rewrite and the scores; the semantic reviewer never saw the context.
    assert SUGGEST["suggestions"][1] in user_text(script.requests["rewriter"][0])
    decider_sent = user_text(script.requests["decider"][0])
    assert item.answer in decider_sent
    assert REWRITE_1 in decider_sent
    assert "(2+1/10)" in decider_sent
    assert "PRODUCT CONTEXT" not in user_text(script.requests["semantic"][0])
    assert "PRODUCT CONTEXT" in user_text(script.requests["contextual"][0])


async def test_rewriter_that_cannot_rewrite_means_do_not_answer(
    run: Any, item: ModerationItem
) -> None:
    script = Script(
        semantic=[review(1)],
        contextual=[review(1)],
        suggester=[SUGGEST],
        rewriter=[{"can_rewrite": False, "answer": "", "reason": "O contexto não cita o ano."}],
    )
    result = await run(script).moderate(item)
    assert result["outcome"] == "DO_NOT_ANSWER"
    assert result["final_answer"] is None
    assert "O contexto não cita o ano." in result["reason"]
    assert roles_in(result) == ["semantic", "contextual", "suggester", "rewriter"]
    assert script.calls("decider") == 0
    assert result["revisions"] == 1  # "cannot rewrite" is an attempt, as the paper counts it


async def test_rewrite_again_then_accepted(run: Any, item: ModerationItem) -> None:
    script = Script(
        semantic=[review(2), review(4), review(5)],
        contextual=[review(2), review(3), review(5)],
        suggester=[SUGGEST],
        rewriter=[rewrite(REWRITE_1), rewrite(REWRITE_2)],
        decider=[DECIDE_AGAIN, DECIDE_ANSWER],
    )
    result = await run(script).moderate(item)
    assert result["outcome"] == "ANSWER_REVISED"
    assert result["final_answer"] == REWRITE_2
    assert result["revisions"] == 2
    assert len(result["scores"]["rewrites"]) == 2
    assert script.calls("suggester") == 1
    # The second rewrite starts from the first one and hears why it was sent back.
    second = user_text(script.requests["rewriter"][1])
    assert f"CURRENT ANSWER: {REWRITE_1}" in second
    assert DECIDE_AGAIN["reasoning"] in second
    assert roles_in(result)[-4:] == ["rewriter", "semantic", "contextual", "decider"]


@pytest.mark.parametrize("cap", [3, 1])
async def test_rewrite_cap_is_enforced_by_the_graph(
    run: Any, item: ModerationItem, cap: int
) -> None:
    script = Script(
        semantic=[review(2)],
        contextual=[review(2)],
        suggester=[SUGGEST],
        rewriter=[rewrite(REWRITE_1)],
        decider=[DECIDE_AGAIN],  # the model never stops asking for another rewrite
    )
    result = await run(script, max_rewrites=cap).moderate(item)
    assert result["outcome"] == "DO_NOT_ANSWER"
    assert result["revisions"] == cap
    assert script.calls("rewriter") == cap
    assert script.calls("decider") == cap
    assert f"rewrite cap reached ({cap} rewrites)" in result["reason"]


async def test_decider_can_withhold(run: Any, item: ModerationItem) -> None:
    script = Script(
        semantic=[review(0)],
        contextual=[review(0)],
        suggester=[SUGGEST],
        rewriter=[rewrite(REWRITE_1)],
        decider=[DECIDE_WITHHOLD],
    )
    result = await run(script).moderate(item)
    assert result["outcome"] == "DO_NOT_ANSWER"
    assert result["reason"] == DECIDE_WITHHOLD["reasoning"]


async def test_reviewer_failing_validation_is_repaired(run: Any, item: ModerationItem) -> None:
    script = Script(
        semantic=[review(9, "Nota fora da escala."), review(5)],  # 9 > 5: invalid, then fixed
        contextual=[review(5)],
    )
    result = await run(script).moderate(item)
    assert result["outcome"] == "KEEP_ORIGINAL"
    semantic = result["trail"][0]
    assert semantic["role"] == "semantic"
    assert semantic["output"]["score"] == 5
    assert semantic["repairs"] == 1
    assert script.calls("semantic") == 2
    # The repair request told the model what was wrong.
    assert "score" in json.dumps(script.requests["semantic"][1].messages, ensure_ascii=False)


async def test_model_that_never_gives_valid_output_is_an_error_with_reason(
    run: Any, item: ModerationItem
) -> None:
    script = Script(
        semantic=[review(1)],
        contextual=[review(1)],
        suggester=["Desculpe, não consigo ajudar com isso."],  # prose, every time
    )
    result = await run(script).moderate(item)
    assert result["outcome"] == "ERROR"
    assert result["error"].startswith("suggester: ModelOutputError")
    assert result["final_answer"] is None
    assert roles_in(result) == ["semantic", "contextual", "suggester"]
    assert result["trail"][-1]["error"]
    assert result["scores"]["original"] == {"semantic": 1, "contextual": 1}


@pytest.fixture
def labelled_wrong() -> ModerationItem:
    raw = json.loads(DATA.read_text(encoding="utf-8"))[2]  # correct: false, with feedback
    return ModerationItem.model_validate(raw)


async def test_labels_never_reach_the_agents(run: Any, labelled_wrong: ModerationItem) -> None:
    item = labelled_wrong
    assert item.feedback
    script = Script(
        semantic=[review(1)],
        contextual=[review(1)],
        suggester=[SUGGEST],
        rewriter=[rewrite(REWRITE_1)],
        decider=[DECIDE_ANSWER],
    )
    await run(script).moderate(item)
    sent = json.dumps(
        [r.messages for reqs in script.requests.values() for r in reqs], ensure_ascii=False
    )
    assert item.feedback not in sent
    assert '"correct"' not in sent
