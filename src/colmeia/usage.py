"""What model calls cost (:class:`Usage`), at the bottom layer.

It lives here, not in ``llm/base.py`` (which re-exports it), because ``errors.ModelError`` carries
the usage of a failed call and ``errors.py`` imports nothing above the bottom layer.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Usage"]


@dataclass(slots=True)
class Usage:
    """What calls cost: tokens, requests, retries, repairs, wall time and money.

    ``calls`` counts logical calls (one ``chat``/``structured``); ``requests`` counts HTTP
    requests, so ``requests - calls`` is what retries and repairs added.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    requests: int = 0
    retries: int = 0
    repairs: int = 0
    errors: int = 0
    latency_s: float = 0.0
    cost: float = 0.0
    simulated: int = 0
    """Answers that came from colmeia's simulated model (placeholder text, not a real model's)."""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: Usage) -> None:
        """Add ``other`` into this one, in place."""
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.calls += other.calls
        self.requests += other.requests
        self.retries += other.retries
        self.repairs += other.repairs
        self.errors += other.errors
        self.latency_s += other.latency_s
        self.cost += other.cost
        self.simulated += other.simulated

    def __add__(self, other: Usage) -> Usage:
        out = Usage()
        out.add(self)
        out.add(other)
        return out

    def as_dict(self) -> dict[str, float | int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "calls": self.calls,
            "requests": self.requests,
            "retries": self.retries,
            "repairs": self.repairs,
            "errors": self.errors,
            "latency_s": round(self.latency_s, 6),
            "cost": round(self.cost, 8),
            "simulated": self.simulated,
        }
