"""What a user reads on an ERROR line: which role failed, what kind of failure it was (the
``error_kind`` a batch stops on, a report groups by, ``--retry-errors`` redoes), and every step
taken before it, with what the failed call cost. A refused key is ``auth``, not a timeout; a
server that hangs is ``timeout``, not ``http``; a model that writes prose is ``output``.

Real HTTP to a simulated server (a closed port for the unreachable one); the decider is the
one that fails, so the steps before it are in the trail.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from moderation_helpers import ROLE_OF, DeciderFails

from colmeia.apps.moderation.graph import ENDPOINT_ERRORS, Moderator, error_kind
from colmeia.apps.moderation.records import ModerationItem
from colmeia.errors import (
    ConfigurationError,
    ModelContextLengthError,
    ModelError,
    ModelHTTPError,
    ModelOutputError,
    ModelProtocolError,
    ModelTimeoutError,
    ModelUnreachableError,
    ModelUnsupportedError,
)
from colmeia.llm.openai_compat import OpenAIChatModel
from colmeia.sim.engine import Reply, SimRequest, SimulatedModel

REWRITE = "Olá! Sim, o mouse é sem fio por USB 2.4 GHz. Atenciosamente, equipe Logitech."


def decider_answers(decider: Reply | str) -> Callable[[SimRequest], Any]:
    """Reviewers flag the original and like the rewrite; the decider answers ``decider``."""

    def respond(req: SimRequest) -> Any:
        role = ROLE_OF[str((req.schema or {}).get("title"))]
        user = "\n".join(str(m.get("content")) for m in req.messages if m.get("role") == "user")
        if role in ("semantic", "contextual"):
            return {"justification": "ok", "score": 4 if REWRITE in user else 1}
        if role == "suggester":
            return {"suggestions": ["Diga que é sem fio."]}
        if role == "rewriter":
            return {"can_rewrite": True, "answer": REWRITE, "reason": ""}
        return decider

    return respond


@pytest.fixture
async def moderator(sim_server: Any) -> AsyncIterator[Callable[..., Moderator]]:
    models: list[OpenAIChatModel] = []

    def make(decider: Reply | str, **client: Any) -> Moderator:
        srv = sim_server(SimulatedModel(responder=decider_answers(decider)))
        settings: dict[str, Any] = {"max_retries": 0, "max_repairs": 0, "backoff_base": 0.0}
        models.append(OpenAIChatModel(base_url=srv.base_url, model="sim", **settings | client))
        return Moderator(models[-1])

    yield make
    for m in models:
        await m.aclose()


FAILURES = [
    pytest.param(Reply.http_error(401, "bad key"), "auth", "ModelHTTPError", id="401"),
    pytest.param(Reply.http_error(403, "no access"), "auth", "ModelHTTPError", id="403"),
    pytest.param(Reply.http_error(404, "no such model"), "not_found", "ModelHTTPError", id="404"),
    pytest.param(Reply.http_error(500, "boom"), "http", "ModelHTTPError", id="500"),
    pytest.param(Reply.http_error(400, "bad request"), "http", "ModelHTTPError", id="400"),
    pytest.param("Vou pensar com calma.", "output", "ModelOutputError", id="prose"),
]


@pytest.mark.parametrize(("decider", "kind", "error_type"), FAILURES)
async def test_a_failed_decider_is_an_error_line_of_its_kind_with_the_steps_before_it(
    moderator: Any, item: ModerationItem, decider: Reply | str, kind: str, error_type: str
) -> None:
    result = await moderator(decider).moderate(item)
    assert result["outcome"] == "ERROR"
    assert result["error_kind"] == kind
    assert result["error"].startswith(f"decider: {error_type}: ")
    # an ERROR line never carries an answer or an ending's reason: it is to be run again
    assert (result["final_answer"], result["reason_code"], result["reason"]) == (None, None, "")
    steps = [(s["role"], s["round"]) for s in result["trail"]]
    assert steps == [
        ("semantic", 0),
        ("contextual", 0),
        ("suggester", 0),
        ("rewriter", 1),
        ("semantic", 1),
        ("contextual", 1),
        ("decider", 1),
    ]
    failed = result["trail"][-1]
    assert failed["output"] is None and failed["error"].startswith(f"{error_type}: ")
    assert failed["model"] == "sim"
    assert result["error"] == f"decider: {failed['error']}"  # the client's own message
    assert failed["requests"] >= 1  # what the failed call cost is kept
    assert [s["error"] for s in result["trail"][:-1]] == [None] * 6
    assert result["revisions"] == 1
    assert result["scores"] == {
        "original": {"semantic": 1, "contextual": 1},
        "rewrites": [{"semantic": 4, "contextual": 4}],
    }
    assert (result["usage"]["calls"], result["usage"]["failed_calls"]) == (7, 1)
    assert result["policy"] is not None and result["policy"]["violations"] == []


async def test_a_server_that_hangs_is_a_timeout_not_a_refusal(
    moderator: Any, item: ModerationItem
) -> None:
    # the server would answer after a minute; the client's deadline gives up long before
    hangs = Reply.stall(60, {"reasoning": "tarde demais", "decision": "answer"})
    result = await moderator(hangs, timeout=0.5, deadline=1.0).moderate(item)
    assert result["outcome"] == "ERROR"
    assert result["error_kind"] == "timeout"
    assert result["error"].startswith("decider: ModelTimeoutError: ")
    assert result["error_kind"] not in ENDPOINT_ERRORS  # a slow server does not stop a batch


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_a_server_that_is_not_there_is_unreachable_and_both_reviewers_say_so(
    item: ModerationItem,
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    async with OpenAIChatModel(base_url=url, model="sim", max_retries=0) as model:
        result = await Moderator(model).moderate(item)
    assert result["outcome"] == "ERROR"
    assert result["error_kind"] == "unreachable" and "unreachable" in ENDPOINT_ERRORS
    # both reviewers ran to the end; the first one's failure is the item's
    assert result["error"].startswith("semantic: ModelUnreachableError: ")
    assert [(s["role"], s["round"]) for s in result["trail"]] == [
        ("semantic", 0),
        ("contextual", 0),
    ]
    assert all(s["error"].startswith("ModelUnreachableError") for s in result["trail"])
    assert (result["usage"]["calls"], result["usage"]["failed_calls"]) == (2, 2)
    assert result["revisions"] == 0
    assert result["scores"] == {"original": None, "rewrites": []}


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (ModelUnreachableError("no route"), "unreachable"),
        (ModelTimeoutError("deadline"), "timeout"),
        (ModelOutputError("prose"), "output"),
        (ModelHTTPError("unauthorised", status=401), "auth"),
        (ModelHTTPError("forbidden", status=403), "auth"),
        (ModelHTTPError("missing", status=404), "not_found"),
        (ModelHTTPError("teapot", status=418), "http"),
        (ModelHTTPError("overloaded", status=503), "http"),
        (ModelContextLengthError("too long", status=400), "http"),
        (ModelUnsupportedError("no tools", status=400, feature="tools"), "http"),
        (ModelProtocolError("cut stream"), "model"),
        (ModelError("something else"), "model"),
        (ConfigurationError("not a model failure"), "internal"),
        (KeyError("choices"), "internal"),
    ],
)
def test_each_failure_has_one_kind(exc: BaseException, kind: str) -> None:
    """The kinds a batch and a report tell apart; only a server that cannot be used at all
    (unreachable, a refused key, a wrong address) is an endpoint error."""
    assert error_kind(exc) == kind
    assert (kind in ENDPOINT_ERRORS) == (kind in ("unreachable", "auth", "not_found"))


async def _own_deadline_passes() -> None:
    await asyncio.sleep(0.01)  # it waited a little before giving up
    raise ModelTimeoutError("own deadline passed")  # no usage: not the client's error


async def test_a_failure_of_a_users_own_model_keeps_the_time_it_took_and_costs_no_tokens(
    sim_server: Any, item: ModerationItem
) -> None:
    srv = sim_server(SimulatedModel(responder=decider_answers("unused")))
    async with OpenAIChatModel(base_url=srv.base_url, model="sim") as inner:
        # a user's own model enforcing a deadline of its own on the decider, giving up without
        # saying what the call cost
        own = DeciderFails(inner, _own_deadline_passes, name="own-model")
        moderator = Moderator(own)  # type: ignore[arg-type]
        started = time.perf_counter()
        result = await moderator.moderate(item)
        took = time.perf_counter() - started
    assert (result["outcome"], result["error_kind"]) == ("ERROR", "timeout")
    assert result["error"] == "decider: ModelTimeoutError: own deadline passed"
    failed = result["trail"][-1]
    assert failed["role"] == "decider" and failed["model"] == "own-model"
    assert failed["error"] == "ModelTimeoutError: own deadline passed"
    assert (failed["requests"], failed["prompt_tokens"], failed["cost"]) == (0, 0, 0.0)
    # measured around the call, as the client would have: a part of the item's own time
    assert 0 < failed["latency_s"] <= took


async def test_when_one_reviewer_fails_the_other_is_waited_for_and_its_cost_kept(
    sim_server: Any, item: ModerationItem
) -> None:
    """The refused semantic call ends the item, but only once the slower contextual call has
    come back: what it cost is part of what the failed item cost."""

    def respond(req: SimRequest) -> Any:
        if ROLE_OF[str((req.schema or {}).get("title"))] == "semantic":
            return Reply.http_error(401, "bad key")
        return Reply.stall(0.5, {"justification": "ok", "score": 3})

    srv = sim_server(SimulatedModel(responder=respond))
    async with OpenAIChatModel(base_url=srv.base_url, model="sim", max_retries=0) as model:
        result = await Moderator(model).moderate(item)
    assert (result["outcome"], result["error_kind"]) == ("ERROR", "auth")
    assert result["error"].startswith("semantic: ModelHTTPError: ")
    semantic, contextual = result["trail"]
    assert (semantic["role"], semantic["output"]) == ("semantic", None)
    assert (contextual["role"], contextual["output"]) == (
        "contextual",
        {"justification": "ok", "score": 3},
    )
    assert (result["usage"]["calls"], result["usage"]["failed_calls"]) == (2, 1)
    assert result["usage"]["completion_tokens"] == contextual["completion_tokens"] > 0
