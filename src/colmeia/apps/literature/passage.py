"""The passage a reader of a work is given: plain data, shared by the review and by the
choice of passages a model reads (:mod:`colmeia.apps.literature.model_passages`), which the review
uses, so that neither imports the other."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Passage"]


@dataclass(slots=True)
class Passage:
    """A passage given to the reader of a work, citable as ``id`` (P1, P2, …)."""

    id: str
    chunk_id: str
    text: str
    pages: str = ""  # printed page(s), "" for the record
    section: str = ""
    score: float = 0.0
