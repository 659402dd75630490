"""The lines every command shares about models: output from the simulated one, and none at hand.

Every command, demo step and report that shows model output prints :func:`simulated_notice`
when :attr:`Usage.simulated <colmeia.llm.base.Usage.simulated>` counts any answer, so
placeholder text is never mistaken for a real model's (the simulated server marks its answers
with ``system_fingerprint: colmeia-simulated``). Import it from here: it has no dependencies.
"""

from __future__ import annotations

from colmeia.llm.base import Usage

__all__ = ["NO_MODEL_HINT", "simulated_notice"]

NO_MODEL_HINT = (
    "No model server configured. Point colmeia at any OpenAI-compatible server, e.g. Ollama: "
    "COLMEIA_LLM_BASE_URL=http://127.0.0.1:11434/v1 COLMEIA_LLM_MODEL=qwen3:8b; or, with no "
    "model at hand, run the simulated one in another terminal (`colmeia sim serve --port 8000`) "
    "and set COLMEIA_LLM_BASE_URL=http://127.0.0.1:8000/v1 COLMEIA_LLM_MODEL=sim (its answers "
    "are placeholder text)."
)
"""What to do when no model is configured: every variable needed, for a real and a simulated one."""


def simulated_notice(usage: Usage | None) -> str | None:
    """``"simulated model: all 12 answers are placeholder text …"``, or ``None`` when none were."""
    if usage is None or usage.simulated <= 0:
        return None
    n = usage.simulated
    answers = "the answer is" if n == 1 else f"all {n} answers are"
    if usage.calls > n:
        answers = f"{n} of {usage.calls} answers are"
    return (
        f"simulated model: {answers} placeholder text from colmeia's simulated server, "
        "not a language model's"
    )
