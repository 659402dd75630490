"""Case lookups as the assistant uses them: normalise, read the registry, render, check.

:func:`lookup_case` is the only way case data enters a conversation: it parses what the person
typed (refusing invalid numbers before any lookup), reads the registry and returns a plain
dict with ``status`` ``found`` / ``not_found`` / ``invalid``. :func:`case_card` renders that
dict in Portuguese without a model. :func:`check_case_answer` compares a model's phrasing with
what the registry returned, so a number, date, rapporteur or day count the registry did not
give is caught and the card is used instead.

The parts live apart: the lookup in :mod:`.case_lookup`, the cards in :mod:`.case_cards`, the
search by description in :mod:`.case_search`; this module holds the check of an answer against
what the registry returned, and re-exports the rest.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from typing import Any

from colmeia.apps.assistant.case_cards import (
    REGISTRY_DOWN,
    case_answer,
    case_card,
    evidence_cards,
    where,
)
from colmeia.apps.assistant.case_cards import _br as _br
from colmeia.apps.assistant.case_lookup import lookup_case
from colmeia.apps.assistant.case_search import Nearest, search_cases
from colmeia.apps.assistant.ids import CaseId, find_case_ids

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
