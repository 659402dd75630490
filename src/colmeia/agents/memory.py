"""Short-term memory of a trajectory: what was tried, what came of it, what a critic said.

Bounded (the oldest entries go first) and rendered as plain text for a prompt, so a refining
model sees its earlier attempts and their critiques without the context growing unbounded.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["MemoryEntry", "TrajectoryMemory"]


@dataclass(frozen=True, slots=True)
class MemoryEntry:
    """One remembered event: an attempt, an observation, a critique, a lesson."""

    kind: str
    content: str
    iteration: int = 0
    score: float | None = None


class TrajectoryMemory:
    """The last ``max_entries`` events of a run, renderable within ``max_chars``."""

    def __init__(self, max_entries: int = 20, max_chars: int = 6000) -> None:
        self.max_chars = max_chars
        self._entries: deque[MemoryEntry] = deque(maxlen=max_entries)

    def add(
        self, kind: str, content: str, *, iteration: int = 0, score: float | None = None
    ) -> None:
        self._entries.append(MemoryEntry(kind, content.strip(), iteration, score))

    def __iter__(self) -> Iterator[MemoryEntry]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def of_kind(self, kind: str) -> list[MemoryEntry]:
        return [e for e in self._entries if e.kind == kind]

    def render(self) -> str:
        """The entries as text, newest kept whole when the budget is tight."""
        blocks: list[str] = []
        budget = self.max_chars
        for entry in reversed(self._entries):
            score = f" (score {entry.score:.2f})" if entry.score is not None else ""
            block = f"[{entry.kind} {entry.iteration}{score}]\n{entry.content}"
            if len(block) > budget:
                if not blocks:
                    blocks.append(block[: max(budget, 0)])
                break
            blocks.append(block)
            budget -= len(block) + 2
        return "\n\n".join(reversed(blocks))
