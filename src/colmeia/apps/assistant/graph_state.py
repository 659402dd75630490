"""What the assistant's graph carries between its nodes: the state, the flags, the agents' tools
and handoffs (:mod:`colmeia.apps.assistant.graph` builds the nodes over them)."""

from __future__ import annotations

import dataclasses
import operator
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypedDict

import orjson

from colmeia.errors import InputError
from colmeia.graphs.handoff import Handoff
from colmeia.graphs.messages import ChatMessage, merge_messages
from colmeia.llm.base import ToolCall, ToolSpec

_PKG = "colmeia.apps.assistant"
AGENTS = ("main", "search", "rag")
AgentName = Literal["main", "search"]

_TO_RAG = Handoff(
    "rag",
    "task",
    "Hand a question about laws, resolutions, decisions or official documents to the "
    "documents specialist, as a self-contained task. It answers with citations.",
)
_TO_SEARCH = Handoff(
    "search",
    "state",
    "Hand the conversation to the case-search agent: processes, expedientes, their "
    "movements and location, or a web search.",
)
_TO_MAIN = Handoff(
    "main",
    "state",
    "Hand the conversation back to the coordinator when the question is not about cases.",
)
_ASK_USER = ToolSpec(
    "ask_user",
    "Ask the person a short clarifying question when the request is too ambiguous to act "
    "on (e.g. a process with no number). The conversation pauses until they answer.",
    {
        "type": "object",
        "properties": {
            "question": {"type": "string", "description": "The question, in Portuguese."}
        },
        "required": ["question"],
    },
)
_LOOKUP = ToolSpec(
    "lookup_case",
    "Read a process (TC/XXXXXX/YYYY) or expediente (EXP-YYYY-XXXXX) from the case registry: "
    "record, current location and since when, parties, recent movements, documents. "
    "Accepts the number as the person typed it.",
    {
        "type": "object",
        "properties": {"number": {"type": "string", "description": "The number as typed."}},
        "required": ["number"],
    },
)
_MOVEMENTS = ToolSpec(
    "case_movements",
    "The movements of a process or expediente, newest first (date, from, to, what happened).",
    {
        "type": "object",
        "properties": {
            "number": {"type": "string", "description": "The number as typed."},
            "limit": {"type": "integer", "description": "How many (1-50).", "default": 10},
        },
        "required": ["number"],
    },
)
_SEARCH_CASES = ToolSpec(
    "search_cases",
    "Find processes and expedientes in the case registry when the person does not know the "
    "number: by subject, municipality or unit, a party's name, or the rapporteur. One match "
    "comes back as the whole case; several as a list the person picks from.",
    {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "What the person said about the case (words, not a number).",
            }
        },
        "required": ["query"],
    },
)
_SUBSCRIBE = ToolSpec(
    "subscribe_updates",
    "Register the person to be told of new movements of a case (writes to the registry; "
    "needs the person's approval).",
    {
        "type": "object",
        "properties": {
            "number": {"type": "string", "description": "Process or expediente number."},
            "contact": {"type": "string", "description": "E-mail to notify."},
        },
        "required": ["number", "contact"],
    },
)


@dataclass(frozen=True, slots=True)
class Flags:
    """Capabilities switched on or off per request."""

    enable_web_search: bool = False
    enable_system_search: bool = True
    enable_rag_processing: bool = True

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Flags:
        data = data or {}
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: bool(v) for k, v in data.items() if k in names})

    @classmethod
    def parse(cls, data: dict[str, Any] | None) -> Flags:
        """Flags from a request, by their short (``web``, ``system``, ``rag``) or long names
        (``enable_web_search``…); an unknown name raises :class:`InputError` listing them."""
        out: dict[str, bool] = {}
        for key, value in (data or {}).items():
            name = FLAG_NAMES.get(str(key).strip().lower())
            if name is None:
                raise InputError(
                    f"unknown flag {key!r}: use one of {', '.join(sorted(FLAG_NAMES))}"
                )
            if not isinstance(value, bool):
                raise InputError(f"flag {key!r} must be true or false, not {value!r}")
            out[name] = value
        return cls(**out)

    def as_dict(self) -> dict[str, bool]:
        return dataclasses.asdict(self)


FLAG_NAMES = {
    "web": "enable_web_search",
    "web_search": "enable_web_search",
    "enable_web_search": "enable_web_search",
    "system": "enable_system_search",
    "system_search": "enable_system_search",
    "registry": "enable_system_search",
    "enable_system_search": "enable_system_search",
    "rag": "enable_rag_processing",
    "rag_processing": "enable_rag_processing",
    "documents": "enable_rag_processing",
    "enable_rag_processing": "enable_rag_processing",
}


@dataclass(slots=True)
class GraphConfig:
    """Caps and the tools that need approval."""

    max_handoffs_per_turn: int = 4
    max_steps_per_turn: int = 12
    history_tokens: int = 1500
    approval_tools: frozenset[str] = frozenset({"web_search", "subscribe_updates"})
    max_answer_tokens: int = 700  # an agent step is a decision or a short answer
    # with a model, the classifier's confidence below which the model fills the frame
    frame_by_model_below: float = 0.7
    # "frame": every turn dispatched from its frame; "agents": with a model, the agents route
    routing: Literal["frame", "agents"] = "frame"
    today: Any = None  # a datetime.date for "since when" (tests pin it)


def _add_list(left: list[Any] | None, right: list[Any] | None) -> list[Any]:
    return [*(left or []), *(right or [])]


class AssistantState(TypedDict, total=False):
    messages: Annotated[list[ChatMessage], merge_messages]
    active_agent: str
    turn: int
    turn_handoffs: int
    turn_steps: int
    flags: dict[str, bool]
    attachments: list[str]
    handoff: dict[str, Any] | None
    handoffs: Annotated[list[dict[str, Any]], _add_list]
    tool_log: Annotated[list[dict[str, Any]], _add_list]
    evidence: list[dict[str, Any]]
    pending: dict[str, Any] | None
    rag: dict[str, Any] | None
    answer: dict[str, Any] | None
    status: str
    effects: Annotated[dict[str, str], operator.or_]
    # kept across turns: the thread's cases, most recent first, and the registry's last
    # record of each (what follow-ups such as "e as partes?" are about)
    cases: list[str]
    case_facts: dict[str, dict[str, Any]]
    # this turn's question split into a case part and a legal part, and their answers
    mixed: dict[str, str] | None
    parts: dict[str, dict[str, Any]]


def _last_calls(state: AssistantState, agent: str) -> list[ToolCall]:
    turn = state.get("turn", 0)
    answered = {m.tool_call_id for m in state.get("messages", []) if m.role == "tool"}
    for m in reversed(state.get("messages", [])):
        if m.role == "assistant" and m.agent == agent and m.turn == turn and m.tool_calls:
            return [c for c in m.calls() if c.id not in answered]
        if m.turn != turn:
            break
    return []


def _as_tool_text(value: Any) -> str:
    return value if isinstance(value, str) else orjson.dumps(value, default=str).decode()


def fresh_turn_state(turn: int) -> dict[str, Any]:
    """The per-turn fields a new turn starts from: its counters at zero, nothing handed off,
    asked, found or answered yet, no split question (every way a turn begins writes these)."""
    return {
        "turn": turn,
        "turn_handoffs": 0,
        "turn_steps": 0,
        "handoff": None,
        "evidence": [],
        "pending": None,
        "rag": None,
        "answer": None,
        "mixed": None,
        "parts": {},
    }
