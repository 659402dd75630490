"""Answers to what people ask about one case, from the registry's own rows.

"Já foi julgado?", "quando foi arquivado?", "quais documentos tem no processo?", "está com
quem?", "desde quando?", "quem é o relator?", "tem prazo?" — each is an *aspect* of a case.
:func:`case_aspect` reads the case's record, every movement and every document, and writes the
answer in Portuguese from those rows only: the dates, units and documents it names are the
registry's, and when the registry holds nothing that answers (no judgment recorded, no
deadline field), the answer says so and gives what the registry does hold (the current status
and the latest movement) instead of guessing.

Aspect names are Portuguese (:data:`ASPECTS`); the English names the rest of the assistant
uses (``rapporteur``, ``parties``, ``since``…) are accepted too (:func:`normalize_aspect`).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

from colmeia.apps.assistant.case_cards import case_card, where
from colmeia.apps.assistant.case_index import fold
from colmeia.apps.assistant.case_lookup import lookup_case
from colmeia.apps.assistant.case_refs import read_case_refs
from colmeia.apps.assistant.ids import CaseId, parse_case_id
from colmeia.apps.assistant.registry import CaseRegistry
from colmeia.errors import ConfigurationError, StoreError

__all__ = [
    "ASPECTS",
    "AspectAnswer",
    "case_aspect",
    "events_named",
    "named_in_record",
    "normalize_aspect",
]

#: the aspects of a case a person asks about, by their Portuguese names
ASPECTS = (
    "situacao",
    "localizacao",
    "desde_quando",
    "relator",
    "partes",
    "movimentacoes",
    "julgamento",
    "arquivamento",
    "documentos",
    "prazos",
    "assunto",
    "classe",
    "orgao",
)
_ALIASES = {
    "status": "situacao",
    "situação": "situacao",
    "location": "localizacao",
    "localização": "localizacao",
    "onde": "localizacao",
    "since": "desde_quando",
    "desde quando": "desde_quando",
    "rapporteur": "relator",
    "relatora": "relator",
    "parties": "partes",
    "movements": "movimentacoes",
    "movimentações": "movimentacoes",
    "historico": "movimentacoes",
    "judgment": "julgamento",
    "julgado": "julgamento",
    "archiving": "arquivamento",
    "arquivado": "arquivamento",
    "documents": "documentos",
    "deadlines": "prazos",
    "prazo": "prazos",
    "subject": "assunto",
    "class": "classe",
    "audited_body": "orgao",
    "unidade_jurisdicionada": "orgao",
    "órgão": "orgao",
}
# what a movement says when a case was judged / archived (folded text); an inclusion in the
# agenda ("pauta de julgamento") is not a judgment
_JUDGED = re.compile(
    r"(?<!transito em )\bjulgad[oa]s?\b|\bjulgamento (?:realizado|em sessao)|\bacordao\b"
)
_ON_AGENDA = re.compile(r"\bpauta\b")
_ARCHIVED = re.compile(r"\barquiv")
_APPEAL = re.compile(r"\brecurso\b")
_LIST_MOVEMENTS = 10


@dataclass(slots=True)
class AspectAnswer:
    """The answer to one aspect of one case: ``text`` for the person, ``found`` whether the
    case is in the registry, ``rows`` the movements/documents the text was written from."""

    number: str
    aspect: str
    text: str
    found: bool
    rows: list[dict[str, Any]] = field(default_factory=list)
    #: the movements and documents the question names (:func:`events_named`), when asked with one
    named: list[str] = field(default_factory=list)


# words every record of a case uses ("Autuação do processo", "Arquivamento do processo"):
# naming them names no event
_RECORD_WORDS = frozenset({"process", "expedient", "cas", "tc"})
# a question's word names a record's when one begins the other this far (stems of one word in
# two forms differ at their ends: "autuado" → "autu", "Autuação" → "autuaca")
_SHARED_START = 4
# the noun a "qual/quais" question asks for, folded ("qual era o pregão" → "pregao")
_WHICH = re.compile(
    r"\bqua(?:l|is)\s+(?:(?:e|era|foi|sao|eram|seria)\s+)?(?:(?:o|a|os|as)\s+)?([a-z]{4,})"
)
# a question of how much, folded ("quanto", "qual o valor", "quantos reais")
_HOW_MUCH = re.compile(
    r"\b(?:quant[oa]s?(?!\s+(?:tempo|dias?|anos?|meses|semanas|horas|vezes|documentos|"
    r"processos|partes|movimenta\w*))|valor(?:es)?|reais|montante|quantia)\b"
)
# a sum of money as the registry writes it: "R$ 412.380,00", "R$ 1,2 milhão"
_MONEY = re.compile(r"R\$\s*\d")


def events_named(question: str, found: dict[str, Any], limit: int = 3) -> list[str]:
    """The movements and documents of a case (``found`` with its ``movements`` and
    ``documents``) that ``question`` names by one of their words — "quando ele foi autuado?"
    names the autuação, "o acórdão saiu?" the acórdão —, newest first, as lines with their
    dates: what the registry records of the event asked about, whatever aspect was read."""
    from colmeia.apps.assistant.relations import content_terms

    def alike(a: str, w: str) -> bool:
        return a[:_SHARED_START] == w[:_SHARED_START] and (a.startswith(w) or w.startswith(a))

    r = found.get("record") or {}
    # the words that describe the case itself (its subject, body, class) name the case — "o
    # processo da merenda, como tá?" —, not one of its events
    described = {
        w
        for field_ in ("subject", "audited_body", "case_class", "subclass", "type")
        for w in content_terms(str(r.get(field_) or ""))
    }
    # the case's own number is how the person points at it, not an event's word: "qnd o
    # 10/2022 vai ser julgado?" does not name every paper whose title holds 2022
    unnumbered = question
    for ref in read_case_refs(question):
        unnumbered = unnumbered.replace(ref.typed, " ")
    asked = [w for w in content_terms(unnumbered) if len(w) >= _SHARED_START]
    # "qual era o pregão?": the thing asked for by "qual" is sought even if the case's
    # description holds its word (which pregão, which contract: its paper says)
    sought = set(content_terms(" ".join(_WHICH.findall(fold(unnumbered)))))
    asked = [
        w
        for w in asked
        if w not in _RECORD_WORDS and (w in sought or not any(alike(w, d) for d in described))
    ]

    # "quanto ele tem que devolver?", "e o valor?": how much is asked, and a line stating a
    # sum of money answers it whatever its other words ("débito de R$ 412.380,00")
    how_much = _HOW_MUCH.search(fold(question)) is not None

    def names(text: str) -> bool:
        if how_much and _MONEY.search(text):
            return True
        words = [w for w in content_terms(text) if w not in _RECORD_WORDS]
        return any(alike(a, w) for a in asked for w in words if len(w) >= _SHARED_START)

    lines: list[tuple[str, str]] = []
    for m in found.get("movements") or []:
        if names(str(m.get("description", ""))):
            lines.append((str(m.get("at", "")), f"{_br(str(m['at']))} — {m['description']}"))
    for d in found.get("documents") or []:
        title = str(d.get("title") or d.get("kind") or "")
        if names(f"{d.get('kind', '')} {title}"):
            lines.append((str(d.get("date", "")), f"{_br(str(d.get('date', '')))} — {title}"))
    lines.sort(key=lambda x: x[0], reverse=True)
    return [line for _, line in lines[:limit]]


def normalize_aspect(name: str) -> str | None:
    """The Portuguese aspect ``name`` stands for (``"rapporteur"`` → ``"relator"``), or
    ``None`` when it is none of :data:`ASPECTS`."""
    key = name.strip().lower().replace("-", "_")
    key = _ALIASES.get(key, key)
    key = fold(key).replace(" ", "_")
    return key if key in ASPECTS else None


def _br(date: str) -> str:
    try:
        return dt.date.fromisoformat(date[:10]).strftime("%d/%m/%Y")
    except ValueError:
        return date


def _text(m: dict[str, Any]) -> str:
    return fold(f"{m.get('description', '')} {m.get('status', '')}")


def _move(m: dict[str, Any]) -> str:
    return f"{_br(str(m['at']))} — {m['description']} ({m['to_unit']})"


def _latest(head: str, r: dict[str, Any], moves: list[dict[str, Any]]) -> str:
    out = f"Situação atual do {head}: {r.get('status', '')}"
    if moves:
        out += f"; última movimentação: {_move(moves[0])}"
    return out + "."


def _judgment(head: str, r: dict[str, Any], moves: list[dict[str, Any]]) -> tuple[str, list[Any]]:
    judged = [m for m in moves if _JUDGED.search(_text(m)) and not _ON_AGENDA.search(_text(m))]
    if judged:
        first = judged[-1]  # moves are newest first: the judgment is the oldest such movement
        text = f"O {head} foi julgado em {_br(str(first['at']))} ({first['description']})."
        later = [m for m in moves if m["seq"] > first["seq"] and _APPEAL.search(_text(m))]
        if later:
            text += f" Depois disso: {_move(later[-1])}."
        return text, [first, *later[-1:]]
    agenda = [m for m in moves if _ON_AGENDA.search(_text(m))]
    if agenda:
        return (
            f"Não consta julgamento do {head} no cadastro; ele foi incluído em pauta de "
            f"julgamento em {_br(str(agenda[0]['at']))}. {_latest(head, r, moves)}",
            agenda[:1],
        )
    return f"Não consta julgamento do {head} no cadastro. {_latest(head, r, moves)}", moves[:1]


def _archiving(head: str, r: dict[str, Any], moves: list[dict[str, Any]]) -> tuple[str, list[Any]]:
    archived = [m for m in moves if _ARCHIVED.search(_text(m))]
    if archived:
        m = archived[0]
        return f"O {head} foi arquivado em {_br(str(m['at']))} ({m['description']}).", [m]
    return f"Não consta arquivamento do {head} no cadastro. {_latest(head, r, moves)}", moves[:1]


def _documents(
    head: str, docs: list[dict[str, Any]], r: dict[str, Any], moves: list[dict[str, Any]]
) -> str:
    if not docs:
        # nothing on file answers ("a empresa já se defendeu?"): what the registry does hold
        # — the situation ("Aguardando defesa") and the latest movement — says as much as it can
        return f"O cadastro não lista documentos do {head}. {_latest(head, r, moves)}"
    lines = [f"Documentos do {head} no cadastro ({len(docs)}):"]
    for d in sorted(docs, key=lambda d: (d["date"], d["seq"])):
        pages = f", {d['pages']} p." if d.get("pages") else ""
        lines.append(f"- {_br(str(d['date']))} — {d['kind']}: {d['title']}{pages}")
    return "\n".join(lines)


def _movements(head: str, moves: list[dict[str, Any]]) -> str:
    if not moves:
        return f"O cadastro não lista movimentações do {head}."
    lines = [f"Movimentações do {head} (da mais recente):"]
    lines += [f"- {_move(m)}" for m in moves[:_LIST_MOVEMENTS]]
    if len(moves) > _LIST_MOVEMENTS:
        lines.append(f"(e mais {len(moves) - _LIST_MOVEMENTS} anteriores)")
    return "\n".join(lines)


def _deadlines(head: str, r: dict[str, Any], moves: list[dict[str, Any]]) -> str:
    text = f"O cadastro não registra prazos do {head}."
    if moves:
        m = moves[0]
        text += (
            f" Situação atual: {r.get('status', '')}, desde {_br(str(m['at']))} "
            f"({m['description']})."
        )
    return text


def _answer(found: dict[str, Any], aspect: str) -> tuple[str, list[Any]]:
    kind = "processo" if found.get("kind") == "process" else "expediente"
    head = f"{kind} {found['number']}"
    r = found.get("record") or {}
    loc = found.get("location") or {}
    moves = list(found.get("movements") or [])
    docs = list(found.get("documents") or [])
    if aspect == "julgamento":
        return _judgment(head, r, moves)
    if aspect == "arquivamento":
        return _archiving(head, r, moves)
    if aspect == "documentos":
        return _documents(head, docs, r, moves), docs or moves[:1]
    if aspect == "movimentacoes":
        return _movements(head, moves), moves[:_LIST_MOVEMENTS]
    if aspect == "prazos":
        return _deadlines(head, r, moves), moves[:1]
    if aspect in ("localizacao", "desde_quando") and loc:
        return f"O {head} está em {where(loc)}. Situação atual: {r.get('status', '')}.", []
    if aspect == "situacao":
        return _latest(head, r, moves), moves[:1]
    if aspect == "partes":
        parties = found.get("parties") or []
        if not parties:
            return f"O cadastro não lista partes do {head}.", []
        names = "; ".join(f"{p['name']} ({p['role']})" for p in parties)
        return f"Partes do {head}: {names}.", []
    fields = {
        "relator": ("Relator", r.get("rapporteur")),
        "assunto": ("Assunto", r.get("subject")),
        "classe": (
            "Classe",
            " / ".join(x for x in (r.get("case_class") or r.get("type"), r.get("subclass")) if x),
        ),
        "orgao": ("Órgão fiscalizado", r.get("audited_body") or r.get("origin_unit")),
    }
    label, value = fields.get(aspect, ("", ""))
    if value:
        return f"{head[0].upper()}{head[1:]} — {label}: {value}.", []
    return case_card(found), []


async def case_aspect(
    registry: CaseRegistry,
    case: CaseId | str,
    aspect: str,
    *,
    today: dt.date | None = None,
    question: str = "",
) -> AspectAnswer:
    """The answer to ``aspect`` (one of :data:`ASPECTS`, or its English name) about
    ``case`` (a :class:`CaseId` or what the person typed), from the registry's rows; with
    ``question``, the events it names as well (``named``).

    Every movement and document of the case is read. A case that is not in the registry (or
    a registry that does not answer) gives its card's message with ``found`` false; an
    unknown aspect gives the whole card.
    """
    typed = case.canonical if isinstance(case, CaseId) else case
    name = normalize_aspect(aspect)
    try:
        found = await _whole_record(registry, typed, today)
    except (StoreError, ConfigurationError) as exc:
        return AspectAnswer(typed, name or aspect, str(exc), False)
    if found.get("status") != "found":
        return AspectAnswer(
            str(found.get("number", typed)), name or aspect, case_card(found), False
        )
    named = events_named(question, found) if question else []
    if name is None:
        return AspectAnswer(found["number"], aspect, case_card(found), True, named=named)
    text, rows = _answer(found, name)
    return AspectAnswer(found["number"], name, text, True, [dict(x) for x in rows], named)


async def _whole_record(
    registry: CaseRegistry, typed: str, today: dt.date | None
) -> dict[str, Any]:
    """The case as :func:`lookup_case` finds it, with every movement and, when found, every
    document."""
    found = await lookup_case(registry, typed, today=today, movements=10_000)
    if found.get("status") == "found":
        ident = parse_case_id(str(found["number"]))
        found["documents"] = [d.as_dict() for d in await registry.documents(ident, 10_000)]
    return found


async def rows_state(
    registry: CaseRegistry, number: str, question: str, *, today: dt.date | None = None
) -> bool:
    """Whether case ``number``'s own rows say every word of ``question`` (its case reference
    aside; two words at least): "recebemos a citação, qual o prazo para a defesa?" beside a
    case whose last movement is "Citação dos responsáveis com prazo de 30 dias para
    apresentação de defesa" is that case's deadline, told by its rows. A word they do not say
    ("a partir de quando se *conta* o prazo?") asks something else — the law's rule."""
    from colmeia.apps.assistant.relations import content_terms

    try:
        found = await _whole_record(registry, number, today)
    except (StoreError, ConfigurationError):
        return False
    if found.get("status") != "found":
        return False
    unnumbered = question
    for ref in read_case_refs(question):
        unnumbered = unnumbered.replace(ref.typed, " ")
    asked = {w for w in content_terms(unnumbered) if w not in _RECORD_WORDS}
    said = " ".join(
        [str(m.get("description") or "") for m in found.get("movements") or []]
        + [f"{d.get('kind') or ''} {d.get('title') or ''}" for d in found.get("documents") or []]
    )
    told = set(content_terms(said))
    return len(asked) >= 2 and all(
        any(
            w[:_SHARED_START] == t[:_SHARED_START] and (w.startswith(t) or t.startswith(w))
            for t in told
        )
        for w in asked
    )


async def named_in_record(
    registry: CaseRegistry, number: str, question: str, *, today: dt.date | None = None
) -> list[str]:
    """:func:`events_named` over every movement and document of case ``number``; [] when the
    registry does not hold it or does not answer."""
    try:
        found = await _whole_record(registry, number, today)
    except (StoreError, ConfigurationError):
        return []
    return events_named(question, found) if found.get("status") == "found" else []
