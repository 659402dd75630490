"""A case lookup rendered in Portuguese without a model: the whole card, the part a
follow-up asks about, where the case is, a search's short list, and a turn's lookups one
after another."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any


def _br(date: str) -> str:
    try:
        return dt.date.fromisoformat(date[:10]).strftime("%d/%m/%Y")
    except ValueError:
        return date


def _thousands(n: int) -> str:
    return f"{n:,}".replace(",", ".")


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
