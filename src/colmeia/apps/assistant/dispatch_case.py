"""A case question answered for the dispatcher: the typed case (resolved against the
registry) or the thread's, several typed cases at once, the aspect asked from the case's rows,
a search's winner or short list, or which case asked back
(:mod:`colmeia.apps.assistant.dispatch` chains it)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from colmeia.apps.assistant.case_aspects import case_aspect, named_in_record
from colmeia.apps.assistant.case_cards import case_card, search_card
from colmeia.apps.assistant.case_index import fold, query_terms
from colmeia.apps.assistant.case_lookup import lookup_case
from colmeia.apps.assistant.case_refs import CaseResolution, resolve_case_refs
from colmeia.apps.assistant.dispatch_decision import Decision, _answer, _shows_a_case
from colmeia.apps.assistant.dispatch_naming import CaseNaming
from colmeia.apps.assistant.dispatch_readings import _MAX_TYPED, _clause_aspect, _year_described
from colmeia.apps.assistant.frame import RESTRICTED, ThreadRef, TurnFrame, thread_reference
from colmeia.apps.assistant.ids import CaseId
from colmeia.apps.assistant.registry_url import NOT_CONFIGURED, UnconfiguredRegistry
from colmeia.apps.assistant.scope import named_norms
from colmeia.apps.assistant.status_meaning import status_meaning

ASK_CASE = (
    "De qual processo? Informe o número do processo (formato TC/XXXXXX/AAAA, ou como 4506/2023) "
    "ou do expediente (EXP-AAAA-XXXXX)."
)
_ASPECT_PT = {"judgement": "julgamento", "archive": "arquivamento"}
# cases asked for, in the plural: "quais processos vocês têm sobre…", "tem processos contra…",
# "quero ver os processos da conselheira…"
_ASKS_CASES = re.compile(
    r"\b(?:quais|que|quantos)\s+(?:processos|casos)\b|\b(?:tem|ha|existem)\s+(?:uns\s+)?"
    r"(?:processos|casos)\b|\b(?:processos|casos)\s+(?:sobre|contra|envolvendo)\b|"
    r"\b(?:os|dos|nos|uns)\s+(?:processos|casos)\s+d[aeo]s?\b|"
    # "tem algum processo contra o prefeito…?": whether there is any, so all of them
    r"\b(?:tem|ha|existe)\s+(?:algum|alguns)\s+(?:processo|caso)s?\s+(?:contra|envolvendo|sobre|d[aeo]s?)\b"
)
# aspects answered by one field of the record (who relates it, who the parties are): the words
# asked are the field's, not an event's ("quem é o relator?" names no "Concluso ao relator").
# A list of documents or movements is no such field: "o relatório técnico apontou o quê?" is
# answered by the movement that says what it found, beside the list of papers
_FIELD_ASPECTS = frozenset({"rapporteur", "parties"})


class CaseAnswers(CaseNaming):
    """A case question answered from the registry's rows, or which case asked back."""

    async def _case(
        self, frame: TurnFrame, cases: Sequence[str], law: str = "", told: Sequence[str] = ()
    ) -> Decision:
        """A case question: the typed case (resolved against the registry) wins over the
        thread's; without either, ask which case."""
        if frame.cases:
            resolved = await resolve_case_refs(
                frame.case_part or frame.text, self.registry, today=self.today
            )
            if len(resolved) > 1 and all(r.status != "ambiguous" for r in resolved):
                # "qual a situação do 10/2022 e do 12/2022?": each case typed is answered
                # (the frame drops a pointer beside typed cases: here it is their place)
                pointer = thread_reference(frame.case_part or frame.text)
                return await self._each(resolved, frame.aspect, frame.text, pointer)
            if resolved:
                return await self._resolved(resolved[0], frame.aspect, law, frame.text)
        target = frame.target(cases, told)
        if target is None and len(cases) > 1 and frame.thread is None:
            # "e aquele da câmara, quem relata?": the one of the thread's cases it describes
            target = await self._among(frame.case_part or frame.text, cases, unless_elsewhere=True)
        if target is None and cases and frame.thread is None:
            target = cases[0]  # "e as partes?": the case the thread is about
        described = frame.case_part or frame.text
        if target is None and not cases and RESTRICTED.search(fold(described)):
            # "o processo do Sebastião Gonçalves": no number, but the case is described —
            # looked for first; asked about only when the registry finds none (a short list
            # to pick from, unless a law part waits: then which case is asked)
            found = await self._find(described, frame.aspect)
            if _shows_a_case(found) or (found.kind == "ask" and not law):
                return found
        elif (
            target is None
            and not cases
            and (searched := await self._described_search(frame, described, law))
        ):
            # no number, but a party, body or subject of one case of the registry named
            # ("sou parente da Célia Regina Guimarães, qual é o processo dela?"), or a
            # description that fits a few cases ("e o parecer das contas de 2021 de cachoeira
            # do sul já saiu?"): those are offered to pick from, not "de qual processo?"
            return await self._find(described, frame.aspect, searched)
        if target is None and isinstance(self.registry, UnconfiguredRegistry):
            # no registry to look a number up in: asking for one would only lead to saying so
            return _answer(NOT_CONFIGURED, "search")
        if target is None:
            ask = Decision("ask", question=ASK_CASE, aspect=frame.aspect, law=law)
            ask.expects = "expediente" if "expediente" in fold(frame.text) else "process"
            return ask
        return await self.case_answer(target, frame.aspect, described)

    async def _each(
        self,
        resolved: Sequence[CaseResolution],
        aspect: str,
        question: str,
        pointer: ThreadRef | None = None,
    ) -> Decision:
        """One answer for several cases typed in one message, each case's in the order typed
        (a number the registry does not hold says so in its place); the last one typed is the
        thread's case after it, as it would be had they come one by one — unless the message
        asks of one of them by its place ("tenho o 3417/2024 e o 11052/2023, como tá o
        primeiro?"): that one is the thread's case, and "o outro" is the other."""
        typed = resolved[:_MAX_TYPED]
        place = {"first": 0, "second": 1, "latest": len(typed) - 1}
        asked = place.get(pointer.which) if pointer is not None else None
        decisions = [
            await self._resolved(r, _clause_aspect(question, typed, n, aspect), "", question)
            for n, r in enumerate(typed)
        ]
        answers = [d.answer for d in decisions if d.kind == "answer" and d.answer is not None]
        if len(answers) < len(decisions):
            return decisions[0]
        facts = [f for a in answers for f in a.get("facts") or []]
        if asked is not None and asked < len(answers):
            facts = [
                {**f, "asked": True} if f in (answers[asked].get("facts") or []) else f
                for f in facts
            ]
        both = _answer("\n\n".join(str(a["text"]) for a in answers), "search", facts)
        both.tools = [t for d in decisions for t in d.tools]
        return both

    async def _resolved(
        self, res: CaseResolution, aspect: str, law: str = "", question: str = ""
    ) -> Decision:
        if res.status == "found" and res.case is not None:
            return await self.case_answer(res.case.canonical, aspect, question)
        if res.status == "ambiguous":
            options = [c.canonical for c in res.candidates]
            listing = "; ".join(options)
            return Decision(
                "ask",
                question=f"{res.message or 'Há mais de um caso com esse número'}: {listing}. "
                "Qual deles?",
                options=options,
                aspect=aspect,
                law=law,
            )
        fact: dict[str, Any] = {
            "status": res.status,
            "typed": res.ref.typed,
            "message": res.message,
        }
        if res.ref.year is not None:
            kind = res.ref.kind or "process"
            fact.update(kind=kind, number=CaseId(kind, res.ref.number, res.ref.year).canonical)
        return _answer(res.message or "Não encontrei esse caso no cadastro.", "search", [fact])

    async def case_answer(self, number: str, aspect: str, question: str = "") -> Decision:
        """The aspect asked of one case, from its rows, with the record as the turn's facts;
        the movements and documents ``question`` names by their words follow (an event
        asked about — "quando foi autuado?" — is answered from its own row, whatever aspect
        was read)."""
        found = await lookup_case(self.registry, number, today=self.today)
        used: list[tuple[str, dict[str, Any]]] = [("lookup_case", {"number": number})]
        # the events the question names, unless a field or a list is asked ("quem é o
        # relator?" names no "Concluso ao relator")
        asks = question if aspect not in _FIELD_ASPECTS else ""
        if found.get("status") != "found" or aspect in ("status", "location", "since"):
            # "como está?", "onde está?": the card says it all (status, where and since when,
            # the last movement, the parties)
            text = case_card(found)
            decision = _answer(text, "search", [found])
            named = (
                await named_in_record(self.registry, number, asks, today=self.today)
                if asks and found.get("status") == "found"
                else []
            )
        else:
            asked = await case_aspect(
                self.registry,
                number,
                _ASPECT_PT.get(aspect, aspect),
                today=self.today,
                question=asks,
            )
            used.append(("case_movements", {"number": number, "limit": 10_000}))
            text = asked.text if asked.found and asked.text else case_card(found)
            decision = _answer(text, "search", [found], aspect=aspect)
            named = asked.named
        said = fold(text)
        new = [line for line in named if fold(line.partition(" — ")[2]) not in said]
        if new and decision.answer is not None:
            decision.answer["text"] = text + "\nNo cadastro: " + "; ".join(new) + "."
        status = str((found.get("record") or {}).get("status") or "")
        if decision.answer is not None and (meaning := status_meaning(question, status)):
            # "e o que é diligência? desde quando tá assim?": what the situation means
            decision.answer["text"] += "\n" + meaning
        decision.tools = used
        return decision

    async def _find(self, text: str, aspect: str, found: dict[str, Any] | None = None) -> Decision:
        # the frame read a search for a case: its words describe one, even those no case uses
        # (``found``: that search, when it was already made)
        plural = _ASKS_CASES.search(fold(text)) is not None
        if found is None or (plural and found.get("status") == "found"):
            found = await self._search_described(text, plural=plural, story=True)
        searched: list[tuple[str, dict[str, Any]]] = [("search_cases", {"query": text})]
        listed = [str(c["number"]) for c in found.get("cases") or []]
        winner = str(found["number"]) if found.get("status") == "found" else None
        winner = winner or await self._named_party(text, listed) or _year_described(text, found)
        if winner is not None:
            decision = await self.case_answer(winner, aspect, text)
        elif len(listed) > 1:
            decision = Decision(
                "ask",
                question=search_card(found) + "\nQual deles? Responda com o número ou o ano.",
                options=listed,
                evidence=[found],
                aspect=aspect,
            )
        else:
            decision = _answer(case_card(found), "search", [found])
        decision.tools = searched + decision.tools
        return decision

    async def _described_reply(self, text: str, aspect: str, law: str) -> Decision | None:
        """The answer to "de qual processo?" given as a description ("o das contas do
        prefeito de chapecó", "é a consulta da câmara de xanxerê sobre…"): the case the
        registry finds for it (its short list when a few fit), or ``None`` (none: the reply
        is read as a new question). A reply that names a norm is no description of a case."""
        if named_norms(text) or len(query_terms(text)) < 1:
            return None
        found = await self._search_described(text)
        if found.get("status") == "found":
            return await self.case_answer(str(found["number"]), aspect, text)
        listed = [str(c["number"]) for c in found.get("cases") or []]
        if found.get("status") == "search" and len(listed) > 1:
            return Decision(
                "ask",
                question=search_card(found) + "\nQual deles? Responda com o número ou o ano.",
                options=listed,
                evidence=[found],
                aspect=aspect,
                law=law,
            )
        return None
