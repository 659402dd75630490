"""A dispatcher's decision applied to the state, and the replies to a question the assistant
asked (a number, a pick from a list, a mixed question cut in two)."""

from __future__ import annotations

import dataclasses
import logging
import uuid
from typing import Any

from langgraph.types import Command

from colmeia.apps.assistant.dispatch_decision import Decision
from colmeia.apps.assistant.frame_steps import apply_decision, told_cases
from colmeia.apps.assistant.graph_guards import ModelGuards
from colmeia.apps.assistant.graph_rules import (
    _expected_kind,
    _named,
    _pick,
    _Split,
)
from colmeia.apps.assistant.graph_state import (
    _PKG,
    AssistantState,
)
from colmeia.apps.assistant.ids import (
    CaseId,
    CaseKind,
    bare_number,
    find_case_ids,
    mentions_case_words,
    read_case_ids,
)
from colmeia.errors import ColmeiaError
from colmeia.graphs.hitl import (
    Clarification,
    ask_clarification,
)
from colmeia.graphs.messages import ChatMessage
from colmeia.llm.base import Message
from colmeia.llm.prompts import render_prompt

log = logging.getLogger(__name__)


class Replies(ModelGuards):
    def _apply(
        self,
        decision: Decision,
        state: AssistantState,
        fresh: list[ChatMessage],
        turn: int,
    ) -> Command[str]:
        """The graph's step for a dispatcher's decision: finish with its answer, wait on
        its question, or hand the law question to the RAG agent."""
        goto, update = apply_decision(decision, state, fresh, turn, offline=self.offline)
        return Command(goto=goto, update=update)

    async def clarify(self, state: AssistantState) -> Command[str]:
        """Ask the person the agent's question (one interrupt); resume with the answer."""
        pending = state.get("pending") or {}
        agent = str(pending.get("agent", "main"))
        turn = state.get("turn", 0)
        reply = ask_clarification(
            Clarification(question=str(pending.get("question", "")), agent=agent)
        )
        if agent == "frame":  # the dispatcher asked: it reads the reply
            said = ChatMessage.user(str(reply), id=f"u-{uuid.uuid4().hex[:12]}")
            said = dataclasses.replace(said, turn=turn)
            decision = await self.dispatcher.reply(
                str(reply), pending, state.get("cases", []), told_cases(state)
            )
            return self._apply(decision, state, [said], turn)
        reading = await self._read_reply(str(reply), pending)
        msg = ChatMessage.tool(
            str(pending.get("call_id", "")),
            "ask_user",
            f"Resposta da pessoa: {reply}" + (f" (lido como {reading})" if reading else ""),
            agent=agent,
            turn=turn,
        )
        return Command(goto=agent, update={"messages": [msg], "pending": None})

    async def _model_split(self, text: str) -> tuple[str, str] | None:
        """The model's split of a question the rules could not split (no conjunction between
        the parts); kept only when the case part holds a case number and the legal part none."""
        try:
            out = await self.model.structured(
                [Message.system(render_prompt(_PKG, "split.j2")), Message.user(text)],
                _Split,
                max_tokens=200,
            )
        except ColmeiaError as exc:
            log.info("the model did not split %r: %s", text[:80], exc)
            return None
        case, law = out.case_part.strip(), out.law_part.strip()

        def has_case(part: str) -> bool:
            return any(isinstance(i, CaseId) for i in find_case_ids(part))

        if not law or not has_case(case) or has_case(law):
            return None
        return case, law

    async def _reply_to_answer(self, state: AssistantState, text: str) -> str:
        """The case a new message gives when the previous answer asked for its number."""
        if not text or any(isinstance(i, CaseId) for i in find_case_ids(text)):
            return ""
        last = next(
            (
                m.content
                for m in reversed(state.get("messages", []))
                if m.role == "assistant" and m.kind == "answer"
            ),
            "",
        )
        expects = _expected_kind(last) if "?" in last else None
        if expects is None:
            # or the previous question was about a case without its number ("meu processo")
            asked = [m.content for m in state.get("messages", []) if m.role == "user" and m.turn]
            if asked and mentions_case_words(asked[-1]) and not find_case_ids(asked[-1]):
                expects = "case"
        if expects is None or len(text.split()) > 8:
            return ""
        return await self._read_reply(text, {"expects": expects, "options": []})

    async def _read_reply(self, reply: str, pending: dict[str, Any]) -> str:
        """A reply to "qual é o número?" read in the light of the question: ``4506/2023``,
        ``004506/2023``, "é o 4506 de 2023" or "é o 4506" (the registry finds the year) as
        the kind asked for, and "2" or "o segundo" as that item of a list. Returns the case
        as ``processo TC/004506/2023`` (``""`` when the reply is not a number), so the agent
        — model or rules — and the number check both see the canonical form."""
        expects = pending.get("expects")
        options = [str(o) for o in pending.get("options") or []]
        if expects is None:
            return ""
        if options:
            picked = _pick(reply, options, self.config.today)
            if picked is not None:
                return _named(picked)
        kind: CaseKind | None = expects if expects in ("process", "expediente") else None
        ids = read_case_ids(reply, kind=kind, today=self.config.today)
        if ids:
            if any(isinstance(i, CaseId) for i in find_case_ids(reply)) or kind is not None:
                return _named(ids[0].canonical)
            return _named(await self._either_kind(ids[0]))
        number = bare_number(reply)
        if number is None:
            return ""
        try:
            found = await self.registry.case_numbers(number)
        except ColmeiaError:
            return ""
        matching = [c.canonical for c in found if c.kind == (kind or "process")]
        return _named(matching[0]) if len(matching) == 1 else ""

    async def _either_kind(self, case: CaseId) -> str:
        """A bare number asked as "processo ou expediente": whichever the registry has."""
        try:
            if await self.registry.process(case) is None:
                other = CaseId("expediente", case.number, case.year)
                if await self.registry.expediente(other) is not None:
                    return other.canonical
        except ColmeiaError:
            pass
        return case.canonical
