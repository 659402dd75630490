"""Case lookups as the assistant uses them: normalise, read the registry, render, check.

:func:`lookup_case` is the only way case data enters a conversation: it parses what the person
typed (refusing invalid numbers before any lookup), reads the registry and returns a plain
dict with ``status`` ``found`` / ``not_found`` / ``invalid``. :func:`case_card` renders that
dict in Portuguese without a model. :func:`check_case_answer` compares a model's phrasing with
what the registry returned, so a number, date, rapporteur or day count the registry did not
give is caught and the card is used instead.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from colmeia.apps.assistant.case_index import query_terms, query_words, tokens
from colmeia.apps.assistant.case_refs import read_case_refs
from colmeia.apps.assistant.ids import (
    CaseId,
    CaseKind,
    IdentifierError,
    IdentifierProblem,
    find_case_ids,
    parse_case_id,
    read_case_id,
)
from colmeia.apps.assistant.registry import CaseRegistry, CaseSummary, Expediente, Process
from colmeia.errors import ConfigurationError, StoreError

__all__ = [
    "REGISTRY_DOWN",
    "Nearest",
    "case_answer",
    "case_card",
    "check_case_answer",
    "evidence_cards",
    "lookup_case",
    "search_cases",
    "where",
]

_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_BR = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
_DAYS = re.compile(r"\b(\d[\d.]*)\s+dias\b", re.IGNORECASE)
_RAPPORTEUR = re.compile(
    r"\b(?:Cons(?:elheir[oa])?|Min(?:istr[oa])?|Rel(?:ator[a]?)?)\.?[ ]+"
    r"([A-ZÀ-Ú][\wÀ-ú]+(?:[ ]+(?:d[aeo]s?[ ]+)?[A-ZÀ-Ú][\wÀ-ú]+)*)"
)


def _br(date: str) -> str:
    try:
        return dt.date.fromisoformat(date[:10]).strftime("%d/%m/%Y")
    except ValueError:
        return date


def _thousands(n: int) -> str:
    return f"{n:,}".replace(",", ".")


async def lookup_case(
    registry: CaseRegistry,
    typed: str,
    *,
    today: dt.date | None = None,
    movements: int = 5,
    kind: CaseKind | None = None,
) -> dict[str, Any]:
    """Everything the registry holds about the case ``typed`` refers to (no model involved).

    ``typed`` is read as leniently as a person types (:func:`read_case_id`): a bare
    ``1950/2023`` is a process (``kind`` when given), and when no such process exists, the
    expediente of that number and year is tried. A two-digit year is completed ("TC 812/24"
    is TC/000812/2024, :func:`~colmeia.apps.assistant.case_refs.full_year`).
    """
    try:
        case = read_case_id(typed, kind=kind, today=today)
    except IdentifierError as exc:
        short = _short_year(typed, kind, today) if exc.code == "year_digits" else None
        if short is None:
            problem = IdentifierProblem(exc.text, exc.reason, exc.kind, exc.code)
            return {"status": "invalid", "typed": typed, "message": problem.message_pt}
        case = short
    bare = not find_case_ids(typed, today=today)
    try:
        found = await _read(registry, case, typed, today, movements)
        if found is None and bare and kind is None:
            other = CaseId(
                "expediente" if case.kind == "process" else "process", case.number, case.year
            )
            found = await _read(registry, other, typed, today, movements)
    except (StoreError, ConfigurationError) as exc:
        return {
            "status": "unavailable",
            "number": case.canonical,
            "kind": case.kind,
            "typed": typed,
            "message": str(exc),
        }
    if found is None:
        return {"status": "not_found", "kind": case.kind, "number": case.canonical, "typed": typed}
    return found


def _short_year(typed: str, kind: CaseKind | None, today: dt.date | None) -> CaseId | None:
    """``typed`` with its two-digit year completed ("TC 812/24" → TC/000812/2024), when it
    holds one such reference."""
    refs = read_case_refs(typed, today=today)
    year = refs[0].year if len(refs) == 1 else None
    if year is None:
        return None
    ref = refs[0]
    try:
        return parse_case_id(
            CaseId(ref.kind or kind or "process", ref.number, year).canonical, today=today
        )
    except IdentifierError:
        return None


async def _read(
    registry: CaseRegistry, case: CaseId, typed: str, today: dt.date | None, movements: int
) -> dict[str, Any] | None:
    record: Process | Expediente | None = (
        await registry.process(case) if case.kind == "process" else await registry.expediente(case)
    )
    if record is None:
        return None
    location = await registry.location(case, today)
    return {
        "status": "found",
        "kind": case.kind,
        "number": case.canonical,
        "typed": typed,
        "record": record.as_dict(),
        "location": location.as_dict() if location else None,
        "parties": [p.as_dict() for p in await registry.parties(case)],
        "movements": [m.as_dict() for m in await registry.movements(case, movements)],
        "documents": [d.as_dict() for d in await registry.documents(case, 5)],
    }


REGISTRY_DOWN = (
    "O cadastro de processos não respondeu agora; tente novamente em instantes "
    "(quem administra o serviço confere a configuração COLMEIA_ASSISTANT_REGISTRY)."
)


def _kind_pt(kind: str) -> str:
    return "processo" if kind == "process" else "expediente"


def case_card(found: dict[str, Any]) -> str:
    """The lookup rendered in Portuguese, straight from the registry's fields."""
    status = found.get("status")
    if status == "search":
        return search_card(found)
    if status == "unavailable":
        return str(found.get("message") or REGISTRY_DOWN)
    if status == "invalid":
        return f"{found['message']} Confira o número e envie novamente."
    kind = _kind_pt(str(found.get("kind", "process")))
    number = found.get("number", "")
    if status != "found":
        fmt = "TC/XXXXXX/AAAA" if kind == "processo" else "EXP-AAAA-XXXXX"
        return (
            f"Não encontrei o {kind} {number} no cadastro. Confira o número (formato {fmt}); "
            "se ele estiver correto, o caso pode não estar registrado neste sistema."
        )
    # .get throughout: a registry behind HTTP may leave fields out, and the card still shows
    # what it did say (the facts check renders cards of whatever evidence it holds)
    r = found.get("record") or {}
    loc = found.get("location") or {}
    lines: list[str] = []
    if kind == "processo":
        kind_line = " / ".join(x for x in (r.get("case_class"), r.get("subclass")) if x)
        lines.append(f"Processo {number} — {kind_line}")
        if r.get("audited_body"):
            lines.append(f"Órgão fiscalizado: {r['audited_body']}")
        lines.append(
            f"Autuado em {_br(str(r.get('filed_on', '')))} · Unidade técnica: "
            f"{r.get('unit', '')} · Relator: {r.get('rapporteur', '')}"
        )
    else:
        lines.append(f"Expediente {number} — {r.get('type', '')}")
        lines.append(
            f"Aberto em {_br(str(r.get('opened_on', '')))} · Origem: {r.get('origin_unit', '')}"
        )
        if r.get("process"):
            lines.append(f"Vinculado ao processo {r['process']}")
    lines.append(f"Situação atual: {r.get('status', '')}")
    if loc:
        lines.append(f"Onde está: {where(loc)}")
        last = loc.get("last_movement")
        if last:
            lines.append(f"Última movimentação: {_br(last['at'])} — {last['description']}")
    if r.get("subject"):
        lines.append(f"Assunto: {r['subject']}")
    parties = found.get("parties") or []
    if parties:
        lines.append("Partes: " + "; ".join(f"{p['name']} ({p['role']})" for p in parties))
    return "\n".join(lines)


def where(loc: dict[str, Any]) -> str:
    """Where a case is and since when; when its latest movement sent it elsewhere, both, and
    that the registry does not say since when (never the filing date as a guess)."""
    if loc.get("conflict_unit"):
        last = loc.get("last_movement") or {}
        return (
            f"{loc.get('location', '')}, segundo o cadastro — atenção: a última movimentação"
            f" ({_br(str(last.get('at', '')))}) registra envio para {loc['conflict_unit']}; "
            "o cadastro não diz desde quando o caso está onde consta"
        )
    return (
        f"{loc.get('location', '')}, desde {_br(str(loc.get('since', '')))} "
        f"(há {_thousands(int(loc.get('days') or 0))} dias)"
    )


def case_answer(found: dict[str, Any], aspect: str | None) -> str:
    """The part of the card a follow-up asks about ("e as partes?" → the parties), with the
    case's number; the whole card when the aspect is unknown or the case was not found."""
    if found.get("status") != "found" or aspect is None:
        return case_card(found)
    kind = _kind_pt(str(found.get("kind", "process")))
    head = f"{kind.capitalize()} {found.get('number', '')}"
    r = found["record"]
    loc = found.get("location") or {}
    if aspect == "parties" and found.get("parties"):
        names = "; ".join(f"{p['name']} ({p['role']})" for p in found["parties"])
        return f"Partes do {kind} {found['number']}: {names}"
    if aspect in ("since", "location") and loc:
        return f"{head} — onde está: {where(loc)}. Situação atual: {r['status']}"
    if aspect == "rapporteur" and r.get("rapporteur"):
        return f"{head} — Relator: {r['rapporteur']}"
    if aspect == "status":
        return f"{head} — Situação atual: {r['status']}" + (
            (
                f"; onde está: {where(loc)}"
                if loc.get("conflict_unit")
                else f"; onde está: {loc['location']}, desde {_br(loc['since'])}"
            )
            if loc
            else ""
        )
    if aspect == "movements" and found.get("movements"):
        lines = [f"Últimas movimentações do {kind} {found['number']}:"]
        lines += [
            f"- {_br(m['at'])} — {m['description']} ({m['to_unit']})" for m in found["movements"]
        ]
        return "\n".join(lines)
    if aspect == "subject" and r.get("subject"):
        return f"{head} — Assunto: {r['subject']}"
    if aspect == "class" and r.get("case_class"):
        return f"{head} — Classe: " + " / ".join(
            x for x in (r.get("case_class"), r.get("subclass")) if x
        )
    return case_card(found)


def search_card(found: dict[str, Any]) -> str:
    """A registry search rendered: none found, or the short list to pick from."""
    cases = found.get("cases") or []
    # the words looked for, not the whole sentence they were typed in
    query = found.get("words") or found.get("query", "")
    if not cases:
        return (
            f"Não encontrei no cadastro nenhum processo ou expediente sobre “{query}”. "
            "Se tiver o número (TC/XXXXXX/AAAA ou EXP-AAAA-XXXXX), envie-o; ou descreva de "
            "outra forma (assunto, unidade, parte ou relator)."
        )
    lines = [f"Encontrei {found.get('total', len(cases))} casos no cadastro sobre “{query}”:"]
    lines += [f"{i}. {_summary_line(c)}" for i, c in enumerate(cases, start=1)]
    return "\n".join(lines)


def _summary_line(c: dict[str, Any]) -> str:
    kind = "Processo" if c.get("kind") == "process" else "Expediente"
    return f"{kind} {c['number']} — {c.get('subject') or c.get('type', '')} ({c.get('status', '')})"


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


def evidence_cards(evidence: Sequence[dict[str, Any]]) -> str:
    """Every lookup of a turn rendered as cards, one after another."""
    seen: set[str] = set()
    cards: list[str] = []
    for item in evidence:
        key = str(item.get("number") or item.get("typed"))
        if key in seen:
            continue
        seen.add(key)
        cards.append(case_card(item))
    return "\n\n".join(cards)


def _facts(evidence: Sequence[dict[str, Any]]) -> tuple[set[str], set[str], set[int], str]:
    numbers: set[str] = set()
    dates: set[str] = set()
    days: set[int] = set()
    text: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str):
            text.append(value)
            for m in _ISO.finditer(value):
                dates.add(m.group(0))
        elif isinstance(value, int) and not isinstance(value, bool):
            days.add(value)

    for item in evidence:
        if item.get("number"):
            numbers.add(str(item["number"]))
        walk(item)
    return numbers, dates, days, " ".join(text)


# What a case is or went through, in the words a model uses; each one the answer writes
# must be in the registry's status, location or movements (not in a document's title).
_STATUS_WORDS = re.compile(
    r"\b(arquiv\w*|julg\w*|regular(?:es)?|irregular(?:es)?|instru\w*|sobrest\w*|"
    r"aguardando\s+\w+|pauta|conclus\w*|recurs\w*|autua\w*|recebid\w*|an[aá]lise|respondid\w*|"
    r"juntad\w*|tr[aâ]nsit\w*|extint\w*|cancelad\w*|suspens\w*|encerrad\w*|finalizad\w*|"
    r"baixad\w*|aprovad\w*|rejeitad\w*|condenad\w*|multad\w*|absolvid\w*|dilig[eê]ncia\w*|"
    r"cita[cç][aã]o|citad\w*|parecer|distribu[ií]d\w*|devolvid\w*|conclu[ií]d\w*)",
    re.IGNORECASE,
)
_UNIT = re.compile(
    r"\b(?:Gabinete|Secretaria|Diretoria|Coordenadoria|Departamento|Divis[aã]o|Servi[cç]o|"
    r"Protocolo|Plen[aá]rio|C[aâ]mara|Presid[eê]ncia|Ouvidoria|Corregedoria|Procuradoria|"
    r"Assessoria|Arquivo|Minist[eé]rio\s+P[uú]blico)"
    r"(?:[ ]+(?:d[aeo]s?[ ]+)?[A-ZÀ-Ú][\wÀ-ú]*)*"
)
_CLASSES = re.compile(
    r"\b(Tomada de Contas(?: Especial)?|Presta[cç][aã]o de Contas|Representa[cç][aã]o|"
    r"Den[uú]ncia|Auditoria|Consulta|Recurso de Reconsidera[cç][aã]o|Pedido de Reexame|"
    r"Embargos de Declara[cç][aã]o|Admiss[aã]o de Pessoal|Aposentadoria|Pens[aã]o|Inspe[cç][aã]o|"
    r"Monitoramento|Acompanhamento|Levantamento)\b"
)
_NAME = re.compile(
    r"\b[A-ZÀ-Ú][\wÀ-ú]+(?:[ ]+(?:(?:d[aeo]s?|e)[ ]+)?[A-ZÀ-Ú][\wÀ-ú]+)+(?:[ ]+Ltda\.?)?"
)
_NOT_NAMES = frozenset(
    [
        "o",
        "a",
        "os",
        "as",
        "no",
        "na",
        "nos",
        "nas",
        "em",
        "ao",
        "segundo",
        "conforme",
        "pelo",
        "pela",
        "de",
        "do",
        "da",
        "sobre",
        "para",
        "o",
        "cons",
        "conselheiro",
        "conselheira",
        "relator",
        "relatora",
        "sr",
        "sra",
        "dr",
        "dra",
        "ministro",
        "ministra",
        "processo",
        "expediente",
        "situação",
        "partes",
        "parte",
        "onde",
        "última",
        "assunto",
        "unidade",
        "autuado",
        "aberto",
    ]
)
_GENERAL_NAMES = ("tribunal de contas",)


def _allowed(evidence: Sequence[dict[str, Any]]) -> tuple[str, str]:
    """The registry's words for a case's state (status, location, movements, the card's own
    labels), and everything it said about the case (adds the subject, parties, documents'
    kinds): what a model may repeat."""
    state: list[str] = []
    every: list[str] = []
    for item in evidence:
        if item.get("status") == "search":
            for c in item.get("cases") or []:
                every.extend(str(v) for v in c.values())
                state.extend(str(c.get(k, "")) for k in ("status", "location"))
            continue
        if item.get("status") != "found":
            continue
        r = item.get("record") or {}
        loc = item.get("location") or {}
        state += [
            str(r.get("status", "")),
            str(r.get("location", "")),
            str(loc.get("location", "")),
        ]
        state.append("autuado aberto" if r else "")
        last = loc.get("last_movement") or {}
        state += [str(last.get("description", "")), str(last.get("status", ""))]
        for m in item.get("movements") or []:
            state += [str(m.get(k, "")) for k in ("description", "status", "to_unit", "from_unit")]
        every += state
        every += [f"{p.get('name', '')} {p.get('role', '')}" for p in item.get("parties") or []]
        every += [str(d.get("kind", "")) for d in item.get("documents") or []]
        # The card shows every field of a Process or Expediente record (registries behind HTTP
        # are read into those dataclasses, extra fields dropped), so it stands for the record.
        every.append(case_card(item))
    return " ".join(state).lower(), " ".join(every).lower()


def _state_claims(answer: str, allowed_state: str) -> list[str]:
    problems: list[str] = []
    for m in _STATUS_WORDS.finditer(answer):
        word = m.group(0).lower()
        stem = word.split()[-1][:6] if word.startswith("aguardando") else word[:6]
        if stem not in allowed_state:
            problems.append(f"{m.group(0)!r} is not in the registry's status or movements")
    return problems


def states_a_record_fact(answer: str, found: dict[str, Any]) -> bool:
    """Whether ``answer`` says something of the record ``found``: a party's name, where the
    case is, its status, rapporteur or subject. Free of errors is not enough for an answer:
    a question back that repeats the person's own ("Onde está o processo X e desde quando?",
    the 0.5B model after its lookup) names the case and claims nothing, yet tells nothing."""
    record = found.get("record") or {}
    said = [str(p.get("name", "")) for p in found.get("parties", [])]
    said.append(str((found.get("location") or {}).get("location", "")))
    said += [str(record.get(k, "")) for k in ("status", "rapporteur", "subject")]
    text = answer.lower()
    return any(x.strip() and x.lower() in text for x in said)


def check_case_answer(answer: str, evidence: Sequence[dict[str, Any]]) -> list[str]:
    """What ``answer`` says about cases that the registry lookups did not return.

    Checks case numbers, dates, day counts and rapporteur names, and every registry fact in
    the wording: status and what happened ("foi arquivado", "julgado regular") against the
    case's status and movements, units ("está no Gabinete da Presidência") against its
    location and movements, classes against its class, and people's and bodies' names
    against its parties and record. An empty list means every such detail is backed by
    ``evidence``. When nothing was found, any detail is invented.
    """
    problems: list[str] = []
    numbers, dates, days, text = _facts(evidence)
    allowed_state, allowed = _allowed(evidence)
    for found in find_case_ids(answer):
        if isinstance(found, CaseId) and found.canonical not in numbers:
            problems.append(f"case {found.canonical} was not looked up")
    for m in _BR.finditer(answer):
        try:
            iso = dt.date(int(m.group(3)), int(m.group(2)), int(m.group(1))).isoformat()
        except ValueError:
            problems.append(f"{m.group(0)} is not a date")
            continue
        if iso not in dates:
            problems.append(f"date {m.group(0)} is not in the registry's answer")
    for m in _ISO.finditer(answer):
        if m.group(0) not in dates:
            problems.append(f"date {m.group(0)} is not in the registry's answer")
    for m in _DAYS.finditer(answer):
        n = int(m.group(1).replace(".", ""))
        if n not in days:
            problems.append(f"{n} days is not in the registry's answer")
    for m in _RAPPORTEUR.finditer(answer):
        if m.group(1) not in text:
            problems.append(f"{m.group(0)!r} is not in the registry's answer")
    problems += _state_claims(answer, allowed_state)
    for m in _UNIT.finditer(answer):
        if m.group(0).lower() not in allowed:
            problems.append(f"the unit {m.group(0)!r} is not in the registry's answer")
    for m in _CLASSES.finditer(answer):
        if m.group(0).lower() not in allowed:
            problems.append(f"the class {m.group(0)!r} is not in the registry's answer")
    for m in _NAME.finditer(answer):
        words = m.group(0).split()
        while words and words[0].lower().rstrip(".") in _NOT_NAMES:
            words = words[1:]
        name = " ".join(words).lower()
        if len(words) < 2 or name in allowed or any(g in name for g in _GENERAL_NAMES):
            continue
        if _UNIT.fullmatch(" ".join(words)) or _CLASSES.fullmatch(" ".join(words)):
            continue  # judged above
        problems.append(f"the name {' '.join(words)!r} is not in the registry's answer")
    if evidence and all(e.get("status") != "found" for e in evidence) and (dates or problems):
        problems.append("nothing was found, so the answer may not describe a case")
    return problems
