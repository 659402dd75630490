"""With a model configured and ``model_rerank`` on, the model reorders the ranking's first
candidate articles over real HTTP (colmeia's simulated server): its choice goes first, an id
it was not given is dropped, the articles it left out keep the ranking's order, and a reply
naming nothing it was given changes nothing."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from colmeia.apps.assistant.article_choice import ModelArticleReranker, apply_choice
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.llm import OpenAIChatModel
from colmeia.sim.engine import SimRequest, SimulatedModel
from colmeia.sim.server import SimServer
from colmeia.store import Store

QUESTION = "Comprei um celular pela internet e me arrependi, posso devolver?"


def _candidates(req: SimRequest) -> list[tuple[str, str]]:
    return re.findall(r"^\[(A\d+)\] ([^\n—]+?)(?: — |\n)", req.text(("system",)), re.M)


async def _ranked(store: Store, model: OpenAIChatModel | None) -> list[str]:
    rag = RagPipeline(
        store,
        "leis",
        model,
        model_reranker=ModelArticleReranker(model) if model is not None else None,
    )
    state: dict[str, Any] = {"question": QUESTION}
    state.update(await rag.analyze(state))  # type: ignore[arg-type]
    state.update(await rag.retrieve(state))  # type: ignore[arg-type]
    state.update(await rag.grade(state))  # type: ignore[arg-type]
    return [h.citation.label() for h in state["ranked"]]


def _client(srv: SimServer) -> OpenAIChatModel:
    return OpenAIChatModel(base_url=srv.base_url, model="sim", max_retries=0, timeout=10.0)


async def test_the_models_choice_goes_first_and_invented_ids_are_dropped(
    laws_store: Store, sim_server: Callable[[SimulatedModel], SimServer]
) -> None:
    shown: list[list[tuple[str, str]]] = []

    def last_then_invented(req: SimRequest) -> str:
        candidates = _candidates(req)
        shown.append(candidates)
        # the ranking's last candidate, an id nobody gave, then the ranking's first
        return json.dumps({"order": [candidates[-1][0], "A99", candidates[0][0]]})

    before = await _ranked(laws_store, None)
    async with _client(sim_server(SimulatedModel(responder=last_then_invented))) as model:
        after = await _ranked(laws_store, model)
    labels = [label.strip() for _, label in shown[0]]
    assert labels == before[: len(labels)]  # the model saw the ranking's first articles
    assert after[0] == labels[-1]
    assert after[1] == labels[0]
    # the rest keep the ranking's order
    assert after[2:] == [b for b in before if b not in (labels[-1], labels[0])]


async def test_a_reply_naming_nothing_it_was_given_keeps_the_ranking(
    laws_store: Store, sim_server: Callable[[SimulatedModel], SimServer]
) -> None:
    def invented(req: SimRequest) -> str:
        return json.dumps({"order": ["A42", "Lei 8.078/1990, Art. 49", "B1"]})

    before = await _ranked(laws_store, None)
    async with _client(sim_server(SimulatedModel(responder=invented))) as model:
        after = await _ranked(laws_store, model)
    assert after == before


def test_a_choice_is_validated_against_the_ids_given() -> None:
    ids = ["A1", "A2", "A3", "A4"]
    assert apply_choice(ids, ["A3", "a1", "A3", "[A9]"]) == [2, 0, 1, 3]
    assert apply_choice(ids, []) == [0, 1, 2, 3]
