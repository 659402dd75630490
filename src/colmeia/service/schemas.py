"""Request and response bodies of the HTTP API (Pydantic: validated in, documented in OpenAPI)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from colmeia.service.names import NewName
from colmeia.store.base import NAME_RULE

__all__ = [
    "AskRequest",
    "AskResponse",
    "AuditEntry",
    "CitationOut",
    "CollectionCreate",
    "CollectionOut",
    "DocumentOut",
    "JobOut",
    "MeOut",
    "PassageOut",
    "SearchRequest",
    "SearchResponse",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MeOut(BaseModel):
    tenant: str
    actor: str
    role: str
    via: str
    rate_limit_per_minute: int
    token_quota: int
    tokens_left: int
    tokens_held_per_request: int = Field(
        default=0,
        description="Tokens a model-calling request holds from the quota while it runs: with "
        "fewer left, such requests are refused (429) until the quota renews",
    )


class CollectionCreate(_Strict):
    name: NewName = Field(description=NAME_RULE)


class CollectionOut(BaseModel):
    name: str
    documents: int
    chunks: int
    embedder: str = ""


class DocumentOut(BaseModel):
    doc_id: str
    title: str
    doc_type: str
    year: int | None
    chunks: int
    metadata: dict[str, Any]


class CitationOut(BaseModel):
    document: str
    page: int
    page_end: int
    page_label: str = ""
    page_label_end: str = ""
    path: str
    source: str
    label: str


class PassageOut(BaseModel):
    """One stored passage (what a citation opens)."""

    collection: str
    chunk_id: str
    doc_id: str
    seq: int
    text: str
    heading: str
    citation: CitationOut


class HitOut(BaseModel):
    rank: int
    doc_id: str
    chunk_id: str
    collection: str
    score: float
    text: str
    heading: str
    doc_type: str
    year: int | None
    citation: CitationOut


class SearchRequest(_Strict):
    query: str = Field(min_length=1, max_length=10_000)
    collections: list[str] = Field(
        default_factory=list, description="Collections to search; empty: all of the tenant's."
    )
    k: int = Field(default=10, ge=1, le=100)
    per_document: int = Field(default=5, ge=1, le=100)
    doc_type: str | None = Field(default=None, max_length=100)
    year: int | None = Field(default=None, ge=0, le=9999)


class SearchResponse(BaseModel):
    query: str
    hits: list[HitOut]


class AskRequest(_Strict):
    question: str = Field(min_length=1, max_length=10_000)
    collections: list[str] = Field(default_factory=list)
    k: int = Field(default=8, ge=1, le=30)


class CheckedCitationOut(BaseModel):
    passage_id: str
    supported: bool
    reason: str
    quote: str
    chunk_id: str
    doc_id: str
    citation: CitationOut | None


class AskResponse(BaseModel):
    question: str
    answer: str
    extractive: bool = Field(description="No model was used: the answer is the best passages.")
    simulated: bool = Field(description="The answer came from colmeia's simulated model.")
    withheld: str = Field(
        default="", description="Why the model's answer was withheld (prompt injection), or ''."
    )
    model: str
    citations: list[CheckedCitationOut]
    rejected: list[CheckedCitationOut]
    passages: list[dict[str, Any]]
    usage: dict[str, float]


class JobOut(BaseModel):
    id: str
    kind: str
    status: Literal["queued", "running", "succeeded", "partial", "failed", "cancelled"]
    progress: dict[str, Any]
    result: dict[str, Any] | None
    error: str | None
    created_by: str
    created_at: float
    updated_at: float
    started_at: float | None
    finished_at: float | None
    attempts: int


class AuditEntry(BaseModel):
    id: str
    ts: float
    tenant: str
    actor: str
    action: str
    target: str
    status: int
    request_id: str
    detail: dict[str, Any]
