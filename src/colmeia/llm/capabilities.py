"""What one endpoint (server + model) honours and how fast it is, learned from its answers.

Servers that speak the OpenAI API differ in what they do with the same request: llama.cpp
silently treats an object-form ``tool_choice`` as ``"auto"`` (HTTP 200); some releases ignore
``"required"``; vLLM refuses ``"auto"`` unless started with a tool parser; old servers refuse
``response_format``. Guessing from the provider name goes stale with every release, so colmeia
learns per endpoint, from the calls it makes anyway:

* **honoured** — a forced tool choice came back as a native tool call; a JSON response format
  came back as JSON;
* **ignored** — the server said 200 but the answer shows the field had no effect (prose under
  ``tool_choice="required"``);
* **refused** — the server's error names the feature and says it is unsupported (see
  :mod:`colmeia.llm.refusals`; never the status alone).

A feature ignored or refused is avoided for ``revisit_s`` (10 minutes), then tried again: no
single answer switches an endpoint's mode for good. Everything here is shared by every client of
the same endpoint in the process, and thread-safe (the blocking API runs on another thread).

Speed: every answer updates an average of prompt and generation tokens per second (llama.cpp's
``timings`` when present, else tokens over wall time), so agents can size deadlines and
``max_tokens`` for the server they are actually talking to.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from colmeia.llm.refusals import Feature

__all__ = ["EndpointProfile", "FeatureState", "Speed", "endpoint_profile", "forget_endpoints"]

Support = Literal["unknown", "yes", "no"]
REVISIT_S = 600.0
_EWMA = 0.3


@dataclass(slots=True)
class FeatureState:
    """What is known about one feature of one endpoint."""

    support: Support = "unknown"
    honoured: int = 0
    ignored: int = 0
    refused: int = 0
    reason: str = ""
    since: float = 0.0

    def current(self, now: float, revisit_s: float) -> Support:
        if self.support == "no" and now - self.since >= revisit_s:
            return "unknown"  # time to give it another chance
        return self.support


@dataclass(slots=True)
class Speed:
    """Measured throughput of an endpoint (``None`` until a call has been timed)."""

    prompt_tps: float | None = None
    gen_tps: float | None = None
    samples: int = 0
    source: str = ""

    def observe(self, prompt_tps: float | None, gen_tps: float | None, source: str) -> None:
        if prompt_tps and prompt_tps > 0:
            self.prompt_tps = _blend(self.prompt_tps, prompt_tps)
        if gen_tps and gen_tps > 0:
            self.gen_tps = _blend(self.gen_tps, gen_tps)
            self.samples += 1
            self.source = source

    def seconds_for(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        """Expected seconds for a call of that size, or ``None`` before any measurement."""
        if not self.gen_tps:
            return None
        prompt_s = prompt_tokens / self.prompt_tps if self.prompt_tps else 0.0
        return prompt_s + completion_tokens / self.gen_tps

    def deadline_for(
        self, base_s: float, *, prompt_tokens: int = 0, completion_tokens: int = 256
    ) -> float:
        """``base_s``, or more when this endpoint needs more for such a call (three times the
        expected time, so a busy machine still fits)."""
        expected = self.seconds_for(prompt_tokens, completion_tokens)
        return base_s if expected is None else max(base_s, 3.0 * expected)

    def max_tokens_within(self, seconds: float, *, prompt_tokens: int = 0) -> int | None:
        """How many tokens this endpoint generates in ``seconds`` after reading the prompt."""
        if not self.gen_tps:
            return None
        prompt_s = prompt_tokens / self.prompt_tps if self.prompt_tps else 0.0
        return max(0, int((seconds - prompt_s) * self.gen_tps))

    def as_dict(self) -> dict[str, Any]:
        return {
            "prompt_tokens_per_s": round(self.prompt_tps, 1) if self.prompt_tps else None,
            "gen_tokens_per_s": round(self.gen_tps, 1) if self.gen_tps else None,
            "samples": self.samples,
            "source": self.source,
        }


def _blend(old: float | None, new: float) -> float:
    return new if old is None else (1 - _EWMA) * old + _EWMA * new


@dataclass
class EndpointProfile:
    """Learned capabilities and speed of one endpoint; use :func:`endpoint_profile`."""

    base_url: str
    model: str
    revisit_s: float = REVISIT_S
    features: dict[str, FeatureState] = field(default_factory=dict)
    speed: Speed = field(default_factory=Speed)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def support(self, feature: Feature) -> Support:
        """``"yes"``, ``"no"`` (avoid it for now) or ``"unknown"`` (try it)."""
        with self._lock:
            state = self.features.get(feature)
            return "unknown" if state is None else state.current(time.monotonic(), self.revisit_s)

    def usable(self, feature: Feature) -> bool:
        return self.support(feature) != "no"

    def honoured(self, feature: Feature) -> None:
        with self._lock:
            state = self.features.setdefault(feature, FeatureState())
            state.honoured += 1
            state.support, state.reason = "yes", ""

    def ignored(self, feature: Feature, why: str) -> None:
        self._negative(feature, why, refused=False)

    def refused(self, feature: Feature, message: str) -> None:
        self._negative(feature, message, refused=True)

    def _negative(self, feature: Feature, why: str, *, refused: bool) -> None:
        with self._lock:
            state = self.features.setdefault(feature, FeatureState())
            if refused:
                state.refused += 1
            else:
                state.ignored += 1
            state.support, state.reason, state.since = "no", why[:300], time.monotonic()

    def observe_speed(
        self,
        completion: dict[str, Any],
        elapsed_s: float,
        prompt_tokens: int,
        completion_tokens: int,
    ) -> None:
        """Update the speed from one answer (llama.cpp's ``timings`` if present)."""
        timings = completion.get("timings")
        with self._lock:
            if isinstance(timings, dict) and timings.get("predicted_per_second"):
                self.speed.observe(
                    _float(timings.get("prompt_per_second")),
                    _float(timings.get("predicted_per_second")),
                    "server timings",
                )
            elif completion_tokens >= 8 and elapsed_s > 0:
                # Wall time includes reading the prompt: a conservative generation speed.
                self.speed.observe(None, completion_tokens / elapsed_s, "wall time")

    def describe(self) -> dict[str, Any]:
        """A plain summary (for ``colmeia llm check`` and reports)."""
        now = time.monotonic()
        with self._lock:
            return {
                "features": {
                    name: {
                        "support": s.current(now, self.revisit_s),
                        "honoured": s.honoured,
                        "ignored": s.ignored,
                        "refused": s.refused,
                        "reason": s.reason,
                    }
                    for name, s in sorted(self.features.items())
                },
                "speed": self.speed.as_dict(),
            }


def _float(value: Any) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


_PROFILES: dict[tuple[str, str], EndpointProfile] = {}
_PROFILES_LOCK = threading.Lock()


def endpoint_profile(base_url: str, model: str) -> EndpointProfile:
    """The shared profile of ``model`` at ``base_url`` (created on first use)."""
    key = (base_url.rstrip("/"), model)
    with _PROFILES_LOCK:
        profile = _PROFILES.get(key)
        if profile is None:
            profile = _PROFILES[key] = EndpointProfile(key[0], model)
        return profile


def forget_endpoints() -> None:
    """Drop everything learned (a restarted server may behave differently)."""
    with _PROFILES_LOCK:
        _PROFILES.clear()
