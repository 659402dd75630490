"""Cases found by description: the registry's ranking of a person's words read into one
clear case (its full lookup) or a short list to pick from."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from colmeia.apps.assistant.case_index import query_terms, query_words, tokens
from colmeia.apps.assistant.case_lookup import lookup_case
from colmeia.apps.assistant.ids import CaseId, IdentifierError, parse_case_id
from colmeia.apps.assistant.registry import CaseRegistry
from colmeia.apps.assistant.registry_records import CaseSummary
from colmeia.errors import ConfigurationError, StoreError

_STOP = frozenset(
    [
        "a",
        "o",
        "as",
        "os",
        "um",
        "uma",
        "uns",
        "umas",
        "de",
        "da",
        "do",
        "das",
        "dos",
        "em",
        "na",
        "no",
        "nas",
        "nos",
        "por",
        "pela",
        "pelo",
        "para",
        "com",
        "sem",
        "sobre",
        "que",
        "qual",
        "quais",
        "e",
        "ou",
        "é",
        "eu",
        "meu",
        "minha",
        "não",
        "sei",
        "numero",
        "número",
        "processo",
        "processos",
        "expediente",
        "expedientes",
        "caso",
        "casos",
        "tem",
        "ter",
        "isso",
        "esse",
        "essa",
        "este",
        "esta",
        "sobre",
        "onde",
        "está",
        "esta",
        "quero",
        "saber",
        "preciso",
        "gostaria",
        "algum",
        "alguma",
        "tribunal",
        "contas",
        "favor",
    ]
)
_WORD = re.compile(r"[\wÀ-ú]+(?:\.)?", re.UNICODE)
SEARCH_LIST = 5
#: how many ranked cases a search reads: the registry ranks every case, best group first
#: (see CaseIndex.rank), so this only bounds how many equally good ones are counted
SEARCH_POOL = 1000
#: a reading by meaning: (description, the numbers of the cases its words name) → the one it
#: describes, or None
Nearest = Callable[[str, Sequence[str]], Awaitable[str | None]]


def search_terms(text: str) -> list[str]:
    """The words of a description worth searching the registry for (no stop words)."""
    out: list[str] = []
    for m in _WORD.finditer(text):
        word = m.group(0).rstrip(".")
        if len(word) >= 3 and word.lower() not in _STOP and not word.isdigit():
            out.append(word)
    return list(dict.fromkeys(out))


async def search_cases(
    registry: CaseRegistry,
    query: str,
    *,
    today: dt.date | None = None,
    loose: bool = False,
    plural: bool = False,
    nearest: Nearest | None = None,
    story: bool = False,
) -> dict[str, Any]:
    """Cases matching a description, ranked by the registry (BM25 over subject, audited
    body, unit, class, rapporteur and parties; accents folded, Portuguese stems, the person's
    filler dropped — see :mod:`~colmeia.apps.assistant.case_index`).

    A case is relevant when it holds at least two thirds of the description's words. ``loose``
    (the turn was read as a search for a case, so its words describe one): when no case does,
    two thirds of the words some case holds, if they are a third of the description or more
    and single out at most :data:`SEARCH_LIST` cases. One
    relevant case holding more of them than any other (or all of them in a row, as a
    party's whole name, when others hold them apart) is the clear winner and comes back as
    its full lookup (``status`` ``found``); otherwise the relevant cases holding the most
    words come as ``status`` ``search``, newest first, the first :data:`SEARCH_LIST` of
    ``total``; none as ``search`` with an empty list. ``plural`` (the person asked for cases,
    "quais processos vocês têm sobre o município?"): a winner by one word is listed with the
    cases that hold all its words but that one — the town's other cases, not only the one
    whose body is "Prefeitura Municipal". ``nearest`` (``loose`` only): when the words
    name no case, the one a word names that is nearest the description in meaning
    (:mod:`~colmeia.apps.assistant.case_meaning`), if any. ``story`` (``loose`` only: the
    turn was read as a search for a case, not merely probed for one): a long story whose few
    registry words are all one case's is that case."""
    terms = query_terms(query)
    if not terms:
        return {"status": "search", "query": query, "total": 0, "cases": []}
    words = query_words(query)
    try:
        _, ranked = await registry.find(query, limit=SEARCH_POOL)
    except (StoreError, ConfigurationError) as exc:
        return {"status": "unavailable", "typed": query, "message": str(exc)}
    known = max((c.known for c in ranked), default=0)
    try:
        top = await _most_together(registry, _best(ranked, len(terms)), terms)
        if loose and not top and len(terms) > known and known * 3 >= len(terms):
            # words no case of the registry holds ("ônibus" beside a party named
            # "Transportes", "falam", a typo) cannot tell cases apart: the words it knows
            # decide — when they single out a few cases; a common word left alone ("a ponte
            # de <a town the registry does not know>") names no case
            top = await _most_together(registry, _best(ranked, known), terms)
            top = top if len(top) <= SEARCH_LIST else []
        if story and loose and not top and known >= 2:
            # a long story around a few words of the registry ("vcs não fazem nada, a
            # prefeitura de ponta porã paga ônibus escolar q nem passa…"): the story's other
            # words are no case's, so they cannot tell cases apart either — one case holding
            # every word the registry knows, and no other case holding them all, is the one
            top = [c for c in ranked if c.matched == known]
            top = top if len(top) == 1 else []
        if loose and not top and nearest is not None and ranked:
            # the registry's words name too few of the description's ("carros alugados pra
            # levar os alunos em Iguatu" for "transporte escolar por locação de veículos"):
            # the case nearest in meaning, among those a word names, when it clearly leads
            picked = await nearest(query, [c.number for c in ranked])
            top = [c for c in ranked if c.number == picked] if picked else []
        if not top:
            return {"status": "search", "query": query, "words": words, "total": 0, "cases": []}
        top = await _without_attached(registry, top)
    except (StoreError, ConfigurationError) as exc:
        return {"status": "unavailable", "typed": query, "message": str(exc)}
    if len(top) == 1 and plural:
        near = [c for c in ranked if c.matched >= max(1, top[0].matched - 1)]
        if len(near) > 1:
            near.sort(key=lambda c: (c.matched, c.date, c.number), reverse=True)
            top = await _without_attached(registry, near)
    if len(top) == 1:
        found_one = await lookup_case(registry, top[0].number, today=today)
        return {**found_one, "typed": query, "searched": query}
    return {
        "status": "search",
        "query": query,
        "words": words,
        "total": len(top),
        "cases": [c.as_dict() for c in top[:SEARCH_LIST]],
    }


def _best(ranked: Sequence[CaseSummary], words: int) -> list[CaseSummary]:
    """The cases holding two thirds of ``words`` or more and, among them, the most (then all
    in a row), newest first."""
    relevant = [c for c in ranked if c.matched * 3 >= words * 2]
    if not relevant:
        return []
    best = max((c.matched, c.phrase) for c in relevant)
    return sorted(
        (c for c in relevant if (c.matched, c.phrase) == best),
        key=lambda c: (c.date, c.number),
        reverse=True,
    )


async def _most_together(
    registry: CaseRegistry, cases: list[CaseSummary], terms: Sequence[str]
) -> list[CaseSummary]:
    """Of ``cases`` (equally good by the words they hold), those holding the most of the
    description's ``terms`` in one thing of theirs: what the case is about (its subject and
    audited body), its technical unit, class, rapporteur, or one party's name.

    "compra de medicamentos em Guaraciaba": a case of that town about school meals whose party
    is "Serviços Médicos Ltda" holds as many of the words as the one about medicines, but
    scattered — listed beside it, it makes "o de 2020" ambiguous where the person meant the
    one case of the list that fits. "Limpeza Urbana Rocha Ltda", a party's whole name, is
    held together by that party's case, not by the cases about urban cleaning."""
    if len(cases) < 2 or not terms:
        return cases
    wanted = set(terms)
    together: dict[str, int] = {}
    for c in cases:
        things = [f"{c.subject} {c.audited_body}", c.unit, c.type, c.rapporteur]
        ident = _case_id_of(c.number)
        if ident is not None:
            things += [p.name for p in await registry.parties(ident)]
        together[c.number] = max(len(wanted & set(tokens(t))) for t in things)
    most = max(together.values())
    return [c for c in cases if together[c.number] == most]


def _case_id_of(number: str) -> CaseId | None:
    try:
        return parse_case_id(number)
    except IdentifierError:
        return None


async def _without_attached(registry: CaseRegistry, cases: list[CaseSummary]) -> list[CaseSummary]:
    """``cases`` without the expedientes filed in a process that is among them: a reply to
    a diligence in the Ananindeua case is part of that case, not a second candidate."""
    numbers = {c.number for c in cases}
    out: list[CaseSummary] = []
    for c in cases:
        if c.kind == "expediente":
            record = await registry.expediente(parse_case_id(c.number))
            if record is not None and record.process in numbers:
                continue
        out.append(c)
    return out
