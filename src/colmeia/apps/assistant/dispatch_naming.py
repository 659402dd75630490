"""Which of the registry's cases a turn's words name, for the dispatcher: a case described
without its number (its parties, body or subject), a party of the thread's case, the one of a
listed few a reply describes (:mod:`colmeia.apps.assistant.dispatch` chains it)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from typing import Any

from colmeia.apps.assistant.case_index import fold, query_terms
from colmeia.apps.assistant.case_lookup import lookup_case
from colmeia.apps.assistant.case_search import Nearest, search_cases
from colmeia.apps.assistant.dispatch_readings import (
    _HOW_TO,
    _MAX_TYPED,
    _SHORT_REPLY,
    _SUBJECT_YEARS,
    _YEARS,
)
from colmeia.apps.assistant.frame import CONFIDENT, TurnFrame
from colmeia.apps.assistant.registry import CaseRegistry
from colmeia.errors import ColmeiaError

# a case said in so many words
_SAYS_PROCESS = re.compile(r"\bprocessos?\b")
# the first word of a party that is a body, not a person or a company ("Prefeitura Municipal
# de…", "Câmara…", "Município de…"): its words are every town's
_BODY_WORDS = frozenset(
    ["prefeitura", "camara", "municipio", "estado", "secretaria", "governo", "fundo",
     "fundacao", "instituto", "tribunal", "ministerio", "assembleia", "uniao", "autarquia"]
)  # fmt: skip
# words of a body's or a company's name that name no one in particular
_NAME_FILLER = frozenset(
    ["municipal", "estadual", "federal", "publico", "publica", "servicos", "ltda", "comercio",
     "administracao", "saude", "educacao", "obras", "social", "geral", "nacional"]
)  # fmt: skip
# the words people use for the part a party plays in a case, by the registry's role (folded)
_ROLE_WORDS: dict[str, frozenset[str]] = {
    "responsavel": frozenset(["responsavel", "responsaveis"]),
    "denunciante": frozenset(["denunciante", "denunciantes"]),
    "representante": frozenset(["representante", "representantes"]),
    "procurador": frozenset(["procurador", "procuradora", "advogado", "advogada"]),
    "interessado": frozenset(["interessado", "interessada"]),
}
# the kind of company a party's name begins with, as people call it ("a construtora")
_COMPANY_WORDS = frozenset(
    ["construtora", "empresa", "viacao", "transportes", "transportadora", "distribuidora",
     "cooperativa", "associacao", "consorcio", "fornecedora", "incorporadora", "instituto"]
)  # fmt: skip
# a follow-up of this many words or fewer may ask of the thread's case by a party's role
_FOLLOW_UP_WORDS = 16
# how many of a message's words the registry's case must hold to be the one a message read as
# about the court (or out of scope) describes: with a case word ("o processo da merenda de
# Gaspar"), two; without, three ("fiz uma denúncia … a merenda … Serra Talhada")
_STRONG_CASE_WORDS = 2
_STRONG_WORDS = 3


class CaseNaming:
    """The registry's cases a turn's words name (none, one, or a short list)."""

    # set by Dispatcher.__init__
    registry: CaseRegistry
    today: dt.date | None
    nearest: Nearest | None

    async def _search_described(
        self, text: str, *, story: bool = False, plural: bool = False
    ) -> dict[str, Any]:
        """The registry's search of a case described by words (``loose``, with the case
        nearest in meaning when the words name none): :func:`search_cases`' reading."""
        return await search_cases(
            self.registry,
            text,
            today=self.today,
            loose=True,
            nearest=self.nearest,
            plural=plural,
            story=story,
        )

    async def _registry_names(self, frame: TurnFrame, text: str) -> dict[str, Any] | None:
        """The registry's search of ``text`` — a turn without a number that the classifier
        read as about a case (or a search for one), or a mixed question's case part — when it
        names exactly one case: a description searched as the registry ranks it, with one
        clear winner holding two of its words or more; else ``None``. Not a norm named, not
        a list: those stay with the documents or ask which case."""
        if not self._may_name(frame) or len(query_terms(text)) < 2:
            return None
        folded = fold(text)
        found = await self._search_described(
            text,
            # a story told about "um processo" ("minha vizinha falou que tem um processo aí
            # sobre as obras de contenção…"), or one the classifier read as a question about
            # a case ("queria saber se as contas de 2023 da câmara de tauá já foram
            # julgadas"), not how to file one or a right asked
            story=(
                bool(_SAYS_PROCESS.search(folded))
                or (frame.intent in ("case", "find") and frame.read_as in ("case", "find"))
            )
            and not _HOW_TO.search(folded),
        )
        return found if found.get("status") == "found" else None

    @staticmethod
    def _may_name(frame: TurnFrame) -> bool:
        """Whether a turn with no number may name a case of the registry by its words."""
        if frame.cases:
            return False
        if frame.about_a_case and frame.confidence < CONFIDENT and not frame.names_a_law:
            # a long story the classifier is unsure of, told about a case ("o meu vizinho fez
            # uma denúncia… queria saber se já julgaram"): its words may name the case
            return True
        return frame.intent == "mixed" or not (
            frame.names_a_law or frame.read_as not in ("case", "find")
        )

    async def _described_search(
        self, frame: TurnFrame, text: str, law: str
    ) -> dict[str, Any] | None:
        """One registry search of a case described without its number: its one clear case
        (as :meth:`_registry_names` reads it) or, when no law part waits and the turn was read
        as about a case, its short list of several; else ``None``."""
        names = self._may_name(frame)
        lists = not law and frame.read_as in ("case", "find")
        if not (names or lists) or len(query_terms(text)) < 2:
            return None
        found = await self._search_described(
            text,
            # read as a question about a case that the words must name, with nothing else
            # asked: a story around it ("sou jornalista… queria saber se as contas de 2023 da
            # prefeitura de patos já foram julgadas") is the one case holding every word of
            # it the registry knows — not a how-to, which the court's file answers
            story=lists and not _HOW_TO.search(fold(text)),
        )
        if names and found.get("status") == "found":
            return found
        several = found.get("status") == "search" and len(found.get("cases") or []) > 1
        return found if lists and several else None

    async def _party_of_thread(self, text: str, cases: Sequence[str]) -> str | None:
        """The thread's case one of whose parties ``text`` names, else ``None``: a person or
        company by two words of their name or more ("genival leitão" for Genival Araújo
        Leitão), the one case that fits; or, in a short follow-up, a party of the thread's
        case by the part it plays ("quem consta como responsável nessas contas?") or the kind
        of company it is ("e a construtora devolveu o dinheiro?"). Bodies are no people: "a
        prefeitura municipal" names every town's."""
        said = set(re.findall(r"[a-z]+", fold(text)))
        short = len(text.split()) <= _FOLLOW_UP_WORDS
        named: list[str] = []
        by_part: str | None = None
        for n, number in enumerate(cases[:_MAX_TYPED]):
            found = await lookup_case(self.registry, number, today=self.today)
            for party in found.get("parties") or []:
                words = re.findall(r"[a-z]+", fold(str(party.get("name", ""))))
                if not words or words[0] in _BODY_WORDS:
                    words = []
                if len(said.intersection(w for w in words if len(w) > 2)) >= 2:
                    named.append(number)
                if n == 0 and short and by_part is None:
                    role = fold(str(party.get("role", "")))
                    company = words[:1] if words and words[0] in _COMPANY_WORDS else []
                    if said & _ROLE_WORDS.get(role, frozenset()) or said.intersection(company):
                        by_part = number
        return named[0] if len(set(named)) == 1 else by_part

    async def _described_strongly(self, frame: TurnFrame, text: str) -> dict[str, Any] | None:
        """The one case the registry's words single out for ``text`` — two of its words when
        the message speaks of a case, three otherwise, more than any other case holds —,
        else ``None``."""
        try:
            _, ranked = await self.registry.find(text, limit=2)
        except ColmeiaError:
            return None
        need = _STRONG_CASE_WORDS if frame.case_worded else _STRONG_WORDS
        if not ranked or ranked[0].matched < need:
            return None
        if len(ranked) > 1 and ranked[1].matched >= ranked[0].matched:
            return None
        found = await lookup_case(self.registry, ranked[0].number, today=self.today)
        return (
            {**found, "typed": text, "searched": text} if found.get("status") == "found" else None
        )

    @staticmethod
    def _names_its_own(text: str, found: dict[str, Any]) -> bool:
        """Whether ``text`` names what is the found case's own — the town of its audited body
        ("jataí"), or a party by two words of the name — not only words every case of a court
        shares ("prefeitura", "parecer", "técnico") or one word a company's name happens to hold
        ("aqui do sertão" and Construtora Sertão Vivo)."""
        said = set(re.findall(r"[a-z0-9]+", fold(text)))

        def own(name: str) -> set[str]:
            words = re.findall(r"[a-z0-9]+", fold(name))
            return {w for w in words if len(w) >= 4 and w not in _BODY_WORDS | _NAME_FILLER}

        body = str((found.get("record") or {}).get("audited_body") or "")
        parties = [str(p.get("name", "")) for p in found.get("parties") or []]
        return bool(said & own(body)) or any(len(said & own(p)) >= 2 for p in parties)

    @staticmethod
    def _names_its_class(text: str, found: dict[str, Any]) -> bool:
        """Whether ``text`` calls the found case by what it is — its class's first word ("a
        consulta", "a tomada de contas", "a denúncia") —, not only by whose it is: a story
        told from a town's office ("to no rh da prefeitura de itacoatiara e um servidor pediu
        os dados dele") names the town of a case without speaking of one."""
        klass = fold(str((found.get("record") or {}).get("case_class") or "")).split()
        return bool(klass) and klass[0] in set(re.findall(r"[a-z]+", fold(text)))

    async def _party_named(self, text: str) -> dict[str, Any] | None:
        """The registry's one clear case for ``text`` when ``text`` also names one of its
        parties in full (two words or more); else ``None``."""
        if len(query_terms(text)) < 2:
            return None
        found = await self._search_described(text)
        if found.get("status") != "found":
            return None
        return found if await self._named_party(text, [str(found["number"])]) else None

    async def _named_party(self, text: str, listed: Sequence[str]) -> str | None:
        """The one listed case with a party whose whole name the person typed (a search
        ranks words; a name typed in full, even beside a typo elsewhere, settles it)."""
        said = f" {' '.join(re.findall(r'[a-z0-9]+', fold(text)))} "
        hits = []
        for number in listed:
            found = await lookup_case(self.registry, number, today=self.today)
            names = [str(p.get("name", "")) for p in found.get("parties") or []]
            words = [" ".join(re.findall(r"[a-z0-9]+", fold(n))) for n in names]
            if any(len(w.split()) >= 2 and f" {w} " in said for w in words):
                hits.append(number)
        return hits[0] if len(hits) == 1 else None

    async def _year_in_subject(self, text: str, year: int, options: Sequence[str]) -> str | None:
        """The one listed case about the year a reply names ("o das contas de 2021" of a list
        of 2022 and 2025 cases), else ``None``. When a listed number is of that year too, the
        year may be the number's: the case about it only when the reply's other words say so
        as well ("o das contas de 2023" beside a denúncia of 2023: "contas" is the accounts
        case's word)."""
        about = []
        for number in options:
            found = await lookup_case(self.registry, number, today=self.today)
            subject = str((found.get("record") or {}).get("subject") or "")
            if str(year) in _SUBJECT_YEARS.findall(subject):
                about.append(number)
        if len(about) != 1:
            return None
        if any(o.endswith(f"/{year}") or f"-{year}-" in o for o in options):
            # the year is maybe a number's: read by position and number, unless the words say
            words = _YEARS.sub(" ", text)
            return about[0] if await self._among(words, options) == about[0] else None
        return about[0]

    async def _described(self, text: str, options: Sequence[str]) -> str | None:
        """The one listed case a reply describes ("o do transporte", "o de castanhal"): the
        registry's ranking of the reply's words, among the listed cases, with one clear best."""
        if not options or re.search(r"\d", text) or len(text.split()) > _SHORT_REPLY:
            # a number or a year is read by position and number, not by words; a longer
            # message is a new question, not a pick
            return None
        return await self._among(text, options)

    async def _among(
        self, text: str, options: Sequence[str], *, unless_elsewhere: bool = False
    ) -> str | None:
        """The one of ``options`` whose registry rows hold more of ``text``'s words than any
        other (none: ``None``). ``unless_elsewhere``: none either when a case beyond them
        holds more — "e o de Castanhal?" in a thread about Ananindeua's school meals asks
        about another case, not the one of the thread that shares "merenda"."""
        if not options:
            return None
        try:
            _, ranked = await self.registry.find(text, limit=len(options) + 50)
        except ColmeiaError:
            return None
        among = [c for c in ranked if c.number in options and c.matched > 0]
        best = max((c.matched for c in among), default=0)
        top = [c.number for c in among if c.matched == best]
        if unless_elsewhere and any(c.matched > best for c in ranked):
            return None
        if len(top) > 1:
            # "o da câmara" of a list where the câmara is one case's audited body and the
            # other's interested party: the one the word says what it is about
            top = await self._about(text, top)
        return top[0] if len(top) == 1 else None

    async def _about(self, text: str, numbers: Sequence[str]) -> list[str]:
        """Of ``numbers``, those whose subject and audited body hold the most of ``text``'s
        words (all of them when none holds any)."""
        terms = query_terms(text)
        held: dict[str, int] = {}
        for number in numbers:
            found = await lookup_case(self.registry, number, today=self.today)
            record = found.get("record") or {}
            about = set(
                query_terms(f"{record.get('subject', '')} {record.get('audited_body', '')}")
            )
            held[number] = sum(1 for t in terms if t in about)
        most = max(held.values(), default=0)
        return [n for n in numbers if held[n] == most] if most else list(numbers)
