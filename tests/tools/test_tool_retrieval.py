"""Tool retrieval picks the few tools a step needs out of many."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pytest
from catalog_tools import catalog_tools

from colmeia.tools import Tool, ToolRetriever


@pytest.fixture(scope="module")
def retriever() -> ToolRetriever:
    tools = catalog_tools()
    assert len(tools) == 80
    assert len({t.name for t in tools}) == 80
    return ToolRetriever(tools)


@pytest.mark.parametrize(
    ("task", "expected"),
    [
        (
            "What will the weather be in Recife tomorrow? Convert 100 dollars to reais at the "
            "exchange rate, and translate the answer into Spanish.",
            {"weather_forecast", "currency_convert", "translate_text"},
        ),
        (
            "A customer asks for a refund of order 4412: look up the order, check the return "
            "policy for its category and refund the payment.",
            {"lookup_order", "check_refund_policy", "issue_refund"},
        ),
        (
            "Book a flight from GRU to Lisbon on 3 May, a hotel room in Lisbon, and a rental car "
            "for five days.",
            {"flight_search", "hotel_booking", "car_rental"},
        ),
        (
            "The production server is slow: check its CPU and memory metrics, the latest CI "
            "build status, then restart it.",
            {"server_metrics", "ci_build_status", "restart_server"},
        ),
    ],
)
def test_the_right_three_tools_out_of_eighty(
    retriever: ToolRetriever, task: str, expected: set[str]
) -> None:
    chosen = retriever.select(task, k=3)
    assert {t.name for t in chosen} == expected


def test_always_included_tools_and_empty_queries(retriever: ToolRetriever) -> None:
    chosen = retriever.select("translate this sentence into Portuguese", k=2, always=["todo_add"])
    names = [t.name for t in chosen]
    assert names[0] == "todo_add"
    assert "translate_text" in names
    assert len(names) == 3
    # a query with no known word still returns k tools (registration order), never nothing
    assert len(retriever.select("zzzz qqqq", k=4)) == 4
    assert len(retriever.select("", k=4)) == 4


def test_accents_do_not_matter() -> None:
    def make(name: str, description: str) -> Tool:
        def run(numero: str) -> str:
            return numero

        return Tool.from_function(run, name=name, description=description)

    tools = [
        make(
            "situacao_processo", "Consulta a situação e as movimentações de um processo judicial."
        ),
        make("previsao_tempo", "Previsão do tempo para uma cidade: chuva e temperatura."),
        make("cotacao_moeda", "Cotação do dólar e do euro em reais."),
    ]
    retriever = ToolRetriever(tools, language="portuguese")
    assert retriever.select("qual a situacao do meu processo?", k=1)[0].name == "situacao_processo"
    assert retriever.select("PREVISÃO de chuva", k=1)[0].name == "previsao_tempo"
    assert retriever.select("cotação", k=1)[0].name == "cotacao_moeda"


class _KeywordEmbedder:
    """A toy embedder: one dimension per concept, so dense meaning differs from words."""

    CONCEPTS = (
        ("money", "currency", "dollar", "reais", "price", "pay"),
        ("sky", "weather", "rain", "sunny"),
    )

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            words_in = re.findall(r"[a-z]+", text.lower())
            rows.append([sum(w in words for w in words_in) for words in self.CONCEPTS] + [0.01])
        return np.asarray(rows, dtype=np.float32)


def test_dense_search_is_fused_when_an_embedder_is_configured() -> None:
    tools = catalog_tools()
    lexical = ToolRetriever(tools)
    hybrid = ToolRetriever(tools, embedder=_KeywordEmbedder())
    query = "is it going to be sunny?"  # no word in common with the weather tool
    assert lexical.rank(query)[0][1] == 0.0
    assert hybrid.select(query, k=1)[0].name == "weather_forecast"


async def test_a_react_agent_offers_the_model_only_the_relevant_tools(sim_server) -> None:  # type: ignore[no-untyped-def]
    from colmeia.agents import ReActAgent, RunStatus
    from colmeia.llm import OpenAIChatModel
    from colmeia.sim.engine import Reply, SimulatedModel

    sim = SimulatedModel(
        script=[
            Reply(tool_calls=[{"name": "lookup_order", "arguments": {"order_id": "4412"}}]),
            "Pedido 4412 encontrado.",
        ]
    )
    srv = sim_server(sim)
    model = OpenAIChatModel(base_url=srv.base_url, model="sim", max_retries=0, max_repairs=0)
    try:
        agent = ReActAgent(model, catalog_tools(), tool_mode="native", retrieval_k=3)
        trace = await agent.run(
            "Refund order 4412: look up the order, check the return policy, refund the payment."
        )
    finally:
        await model.aclose()
    assert trace.status is RunStatus.FINISHED
    offered = set(sim.requests[0].tool_names)
    assert offered == {"lookup_order", "check_refund_policy", "issue_refund"}
    assert trace.steps[0].observation.startswith("lookup_order called with")
