"""What a model's turn is checked against before it counts: the calls it should have made
(an unasked subscription, a number it invented, a described case not searched) and the
answers it may not give (:mod:`colmeia.apps.assistant.graph`)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from colmeia.apps.assistant.case_search import search_terms
from colmeia.apps.assistant.cases import check_case_answer, states_a_record_fact
from colmeia.apps.assistant.conversation import (
    aspect_of,
    resolve_follow_up,
)
from colmeia.apps.assistant.frame import read_frame
from colmeia.apps.assistant.graph_rules import (
    _REGISTRY_TOOLS,
    _STATED_ASPECTS,
    _guard_call,
    _states_aspect,
)
from colmeia.apps.assistant.graph_state import (
    AssistantState,
    Flags,
)
from colmeia.apps.assistant.graph_tools import ToolNodes
from colmeia.apps.assistant.ids import (
    CaseId,
    find_case_ids,
    read_case_ids,
)
from colmeia.apps.assistant.invented import invented_lookups, numbers_given
from colmeia.apps.assistant.offline import (
    ASK_NUMBER,
    asks_about_unnumbered_case,
    asks_for_updates,
    current_request,
    describes_a_case,
    mentions_norm,
    route_of,
)
from colmeia.apps.assistant.rag_query import analyze_query
from colmeia.llm.base import Message, ToolCall

log = logging.getLogger(__name__)


class ModelGuards(ToolNodes):
    def _request(self, view: Sequence[Message], state: AssistantState) -> str:
        """The person's request with a follow-up's case written out ("e as partes?" → "e as
        partes? (sobre TC/004506/2023)"), so the rules below see the case it is about."""
        text, _ = current_request(view)
        return resolve_follow_up(text, state.get("cases", []))

    def _answers_from_context(self, agent: str, content: str, state: AssistantState) -> bool:
        """An agent's direct answer to a follow-up, right by the thread's last facts: it
        stands (a model answering from context is not sent back to the registry)."""
        cases = state.get("cases", [])
        facts = state.get("case_facts", {})
        if not content.strip() or not cases or cases[0] not in facts:
            return False
        turn = state["turn"]
        if any(e.get("turn") == turn for e in state.get("tool_log", []) if e.get("agent") == agent):
            return False  # it used tools this turn: its answer is checked against them
        messages = [m for m in state.get("messages", []) if m.role == "user"]
        question = messages[-1].content if messages else ""
        if resolve_follow_up(question, cases) == question:
            return False
        found = facts[cases[0]]
        if check_case_answer(content, [found]):
            return False
        aspect = aspect_of(question)
        if aspect in _STATED_ASPECTS and not _states_aspect(content, aspect, found):
            return False  # "e as partes?" answered with where the case is: not an answer
        # it must say something of the case, not only be free of errors
        return states_a_record_fact(content, found)

    def _override(
        self,
        agent: str,
        calls: list[ToolCall],
        view: Sequence[Message],
        flags: Flags,
        state: AssistantState,
    ) -> list[ToolCall]:
        """Calls that contradict a hard signal are replaced: a valid case number in the
        request goes to the registry, and the search agent does not ask for a case number on
        a question about documents. Anything else the model decided stands."""
        if not calls:
            return calls
        text = self._request(view, state)
        offered = {t.name for t in self.tools_for(agent, flags)}
        names = {c.name for c in calls}
        ids = [i for i in find_case_ids(text) if isinstance(i, CaseId)]
        redirect = names & {"transfer_to_rag", "ask_user"}
        turn = state["turn"]
        handed_back = any(
            h.get("from") == "search" and h.get("to") == "main" and h.get("turn") == turn
            for h in state.get("handoffs", [])
        )
        # the search agent's hand-back stands: it is not rewritten into the same lookup again
        if (
            agent == "main"
            and ids
            and "transfer_to_search" in offered
            and redirect
            and not handed_back
        ):
            return [_guard_call("transfer_to_search", reason="a pergunta cita um caso")]
        if (
            agent == "main"
            and not ids
            and "ask_user" in names
            and "transfer_to_search" in offered
            and not handed_back
            and describes_a_case(text)
            and search_terms(text)
        ):
            # "não sei o número, é sobre a merenda…": the coordinator asked for the number the
            # person said they do not have (the 1.5B model); the registry's search can find it
            return [_guard_call("transfer_to_search", reason="a pessoa descreve o caso")]
        mixed = state.get("mixed") and "case" not in (state.get("parts") or {})
        if agent == "main" and not mixed:
            route = route_of(text)
            if route == "search" and "transfer_to_rag" in names and not mentions_norm(text):
                # a case question without a norm ("o andamento do meu processo", "e as
                # partes?") has no answer in the laws: to the registry; a follow-up about the
                # thread's case after the search agent's lookups gets the registry's cards
                follow_up = text != current_request(view)[0]
                if handed_back and (follow_up or read_frame(text).intent == "case"):
                    # so is a question about its own case and nothing else ("me fale do
                    # processo X"), read as such by the turn's frame; one with a legal part
                    # ("o processo X: o que é o contraditório?") reads as mixed and goes on
                    return []
                if not handed_back and "transfer_to_search" in offered:
                    return [_guard_call("transfer_to_search", reason="a pergunta é sobre um caso")]
            if (
                route == "rag"
                and names & {"transfer_to_search", "ask_user"}
                and "transfer_to_rag" in offered
                and analyze_query(text)["filters"].get("law_number")
            ):
                # a question naming a norm (LGPD, Lei 9.784) is about documents: no case to
                # look up and nothing to ask (the 0.5B model asked "qual é a sua dúvida?")
                return [_guard_call("transfer_to_rag", task=text)]
        if agent == "search" and "subscribe_updates" in names:
            unasked = self._instead_of_unasked_subscription(calls, state)
            if unasked is not None:
                if not unasked:
                    return []
                calls, names = unasked, {c.name for c in unasked}
        if agent == "search" and "lookup_case" in names:
            replaced = self._instead_of_invented(calls, text, ids, offered, state)
            if replaced is not None:
                return replaced
        if agent == "search" and "ask_user" in names and not ids:
            # "não sei o número, é sobre a merenda de Três Barras": the number is what the
            # person does not have; the registry's search is what they asked for (the 1.5B
            # model asked them for the number)
            searched = self._described_search(text, offered, state)
            if searched is not None:
                return searched
        looked_up = any(
            e.get("agent") == "search"
            and e.get("turn") == turn
            and e.get("tool") in _REGISTRY_TOOLS
            for e in state.get("tool_log", [])
        )
        asks_a_part = bool(ids and aspect_of(text)) and not mentions_norm(text)
        if agent == "search" and looked_up and "transfer_to_main" in names and asks_a_part:
            # "onde está o processo X e desde quando?" looked up, then handed back: the
            # question was all about the case, and the answer is the registry's record
            return []
        if agent == "search" and ids and "ask_user" in names and not mentions_norm(text):
            # every number the person gave was looked up this turn: the answer is the
            # registry's record, not a question back (the 0.5B model, having looked up
            # TC/000032/2023, asked the person "Onde está meu processo e desde quando?")
            def canonical(numbers: list[object]) -> set[str]:
                """The cases the lookups' ``number`` arguments name (as the tool reads them)."""
                return {
                    r.canonical
                    for n in numbers
                    for r in read_case_ids(str(n or ""), today=self.config.today)[:1]
                }

            asked = {i.canonical for i in ids}
            read = canonical(
                [
                    (e.get("arguments") or {}).get("number")
                    for e in state.get("tool_log", [])
                    if e.get("agent") == "search"
                    and e.get("turn") == turn
                    and e.get("tool") == "lookup_case"
                ]
            )
            if asked <= read:
                return []
            # the question asked in the lookup's own step: the record is not read yet, and
            # the person would be asked their own question back before it is (the 0.5B model
            # in CI); the lookups go ahead without it, with the person's numbers the model left
            # out (one read in an earlier turn is read again: the record may have moved since).
            # Asked back after other registry tools only, the record not read, the numbers are
            # read all the same: the 0.5B model read case_movements, repeated it seven times,
            # then "asked" the person a sentence that asked nothing (CI)
            looking_up = [c.arguments.get("number") for c in calls if c.name == "lookup_case"]
            if looking_up or "lookup_case" in offered:
                reading = read | canonical(looking_up)
                missing = [i.canonical for i in ids[:5] if i.canonical not in reading]
                kept = [c for c in calls if c.name != "ask_user"]
                return kept + [_guard_call("lookup_case", number=n) for n in missing]
        if agent == "search" and mixed and looked_up and names & {"ask_user", "transfer_to_main"}:
            # the case part of a split question, looked up: its answer is the registry's
            # record, and the legal part goes on to the documents (not back to the coordinator)
            return []
        if agent == "search" and not names & _REGISTRY_TOOLS:
            # a hand-back after the lookups is the agent's decision, not a skipped lookup
            hand_back = names & {"ask_user", "transfer_to_main"} and not looked_up
            if ids and "lookup_case" in offered and hand_back:
                return [_guard_call("lookup_case", number=i.canonical) for i in ids[:5]]
            # a law question is not a registry search either ("LGPD crianças" as a query)
            searches_a_norm = "search_cases" in names and analyze_query(text)["filters"].get(
                "law_number"
            )
            if not ids and route_of(text) == "rag" and ("ask_user" in names or searches_a_norm):
                return [_guard_call("transfer_to_main", reason="a pergunta não é sobre um caso")]
        return calls

    def _instead_of_unasked_subscription(
        self, calls: list[ToolCall], state: AssistantState
    ) -> list[ToolCall] | None:
        """A subscription nobody asked for is not offered for approval: each becomes a lookup
        of its case (unless looked up this turn already). The 1.5B model, told which case of a
        list the person picked, subscribed an invented ``example@example.com`` to it.
        ``None`` when the person did ask to be told of movements this turn."""
        turn = state["turn"]
        said = [
            m.content or ""
            for m in state.get("messages", [])
            if m.turn == turn and (m.role == "user" or (m.role == "tool" and m.name == "ask_user"))
        ]
        if any(asks_for_updates(t) for t in said):
            return None
        looked_up = {
            r.canonical
            for e in state.get("tool_log", [])
            if e.get("turn") == turn and e.get("tool") == "lookup_case"
            for r in read_case_ids(
                str((e.get("arguments") or {}).get("number") or ""), today=self.config.today
            )[:1]
        }
        out: list[ToolCall] = []
        for call in calls:
            if call.name != "subscribe_updates":
                out.append(call)
                continue
            read = read_case_ids(str(call.arguments.get("number") or ""), today=self.config.today)
            if read and read[0].canonical not in looked_up:
                looked_up.add(read[0].canonical)
                out.append(_guard_call("lookup_case", number=read[0].canonical))
        log.info("a subscription nobody asked for was not offered: %s", calls)
        return out

    def _described_search(
        self, text: str, offered: set[str], state: AssistantState
    ) -> list[ToolCall] | None:
        """A ``search_cases`` call for a case the person describes without its number, unless
        the search agent already searched this turn (then its list, or its "nothing found",
        is the answer and a question about it may follow)."""
        terms = search_terms(text)
        if not (terms and describes_a_case(text) and "search_cases" in offered):
            return None
        turn = state["turn"]
        searched = any(
            e.get("agent") == "search" and e.get("turn") == turn and e.get("tool") == "search_cases"
            for e in state.get("tool_log", [])
        )
        return None if searched else [_guard_call("search_cases", query=" ".join(terms))]

    def _instead_of_invented(
        self,
        calls: list[ToolCall],
        text: str,
        ids: list[CaseId],
        offered: set[str],
        state: AssistantState,
    ) -> list[ToolCall] | None:
        """What the search agent does instead of looking up a number nobody gave
        (:mod:`colmeia.apps.assistant.invented`): the request's own numbers, a search for the
        case it describes, or the question for its number; ``None`` when no number was
        invented (or there is nothing better to do)."""
        today = self.config.today
        texts = [m.content or "" for m in state.get("messages", [])]
        known = numbers_given(text, texts, state.get("cases", []), today)
        invented = invented_lookups(calls, known, text, today)
        if not invented:
            return None
        log.info("lookup of a number nobody gave replaced: %s", [c.arguments for c in invented])
        if ids:
            return [_guard_call("lookup_case", number=i.canonical) for i in ids[:5]]
        terms = search_terms(text)
        if describes_a_case(text) and terms and "search_cases" in offered:
            return [_guard_call("search_cases", query=" ".join(terms))]
        if asks_about_unnumbered_case(text) and "ask_user" in offered:
            return [_guard_call("ask_user", question=ASK_NUMBER)]
        return None

    def _guard(
        self, agent: str, view: Sequence[Message], state: AssistantState, flags: Flags
    ) -> list[ToolCall]:
        """Tool calls that must happen although the model answered directly.

        A question with a case number is answered from the registry, and a question about
        documents from the RAG agent with citations, whatever a model prefers: a model that
        answers them itself invents (small models do). Greetings and questions about the
        assistant stay with the model. At most once per turn and agent, within the caps.
        """
        text = self._request(view, state)
        route = route_of(text)
        offered = {t.name for t in self.tools_for(agent, flags)}
        turn = state["turn"]
        moved = {
            (h.get("from"), h.get("to")) for h in state.get("handoffs", []) if h.get("turn") == turn
        }
        this_turn = [m for m in state.get("messages", []) if m.turn == turn]
        # the person's answer to a question starts afresh: a guard that asked for the number
        # does not keep the guard from looking up the number they gave
        replies = [i for i, m in enumerate(this_turn) if m.role == "tool" and m.name == "ask_user"]
        since = this_turn[replies[-1] + 1 :] if replies else this_turn
        called = [c for m in since if m.agent == agent for c in m.tool_calls]
        if any(c["id"].startswith("guard_") for c in called):
            return []
        if agent == "main":
            if (
                route == "search"
                and "transfer_to_search" in offered
                and ("search", "main") not in moved
            ):
                return [_guard_call("transfer_to_search", reason="a pergunta é sobre um caso")]
            if route == "rag" and "transfer_to_rag" in offered and ("rag", "main") not in moved:
                return [_guard_call("transfer_to_rag", task=text)]
            return []
        ids = [i for i in find_case_ids(text) if isinstance(i, CaseId)]
        used_registry = any(c["name"] in _REGISTRY_TOOLS for c in called)
        # a numbered case is answered from its record: movements alone (the 0.5B model read
        # only case_movements for "onde está o processo X e desde quando?") leave out where
        # it is and since when, so the numbers not yet looked up this turn are; a
        # subscription the person asked for is the answer about its case
        read = {
            r.canonical
            for c in called
            if c["name"] in {"lookup_case", "subscribe_updates"}
            for r in read_case_ids(
                str((c.get("arguments") or {}).get("number") or ""), today=self.config.today
            )[:1]
        }
        unread = [i for i in ids[:5] if i.canonical not in read]
        if unread and "lookup_case" in offered:
            return [_guard_call("lookup_case", number=i.canonical) for i in unread]
        if not ids and not used_registry:
            # a described case answered in words: the registry's search answers it
            searched = self._described_search(text, offered, state)
            if searched is not None:
                return searched
        if route == "rag" and "transfer_to_main" in offered:
            return [_guard_call("transfer_to_main", reason="a pergunta não é sobre um caso")]
        return []
