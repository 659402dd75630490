"""Helpers shared by the moderation tests (imported by name: a test module never imports
``conftest``, whose module name every test folder shares)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from colmeia.llm.base import NOT_GIVEN, ChatResult, Message, NotGiven, StructuredResult
from colmeia.llm.openai_compat import OpenAIChatModel
from colmeia.sim.engine import SimRequest
from shared_data import DATA_DIR

SAMPLE = DATA_DIR / "moderation" / "sample_items.json"
#: the moderation roles by the output type each is asked for
ROLE_OF = {
    "SemanticReview": "semantic",
    "ContextualReview": "contextual",
    "Suggestions": "suggester",
    "Rewrite": "rewriter",
    "Decision": "decider",
}


def strict_model(req: SimRequest) -> dict[str, Any]:
    role = ROLE_OF[str((req.schema or {}).get("title"))]
    user = "\n".join(str(m.get("content") or "") for m in req.messages if m["role"] == "user")
    if role in ("semantic", "contextual"):
        under_review = user.split("ANSWER UNDER REVIEW:", 1)[-1]
        cites = "conforme a descrição" in under_review or "según la descripción" in under_review
        return {
            "justification": "Cita o anúncio." if cites else "Vaga.",
            "score": 5 if cites else 2,
        }
    if role == "suggester":
        return {"suggestions": ["Cite a descrição do anúncio."]}
    if role == "rewriter":
        if "WRITE THE ANSWER IN: Spanish" in user:
            text = "Hola. Sí, es así según la descripción del anuncio. Saludos."
        else:
            text = "Olá! Sim, é assim conforme a descrição do anúncio. Atenciosamente."
        return {"can_rewrite": True, "answer": text, "reason": ""}
    return {"reasoning": "A reescrita responde à pergunta.", "decision": "answer"}


@dataclass(frozen=True)
class SampleRuns:
    folder: Path
    gold: Path
    a: Path
    b: Path


def copy_run(run: Path, to: Path) -> Path:
    """A results file and its manifest copied into ``to`` (tests may then change them)."""
    out = Path(shutil.copy(run, to / run.name))
    manifest = run.with_name(f"{run.stem}.manifest.json")
    shutil.copy(manifest, to / manifest.name)
    return out


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def batch_result(outcome: str = "KEEP_ORIGINAL", **extra: Any) -> dict[str, Any]:
    """One record's result as a moderator returns it (a first-review keep by default); the
    batch tests pass their own per-record function, so no model is reached."""
    return {
        "outcome": outcome,
        "reason_code": "first_review",
        "final_answer": "Sim, cabe.",
        "revisions": 0,
        "scores": {"original": 9.0, "rewrites": []},
        "reason": "ok",
        "policy": None,
        "trail": [],
        "usage": {"calls": 2, "prompt_tokens": 10, "completion_tokens": 5, "cost": 0.5},
        "error": None,
        "error_kind": None,
        **extra,
    }


T = TypeVar("T", bound=BaseModel)


class DeciderFails:
    """A user's own ChatModel over the real client whose decider call fails as ``fail`` does
    (raises); the other roles' calls are the client's. ``name`` is the model it says it is
    (the client's by default)."""

    def __init__(
        self, inner: OpenAIChatModel, fail: Callable[[], Awaitable[None]], name: str = ""
    ) -> None:
        self.inner = inner
        self.fail = fail
        self.name = name

    @property
    def model(self) -> str:
        return self.name or self.inner.model

    async def structured_result(
        self,
        messages: Sequence[Message],
        output_type: type[T],
        *,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> StructuredResult[T]:
        if output_type.__name__ == "Decision":
            await self.fail()
        return await self.inner.structured_result(
            messages, output_type, temperature=temperature, max_tokens=max_tokens
        )

    async def chat(self, *args: Any, **kwargs: Any) -> ChatResult:
        raise NotImplementedError

    def stream(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    async def structured(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError
