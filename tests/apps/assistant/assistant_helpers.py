"""Helpers of the assistant tests: a scripted model that answers each agent by its role.

Imported by name (``from assistant_helpers import …``); fixtures live in ``conftest.py``.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from typing import Any

from colmeia.apps.assistant.session import open_assistant
from colmeia.apps.assistant.settings import AssistantSettings
from colmeia.apps.assistant.simulated import careful_frame
from colmeia.sim.engine import Reply, SimRequest
from shared_data import DATA_DIR

AS_OF = dt.date(2026, 11, 1)
LAWS = DATA_DIR / "laws" / "lexml"


def role_of(req: SimRequest) -> str:
    """Which agent (or RAG step) a request to the model comes from."""
    names = set(req.tool_names)
    if "transfer_to_main" in names:
        return "search"
    if "ask_user" in names:
        return "main"
    props = (req.schema or {}).get("properties", {})
    if "citations" in props:
        return "answer"
    if "query" in props:
        return "rewrite"
    if "intent" in props:
        return "frame"
    return "other"


def call(name: str, **arguments: Any) -> Reply:
    """A reply calling one tool."""
    return Reply(tool_calls=[{"name": name, "arguments": arguments}])


def calls(*items: tuple[str, dict[str, Any]]) -> Reply:
    """A reply calling several tools in parallel."""
    return Reply(tool_calls=[{"name": n, "arguments": a} for n, a in items])


_PASSAGE = re.compile(r"^\[(P\d+)\] (.+?)\n(.+?)(?=\n\n\[P\d+\]|\n*\Z)", re.S | re.M)


def passages(req: SimRequest) -> dict[str, tuple[str, str]]:
    """The numbered passages of a RAG generation request: id → (source, text)."""
    system = req.messages[0]["content"]
    return {m.group(1): (m.group(2), m.group(3).strip()) for m in _PASSAGE.finditer(system)}


def cited_answer(req: SimRequest) -> dict[str, Any]:
    """A faithful RAG answer: one sentence per passage, each quoting its passage."""
    found = passages(req)
    sentences, cites = [], []
    for pid, (_, text) in list(found.items())[:2]:
        quote = " ".join(text.split()[:8])
        sentences.append(f"Segundo o texto, {quote} [{pid}].")
        cites.append({"passage": pid, "quote": quote})
    return {"answer": " ".join(sentences), "citations": cites}


class Roles:
    """A responder that answers each role from its own queue and records what it saw."""

    def __init__(self, **scripts: list[Any]) -> None:
        self.scripts = {k: list(v) for k, v in scripts.items()}
        self.seen: dict[str, list[SimRequest]] = defaultdict(list)

    def __call__(self, req: SimRequest) -> Any:
        role = role_of(req)
        self.seen[role].append(req)
        queue = self.scripts.get(role)
        if role == "frame" and not queue:  # unscripted, the frame is a careful model's
            return careful_frame(req.last_user_text)
        if not queue:
            raise AssertionError(f"no scripted answer left for {role}: {req.last_user_text!r}")
        item = queue.pop(0) if len(queue) > 1 or not callable(queue[0]) else queue[0]
        return item(req) if callable(item) else item


def without_registry(store: Any, home: Any) -> Any:
    """An offline assistant over ``store`` with no case registry configured (a fresh home),
    as `colmeia assistant ask` runs before anyone imports cases: ``async with`` it."""
    return open_assistant(
        store=store,
        model=None,
        checkpoints="memory://",
        settings=AssistantSettings(),
        home=home,
        today=AS_OF,
    )
