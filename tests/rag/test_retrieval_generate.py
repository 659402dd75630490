"""Cited answers from a scripted model over HTTP, citation checking, extractive fallback,
and the rerankers (LLM scorer over HTTP, an HTTP rerank API)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from rag_fixtures import laws_folder

from colmeia.llm import OpenAIChatModel
from colmeia.rag.generate import answer_question
from colmeia.rag.pipeline import ingest
from colmeia.rag.rerank import HTTPReranker, LLMReranker, NoReranker
from colmeia.rag.retrieve import Hit, Retriever
from colmeia.sim.engine import SimRequest, SimulatedModel
from colmeia.store import open_store


@pytest.fixture
def hits(tmp_path: Path) -> list[Hit]:
    store = open_store(str(tmp_path / "c.db"))
    ingest(store, "leis", [laws_folder(tmp_path / "docs")])
    found = Retriever(store, "leis").search("concessão licitação concorrência consumidor", 4)
    store.close()
    assert found[0].doc_id.endswith("concessao.md")
    return found


def _model(srv) -> OpenAIChatModel:  # type: ignore[no-untyped-def]
    return OpenAIChatModel(base_url=srv.base_url, model="sim", api_key="x", max_repairs=1)


async def test_supported_citations_are_kept_and_the_others_removed(sim_server, hits) -> None:  # type: ignore[no-untyped-def]
    reply = {
        "answer": "A concessão é precedida de licitação na modalidade concorrência [P1]. "
        "O consumidor pode voar [P2]. Veja também [P9].",
        "citations": [
            {"passage": "P1", "quote": "precedida de licitação na modalidade concorrência"},
            {"passage": "P2", "quote": "o consumidor pode voar"},
            {"passage": "P9", "quote": "qualquer coisa"},
        ],
    }
    srv = sim_server(SimulatedModel(script=[reply]))
    model = _model(srv)
    result = await answer_question("Como é feita a concessão?", hits, model)
    await model.aclose()

    assert [c.passage_id for c in result.citations] == ["P1"]
    assert result.citations[0].chunk_id == hits[0].chunk_id
    assert result.citations[0].citation is not None
    rejected = {c.passage_id: c.reason for c in result.rejected}
    assert rejected == {
        "P2": "the quote is not in the cited passage",
        "P9": "unknown passage id",
    }
    assert "[P1]" in result.answer
    assert "[P2]" not in result.answer
    assert "[P9]" not in result.answer
    assert result.extractive is False
    # The model saw the passages, numbered, in its prompt.
    prompt = srv.sim.requests[-1].messages[0]["content"]
    assert "[P1]" in prompt
    assert hits[0].text in prompt


async def test_a_citation_without_quote_is_checked_against_its_sentence(sim_server, hits) -> None:  # type: ignore[no-untyped-def]
    reply = {
        "answer": "O edital de licitação traz os critérios de julgamento [P1]. "
        "A Lua é feita de queijo [P2].",
        "citations": [],
    }
    srv = sim_server(SimulatedModel(script=[reply]))
    model = _model(srv)
    result = await answer_question("O que traz o edital?", hits, model)
    await model.aclose()
    assert [c.passage_id for c in result.citations] == ["P1"]
    assert [c.passage_id for c in result.rejected] == ["P2"]
    assert result.rejected[0].reason == "the cited passage does not support the sentence"


async def test_a_citation_kept_on_its_quote_gets_its_marker_in_the_text(sim_server, hits) -> None:  # type: ignore[no-untyped-def]
    reply = {
        "answer": "A concessão depende de licitação.",
        "citations": [
            {"passage": "P1", "quote": "precedida de licitação na modalidade concorrência"}
        ],
    }
    srv = sim_server(SimulatedModel(script=[reply]))
    model = _model(srv)
    result = await answer_question("Como é feita a concessão?", hits, model)
    await model.aclose()
    assert [c.passage_id for c in result.citations] == ["P1"]
    assert result.answer == "A concessão depende de licitação. [P1]"


async def test_a_model_that_writes_no_answer_gives_way_to_the_cited_passages(
    sim_server, hits
) -> None:  # type: ignore[no-untyped-def]
    # Seen on the local 0.5B model: valid JSON with an empty answer. The person gets the best
    # passages, cited, and the reason, never an empty answer.
    srv = sim_server(SimulatedModel(script=[{"answer": " [P1] ", "citations": []}]))
    model = _model(srv)
    result = await answer_question("Como é feita a concessão?", hits, model)
    await model.aclose()
    assert result.withheld == "empty_answer"
    assert result.extractive is True and result.model == "sim"
    assert result.answer.startswith("[P1] ") and hits[0].text in result.answer
    assert [c.chunk_id for c in result.citations] == [h.chunk_id for h in hits[:3]]


async def test_without_a_model_the_answer_is_extractive(hits) -> None:  # type: ignore[no-untyped-def]
    result = await answer_question("Como é feita a concessão?", hits, None)
    assert result.extractive is True
    assert result.answer.startswith("[P1] ")
    assert hits[0].text in result.answer
    assert [c.chunk_id for c in result.citations] == [h.chunk_id for h in hits[:3]]
    assert all(c.supported for c in result.citations)


async def test_llm_reranker_orders_by_the_model_scores(sim_server, hits) -> None:  # type: ignore[no-untyped-def]
    def score(req: SimRequest) -> dict[str, object]:
        prompt = req.messages[0]["content"]
        return {"score": 9 if "consumidor" in prompt else 2, "reason": "ok"}

    srv = sim_server(SimulatedModel(responder=score))
    model = _model(srv)
    reranked = await LLMReranker(model, top_n=10).rerank("direitos", hits)
    await model.aclose()
    assert "consumidor" in reranked[0].text
    assert reranked[0].score == 9.0
    assert sorted(h.chunk_id for h in reranked) == sorted(h.chunk_id for h in hits)
    assert await NoReranker().rerank("x", hits) == hits


class _RerankHandler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        docs = body["documents"]
        results = [
            {"index": i, "relevance_score": 0.9 if "fornecedor" in d else 0.1}
            for i, d in enumerate(docs)
        ]
        payload = json.dumps({"results": results}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def rerank_url() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _RerankHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


async def test_http_rerank_api(rerank_url: str, hits) -> None:  # type: ignore[no-untyped-def]
    reranked = await HTTPReranker(rerank_url, "rr").rerank("tratamento", hits)
    assert "fornecedor" in reranked[0].text
    assert reranked[0].chunk_id != hits[0].chunk_id
    assert reranked[0].score == pytest.approx(0.9)


def test_the_streamed_answer_field_decodes_escapes_cut_between_pieces() -> None:
    from colmeia.rag.generate import _JsonField

    raw = (
        '```json\n{"answer": "Linha 1\\nCafé \\u00e9 \\ud83d\\ude00 \\"x\\" [P1]", "citations": []}'
    )
    field = _JsonField("answer")
    shown = ""
    for i, ch in enumerate(raw):  # one character at a time: every escape is cut somewhere
        shown += field.feed(ch)
        if not field.done:
            assert i < raw.index('", "citations"') + 1
    assert field.done
    assert shown == 'Linha 1\nCafé é 😀 "x" [P1]'
