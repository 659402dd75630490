"""What the dispatcher decides for a turn: a :class:`Decision` (``answer``, ``ask`` or
``law``, as :mod:`colmeia.apps.assistant.dispatch` tells), and the helpers that build and read
one."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(slots=True)
class Decision:
    """What to do with a turn (see the module's doc)."""

    kind: Literal["answer", "ask", "law"]
    answer: dict[str, Any] | None = None
    question: str = ""
    options: list[str] = field(default_factory=list)
    evidence: list[dict[str, Any]] = field(default_factory=list)
    aspect: str = "status"
    law: str = ""
    expects: str = "process"
    # the registry tools the decision called: (name, arguments), logged as the turn's tools
    tools: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def pending(self) -> dict[str, Any]:
        """The clarification the graph waits on (read back by :meth:`Dispatcher.reply`)."""
        return {
            "agent": "frame",
            "question": self.question,
            "expects": self.expects,
            "options": list(self.options),
            "aspect": self.aspect,
            "law": self.law,
        }


def _answer(
    text: str, agent: str, facts: list[dict[str, Any]] | None = None, **more: Any
) -> Decision:
    return Decision(
        "answer",
        {"text": text, "agent": agent, "citations": [], "facts": facts or [], "notes": [], **more},
    )


def _shows_a_case(decision: Decision) -> bool:
    facts = (decision.answer or {}).get("facts") or []
    return any(f.get("status") == "found" for f in facts)
