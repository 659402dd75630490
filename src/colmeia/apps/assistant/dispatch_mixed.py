"""A mixed question's two halves answered together for the dispatcher: the registry for the
case part, the RAG agent for the law, in parallel, and the two put in one answer
(:mod:`colmeia.apps.assistant.dispatch` chains it)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

from colmeia.apps.assistant.case_aspects import rows_state
from colmeia.apps.assistant.case_index import fold
from colmeia.apps.assistant.conversation import case_heading
from colmeia.apps.assistant.dispatch_case import CaseAnswers
from colmeia.apps.assistant.dispatch_decision import Decision
from colmeia.apps.assistant.frame import RESTRICTED, TurnFrame
from colmeia.apps.assistant.status_meaning import status_meaning
from colmeia.errors import ColmeiaError

# words that ask what the law says or allows, not what a case's rows record
_LAW_WORDS = re.compile(
    r"\b(?:lei|leis|legal|legais|artigo|art|norma|direito|direitos|permit\w*|pode|podem|"
    r"posso|obrigad\w*|constitui\w*|legisla\w*|segundo|conforme)\b",
    re.IGNORECASE,
)


class MixedAnswers(CaseAnswers):
    """The law's half of a turn (the RAG agent), and a mixed question's two halves at once."""

    # set by Dispatcher.__init__
    rag: Any

    async def _mixed(
        self, frame: TurnFrame, cases: Sequence[str], told: Sequence[str] = ()
    ) -> Decision:
        """Both halves at once: the registry for the case part, the RAG agent for the law."""
        law_part = frame.law_part or frame.text
        case_decision: Decision
        rag: dict[str, Any]
        case_decision, rag = await asyncio.gather(
            self._case(frame, cases, law=law_part, told=told), self._law(law_part)
        )
        if (
            case_decision.kind == "ask"
            and not case_decision.options
            and not cases
            and not frame.cases
            and not RESTRICTED.search(fold(frame.case_part or frame.text))
        ):
            # no case typed, described or talked about (a pointer, "dela", has no case of the
            # thread to point at): "ganhei um processo contra
            # o estado… tenho preferência?", "…a estatal tem que pagar? é verdade?" tell a
            # situation and ask the law; asking which case first would leave the question
            # waiting on a number the person never had in mind
            return Decision("law", law=frame.text)
        if case_decision.kind != "answer" or case_decision.answer is None:
            return case_decision  # which case? asked first; the law part waits in the pending
        shown = [
            str(f.get("number"))
            for f in case_decision.answer.get("facts") or []
            if f.get("status") == "found"
        ]
        found = [f for f in case_decision.answer.get("facts") or [] if f.get("status") == "found"]
        # the shown case's record is in its facts: its situation is read there, not looked up
        status = str((found[0].get("record") or {}).get("status") or "") if len(found) == 1 else ""
        meaning = status_meaning(law_part, status) if status else None
        if meaning is not None and not frame.norms:
            # "e o que é diligência?": what the case's situation means, told with its answer
            if meaning not in case_decision.answer["text"]:
                case_decision.answer["text"] += "\n" + meaning
            return case_decision
        if (
            len(shown) == 1
            and not frame.norms
            and not _LAW_WORDS.search(law_part)
            and await rows_state(self.registry, shown[0], law_part, today=self.today)
        ):
            # "recebemos a citação, qual o prazo para a defesa?": the case's own rows say it
            # (its citation's deadline); the law's general deadlines would answer another
            # question
            return case_decision
        both = Decision("answer", self.both(case_decision.answer, rag, frame.case_part, law_part))
        both.tools = case_decision.tools
        return both

    async def _law(self, question: str) -> dict[str, Any]:
        try:
            result: dict[str, Any] = await self.rag.run(question)
        except ColmeiaError as exc:
            return {"answer": f"Não foi possível consultar os documentos: {exc}", "citations": []}
        return result

    @staticmethod
    def both(
        case: dict[str, Any], rag: dict[str, Any], case_part: str, law_part: str
    ) -> dict[str, Any]:
        """One answer for a mixed question: the case's facts, then the cited passages."""
        text = (
            f"{case_heading(case.get('facts') or [], case_part)}:\n{case['text']}\n\n"
            f"Sobre a norma ({law_part.strip()}):\n{rag.get('answer', '')}"
        )
        return {
            "text": text,
            "agent": "main",
            "citations": list(rag.get("citations") or []),
            "sources": list(rag.get("sources") or []),
            "facts": list(case.get("facts") or []),
            "notes": list(rag.get("notes") or []),
            "quality": rag.get("quality"),
            "passed": rag.get("passed"),
            "parts": {"case": case["text"], "law": rag.get("answer", "")},
        }
