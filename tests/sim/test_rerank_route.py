"""The simulated server's /rerank speaks both wire formats rerank clients use."""

from __future__ import annotations

import httpx

from colmeia.sim import SimulatedModel


def test_rerank_answers_cohere_and_tei_bodies_best_first(sim_server) -> None:  # type: ignore[no-untyped-def]
    srv = sim_server(SimulatedModel())
    docs = ["o gato dorme", "licitação de obras públicas", "obras na praça"]
    cohere = httpx.post(
        f"{srv.base_url}/rerank", json={"query": "licitação de obras", "documents": docs}
    ).json()
    assert [r["index"] for r in cohere["results"]] == [1, 2, 0]
    assert cohere["results"][0]["relevance_score"] == 1.0  # every query word is in it
    tei = httpx.post(
        f"{srv.url}/rerank", json={"query": "licitação de obras", "texts": docs, "top_n": 1}
    ).json()
    assert tei == [{"index": 1, "score": 1.0}]
    bad = httpx.post(f"{srv.base_url}/rerank", json={"documents": docs})
    assert bad.status_code == 400
    assert srv.sim.stats()["rerank_requests"] == 2
