"""Search the tenant's collections, and answer questions with checked citations."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request

from colmeia.llm.base import track_usage
from colmeia.rag.generate import answer_question
from colmeia.rag.retrieve import Filters, Retriever
from colmeia.service.auth import Caller, Metered, Principal, state_of
from colmeia.service.schemas import AskRequest, AskResponse, SearchRequest, SearchResponse
from colmeia.service.state import ServiceState

router = APIRouter(prefix="/v1", tags=["search"])


def retriever_for(state: ServiceState, principal: Principal, wanted: list[str]) -> Retriever:
    """A retriever over the tenant's collections (all of them when none is named)."""
    store = state.tenants.store(principal.tenant)
    have = {c.name for c in store.collections()}
    missing = [c for c in wanted if c not in have]
    if missing:
        raise HTTPException(404, f"no collection named {', '.join(map(repr, missing))}")
    names = wanted or sorted(have)
    if not names:
        raise HTTPException(409, "the tenant has no collections yet: upload documents first")
    return Retriever(store, names, embedder=state.embedder())


@router.post("/search", response_model=SearchResponse, summary="Passages for a query")
async def search(request: Request, body: SearchRequest, principal: Caller) -> SearchResponse:
    retriever = retriever_for(state_of(request), principal, body.collections)
    hits = await retriever.asearch(
        body.query,
        body.k,
        filters=Filters(doc_type=body.doc_type, year=body.year),
        per_document=body.per_document,
    )
    return SearchResponse.model_validate({"query": body.query, "hits": [h.as_dict() for h in hits]})


@router.post(
    "/ask",
    response_model=AskResponse,
    summary="An answer with checked citations (extractive when no model is configured)",
)
async def ask(request: Request, body: AskRequest, principal: Metered) -> AskResponse:
    state = state_of(request)
    retriever = retriever_for(state, principal, body.collections)
    hits = await retriever.asearch(body.question, body.k)
    with track_usage() as tracker:
        result = await answer_question(body.question, hits, state.model)
    data = result.as_dict()
    data["simulated"] = tracker.usage.simulated > 0
    data["usage"] = tracker.usage.as_dict()
    return AskResponse.model_validate(data)
