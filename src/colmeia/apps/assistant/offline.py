"""Routing by rules when no model is configured, so the assistant is useful offline.

:class:`RulesModel` speaks the :class:`~colmeia.llm.base.ChatModel` protocol inside the
process: given an agent's view and the tools it is offered, it answers as a careful model
would — a case number goes to the registry, a legal question to the documents, a case
question without a number gets a clarifying question — so the same graph, handoffs and
approvals run with or without a model. It never writes case data or legal content itself:
its final answers are the registry's cards, and the RAG agent answers extractively.
Answers made this way are marked ``offline-rules``.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any, TypeVar

import orjson
from pydantic import BaseModel

from colmeia.apps.assistant.case_cards import case_answer, evidence_cards
from colmeia.apps.assistant.case_search import search_terms
from colmeia.apps.assistant.conversation import aspect_of, cases_in_context, resolve_follow_up
from colmeia.apps.assistant.ids import CaseId, find_case_ids, mentions_case_words
from colmeia.errors import ModelOutputError
from colmeia.llm.base import (
    NOT_GIVEN,
    ChatResult,
    Message,
    NotGiven,
    StreamEvent,
    StructuredResult,
    ToolCall,
    ToolChoice,
    ToolSpec,
    Usage,
)
from colmeia.rag.index.lexical import fold_accents

__all__ = [
    "ASK_NUMBER",
    "OFFLINE_MODEL",
    "RulesModel",
    "asks_about_unnumbered_case",
    "asks_for_updates",
    "current_request",
    "describes_a_case",
    "is_general_question",
    "mentions_case_and_norm",
    "mentions_norm",
    "route_of",
    "split_mixed",
]

T = TypeVar("T", bound=BaseModel)
OFFLINE_MODEL = "offline-rules"

_GREETING = re.compile(
    r"^\W*(oi|ol[aá]|bom dia|boa tarde|boa noite|obrigad[oa]|valeu|tchau|ajuda|help)\b",
    re.IGNORECASE,
)
_ABOUT = re.compile(
    r"\b(quem [eé] voc[eê]|o que voc[eê] (faz|pode)|como (voc[eê] funciona|usar)|"
    r"quais s[aã]o (suas|as suas) fun[cç][oõ]es)\b",
    re.IGNORECASE,
)
_WEB = re.compile(
    r"\b(pesquis[ae]\w*|busque|procure|procura)\b.{0,40}\b(internet|web|not[ií]cias?|sites?)\b",
    re.IGNORECASE,
)
# A request to be told of a case's movements from now on: said to the assistant (an order, "me
# avisa quando andar", "avise-me", "pode inscrever") or as a wish ("quero ser avisada das
# movimentações", "queria acompanhar"). Not the duty to have told someone, which is a law
# question ("a empresa tinha que ter me avisado?", "cortaram a luz sem avisar", "tem prazo pra
# eles me avisarem?"), nor a case the person follows ("um processo que eu acompanho").
# Matched on the folded text (lower case, no accents).
_TELL = r"(?:avis[ae]|notifiqu?e|notifica|alert[ae]|inscrev[ae]|inscrevam?)"
_SUBSCRIBE = re.compile(
    rf"\bme\s+{_TELL}\b|\b{_TELL}-me\b|"
    rf"\b(?:avis[ae]|notifiqu?e|notifica)\s+(?:\S+@\S+|por\s+e-?mail|quando|sempre\s+que|"
    r"(?:d[aeo]s?|sobre)\s+(?:as\s+|os\s+)?(?:movimenta|andamento|novidade|mudanca))|"
    r"\b(?:quero|queria|gostaria\s+de|desejo|preciso|posso|como\s+(?:faco|posso)\s+(?:pra|para))\s+"
    r"(?:ser\s+(?:avisad|notificad|alertad|informad)\w*|receber\s+(?:os\s+|as\s+)?(?:avisos?|"
    r"notificac\w+|alertas?|atualizac\w+|novidades)|acompanhar|me\s+inscrever|inscrever)|"
    r"\breceber\s+(?:os\s+|as\s+)?(?:avisos?|notificac\w+|alertas?|atualizac\w+)\s+"
    r"(?:d[aeo]s?|sobre)\s+(?:as\s+|os\s+)?(?:movimenta|andamento|processo|novidade)|"
    r"\b(?:pode|podes|poderia|consegue|da\s+pra)\s+(?:me\s+)?(?:inscrever|avisar|notificar|"
    r"alertar)\b|"
    r"\b(?:acompanh[ae]|acompanhar)\s+(?:o|esse|este|aquele|ele|meu|pra\s+mim|por\s+mim)\b(?!\s+que)|"
    r"\binscrev\w*\s+(?:nas?|para|pra)\s+(?:as\s+)?(?:atualizac|avisos?|notificac|movimenta)"
)
EMAIL_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# "não sei o número", "sem o número": a case to find by what the person knows about it
_NO_NUMBER = re.compile(
    r"\b(n[aã]o\s+(?:sei|tenho|lembro|encontro|achei)\b.{0,25}\bn[uú]mero|sem\s+o\s+n[uú]mero|"
    r"esqueci\s+o\s+n[uú]mero)",
    re.IGNORECASE,
)
# "o processo da Construtora X", "o processo sobre a merenda": described, not numbered
_DESCRIBED = re.compile(
    r"\b(?:processos?|expedientes?|casos?)\s+(?:(?:d[aeo]s?|contra|envolvendo)\s+"
    r"(?:[A-ZÀ-Ú]|empresa|prefeitura|munic[ií]pio|c[aâ]mara|secretaria)|sobre\s+\S|"
    r"(?:relatad[oa]\s+por|cujo\s+relator))",
)
# A part of a question that asks about a norm (for splitting mixed questions).
_LAW_PART = re.compile(
    r"\b(lei|leis|artigo|art\.|lgpd|constitui\w+|decreto|resolu[cç][aã]o|c[oó]digo|norma|"
    r"prazo\s+legal|segundo\s+a|de\s+acordo\s+com)\b",
    re.IGNORECASE,
)
_JOIN = re.compile(
    r"\s*[?;,]?\s+e\s+(?=(?:qual|quais|o\s+que|como|quando|quem|onde|o\s+prazo|a\s+lei|"
    r"segundo|pela|de\s+acordo|h[aá]))|\?\s+|;\s+",
    re.IGNORECASE,
)
HELP = (
    "Sou o assistente do Tribunal de Contas. Posso consultar o andamento de processos "
    "(TC/XXXXXX/AAAA) e expedientes (EXP-AAAA-XXXXX), dizer onde estão e desde quando, e "
    "responder perguntas sobre leis e normas com citação de artigo e parágrafo."
)
ASK_NUMBER = (
    "Para consultar, preciso do número do processo (formato TC/XXXXXX/AAAA) ou do "
    "expediente (EXP-AAAA-XXXXX). Qual é o número?"
)


def split_mixed(text: str) -> tuple[str, str] | None:
    """``(case part, legal part)`` of a question that asks both ("Qual o status do processo
    4506/2023 e qual o prazo legal segundo a Lei 9.784?"), or ``None``.

    The case part is every clause with a case number; the legal part every clause without one
    that names a norm. Routing of both halves is in :mod:`colmeia.apps.assistant.graph`;
    other modules (scope, legal) may call this to tell a mixed question from a legal one.
    """
    if not any(isinstance(i, CaseId) for i in find_case_ids(text)) or not _LAW_PART.search(text):
        return None
    pieces = [p.strip(" ,;?") for p in _JOIN.split(text) if p and p.strip(" ,;?")]

    def has_case(p: str) -> bool:
        return any(isinstance(i, CaseId) for i in find_case_ids(p))

    case = [p for p in pieces if has_case(p)]
    law = [p for p in pieces if not has_case(p) and _LAW_PART.search(p)]
    if not case or not law:
        return None

    def sentence(parts: list[str]) -> str:
        joined = " e ".join(parts)
        return joined[:1].upper() + joined[1:] + "?"

    return sentence(case), sentence(law)


def mentions_norm(text: str) -> bool:
    """Whether ``text`` names a norm or asks about one ("lei", "LGPD", "prazo legal"…)."""
    return bool(_LAW_PART.search(text))


def mentions_case_and_norm(text: str) -> bool:
    """Whether ``text`` writes a case number and names a norm (it may ask about both)."""
    return any(isinstance(i, CaseId) for i in find_case_ids(text)) and bool(_LAW_PART.search(text))


def route_of(text: str) -> str:
    """Who should answer ``text`` by the rules: ``search`` (cases, web), ``main`` (greetings,
    questions about the assistant) or ``rag`` (everything else: documents)."""
    if find_case_ids(text) or mentions_case_words(text) or _WEB.search(text):
        return "search"
    if _NO_NUMBER.search(text) or _DESCRIBED.search(text):
        return "search"
    return "main" if is_general_question(text) else "rag"


def asks_about_unnumbered_case(text: str) -> bool:
    """Whether ``text`` asks about a case of the person's without giving its number ("o
    andamento do meu processo", "não sei o número"): what the rules answer with
    :data:`ASK_NUMBER`. A web search is not a case question."""
    if find_case_ids(text) or _WEB.search(text):
        return False
    return bool(mentions_case_words(text) or _NO_NUMBER.search(text) or _DESCRIBED.search(text))


def asks_for_updates(text: str) -> bool:
    """Whether ``text`` asks to be told of a case's movements ("quero ser avisado",
    "acompanhar", "notificações"): the only reason to call ``subscribe_updates``."""
    return bool(_SUBSCRIBE.search(fold_accents(text.lower())))


def describes_a_case(text: str) -> bool:
    """Whether ``text`` describes a case instead of numbering it ("não sei o número, é sobre
    a merenda…", "o processo da Construtora X"): one to find with ``search_cases``."""
    return bool(_NO_NUMBER.search(text) or _DESCRIBED.search(text))


def is_general_question(text: str) -> bool:
    """A greeting or a question about the assistant itself (answered without documents)."""
    return bool(_GREETING.search(text) or _ABOUT.search(text)) and len(text.split()) < 12


def _call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(f"call_{uuid.uuid4().hex[:12]}", name, arguments)


def current_request(messages: Sequence[Message]) -> tuple[str, list[Message]]:
    """The person's latest text (or their answer to a clarifying question) and what came after."""
    ask_ids = {
        c.id
        for m in messages
        if m.role == "assistant"
        for c in m.tool_calls
        if c.name == "ask_user"
    }
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if m.role == "user" or (m.role == "tool" and m.tool_call_id in ask_ids):
            text = m.content or ""
            return text.removeprefix("Resposta da pessoa: "), list(messages[i + 1 :])
    return "", []


def _is_reply(messages: Sequence[Message]) -> bool:
    """Whether the person's latest words answer a clarifying question (not a new question)."""
    for m in reversed(messages):
        if m.role == "user":
            return False
        if m.role == "tool" and (m.content or "").startswith("Resposta da pessoa: "):
            return True
    return False


class RulesModel:
    """A ChatModel that routes by rules (see the module docstring)."""

    @property
    def model(self) -> str:
        return OFFLINE_MODEL

    async def chat(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        tool_choice: ToolChoice | None = None,
        require_tool: bool = False,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> ChatResult:
        names = {t.name for t in tools or ()}
        asked, after = current_request(messages)
        # a follow-up ("e as partes?") is about the thread's case the view names
        text = resolve_follow_up(asked, cases_in_context(messages))
        aspect = aspect_of(asked) if text != asked else None
        if "lookup_case" in names or "web_search" in names or "transfer_to_main" in names:
            content, calls = self._search(text, after, names, aspect, _is_reply(messages))
        else:
            content, calls = self._main(text, after, names)
        usage = Usage(calls=1)
        return ChatResult(content, calls, OFFLINE_MODEL, usage, "tool_calls" if calls else "stop")

    # ------------------------------------------------------------------ coordinator
    def _main(self, text: str, after: list[Message], names: set[str]) -> tuple[str, list[ToolCall]]:
        results = [m.content or "" for m in after if m.role == "tool"]
        if any(r.startswith("Refused") for r in results):
            return HELP, []  # a handoff was refused (switched off): do not insist
        route = route_of(text)
        if route == "search" and any(r.startswith("Transferred to search") for r in results):
            route = "rag"  # the search agent handed it back: not a case after all
        if route == "main":
            return HELP, []
        if route == "search":
            if "transfer_to_search" in names:
                return "", [
                    _call("transfer_to_search", reason="consulta sobre processo ou expediente")
                ]
            return "A consulta ao cadastro de processos está desativada nesta solicitação.", []
        if "transfer_to_rag" in names:
            return "", [_call("transfer_to_rag", task=text)]
        return ("A consulta a documentos oficiais está desativada nesta solicitação. " + HELP), []

    # ------------------------------------------------------------------ search agent
    def _search(
        self,
        text: str,
        after: list[Message],
        names: set[str],
        aspect: str | None = None,
        reply: bool = False,
    ) -> tuple[str, list[ToolCall]]:
        results = [m for m in after if m.role == "tool"]
        if results:
            return self._phrase(results, aspect), []
        ids = find_case_ids(text)
        if _WEB.search(text) and "web_search" in names:
            return "", [_call("web_search", query=text, max_results=5)]
        if ids and asks_for_updates(text) and "subscribe_updates" in names:
            email = EMAIL_ADDRESS.search(text)
            first = ids[0]
            number = first.canonical if hasattr(first, "canonical") else first.text
            contact = email.group(0) if email else ""
            return "", [_call("subscribe_updates", number=number, contact=contact)]
        if ids and "lookup_case" in names:
            calls = [
                _call("lookup_case", number=i.canonical if hasattr(i, "canonical") else i.text)
                for i in ids[:5]
            ]
            return "", calls
        described = _NO_NUMBER.search(text) or _DESCRIBED.search(text) or reply
        if not ids and described and "search_cases" in names and search_terms(text):
            return "", [_call("search_cases", query=" ".join(search_terms(text)))]
        if ids or mentions_case_words(text) or described:
            if "lookup_case" not in names:
                return "A consulta ao cadastro de processos está desativada nesta solicitação.", []
            if "ask_user" in names:
                return "", [_call("ask_user", question=ASK_NUMBER)]
        if "transfer_to_main" in names:
            return "", [_call("transfer_to_main", reason="a pergunta não é sobre processos")]
        return HELP, []

    @staticmethod
    def _phrase(results: list[Message], aspect: str | None = None) -> str:
        evidence: list[dict[str, Any]] = []
        other: list[str] = []
        for m in results:
            try:
                value = orjson.loads(m.content or "")
            except orjson.JSONDecodeError:
                value = None
            if isinstance(value, dict) and "status" in value:
                evidence.append(value)
            elif m.content:
                other.append(m.content)
        found = [e for e in evidence if e.get("status") == "found"]
        if found:  # a list the person picked from is not repeated
            evidence = found
        if aspect is not None and len(found) == 1:
            parts = [case_answer(found[0], aspect)]
        else:
            parts = [evidence_cards(evidence)] if evidence else []
        return "\n\n".join([*parts, *other]).strip() or HELP

    # ------------------------------------------------------------------ unsupported
    async def structured(
        self,
        messages: Sequence[Message],
        output_type: type[T],
        *,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> T:
        raise ModelOutputError("offline rules do not write structured output", model=OFFLINE_MODEL)

    async def structured_result(
        self,
        messages: Sequence[Message],
        output_type: type[T],
        *,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> StructuredResult[T]:
        raise ModelOutputError("offline rules do not write structured output", model=OFFLINE_MODEL)

    async def stream(
        self,
        messages: Sequence[Message],
        *,
        temperature: float | None | NotGiven = NOT_GIVEN,
        max_tokens: int | None | NotGiven = NOT_GIVEN,
        deadline: float | NotGiven = NOT_GIVEN,
    ) -> AsyncIterator[StreamEvent]:
        raise ModelOutputError("offline rules do not stream", model=OFFLINE_MODEL)
        yield StreamEvent()  # pragma: no cover - makes this an async generator
