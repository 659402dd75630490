"""Shared by the cited-answer tests (imported by name): one passage as a search hit, and what a
person watching a streamed answer sees."""

from __future__ import annotations

from colmeia.rag.retrieve import Citation, Hit

__all__ = ["HITS", "PASSAGE", "Screen"]

PASSAGE = "A concessão será precedida de licitação na modalidade concorrência."
HITS = [Hit("lei#1", "lei.md", 1.0, PASSAGE, Citation("Lei 8.987/1995", 1, "Art. 14"), "leis", 1)]


class Screen:
    """The sink an answer streams to: the text so far, and each withdrawal (a ``replace``
    puts a checked text in place of what was shown)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, str]] = []

    def delta(self, text: str) -> None:
        self.events.append(("delta", text, ""))

    def replace(self, text: str, reason: str) -> None:
        self.events.append(("replace", text, reason))

    def shown(self) -> str:
        out = ""
        for kind, text, _ in self.events:
            out = out + text if kind == "delta" else text
        return out
