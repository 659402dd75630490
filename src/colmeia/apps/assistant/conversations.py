"""Scripted multi-turn conversations with the assistant, scored turn by turn.

Every ``conversations_*.json`` file of the package's ``data/`` folder (or of a folder given) is
a list of conversations::

    {"id": "lgpd-definicao",
     "turns": [{"user": "O que é dado pessoal sensível?",
                "expect": {"case": null, "facts": {}, "article": "13709:5",
                           "kind": "law", "says": ["dado pessoal sensível"]}}]}

``expect`` holds what a right turn shows, each key optional:

* ``kind`` — ``case`` (registry facts, no law), ``law`` (cited passages, no facts), ``mixed``
  (both), ``clarify`` (the assistant asks back), ``scope`` (the scope answer), ``missing_norm``
  (the norm is not in the collection), ``search_list`` (several cases offered to pick from);
* ``case`` — the case number (any typing) whose registry facts the turn shows;
* ``facts`` — ``{field: value}`` the shown facts must hold (searched in the record, its
  location and the fact itself; values compared without case, accents or punctuation);
* ``article`` — ``"LAW:ARTICLE"`` (``"13709:5"``, ``"9784:59"``, ``"CF:71"`` for the
  Constitution, ``"ADCT:27"``, or as a citation reads: ``"Lei 9.784/1999, Art. 59"``) the
  answer must cite;
* ``says`` — phrases the answer's text must contain (normalised the same way).

A file may name the registry it was written on: ``"registry": {"processes": …, "seed": …}``
(a synthetic one, :func:`~colmeia.apps.assistant.synthetic.generate_registry`'s arguments) or
``"registry": {"import": "folder", "as_of": "2026-11-01"}`` (CSV files beside the file, as
``colmeia registry import`` reads them).

A turn that follows one left waiting for a clarification is sent as the reply to it
(:meth:`Assistant.resume`), as a person typing in the chat would. Each conversation runs in a
thread of its own.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from colmeia.apps.assistant.ids import IdentifierError, parse_case_id
from colmeia.apps.assistant.legal import article_key
from colmeia.apps.assistant.scope import is_missing_norm_answer, is_scope_answer
from colmeia.apps.assistant.session import Assistant, TurnResult
from colmeia.errors import ColmeiaError, RecordError
from colmeia.eval.assistant import TurnOutcome, normalise_text

__all__ = [
    "KINDS",
    "Conversation",
    "Turn",
    "load_conversations",
    "observed_kind",
    "run_conversations",
    "score_turn",
]

KINDS = (
    "case",
    "law",
    "mixed",
    "clarify",
    "scope",
    "missing_norm",
    "search_list",
    "institutional",
    "other",
)


@dataclass(slots=True)
class Turn:
    """What the person types, and what a right turn shows."""

    user: str
    kind: str | None = None
    case: str | None = None
    facts: dict[str, str] = field(default_factory=dict)
    article: str | None = None
    says: list[str] = field(default_factory=list)
    # what the turn asks ("case:rapporteur", "find", "reply"…), for figures per intent
    intent: str = ""


@dataclass(slots=True)
class Conversation:
    id: str
    turns: list[Turn]
    source: str = ""
    # the synthetic registry the file was written on: (processes, expedientes, seed, as_of)
    registry: tuple[int, int, int, str] | None = None
    # or the folder of registry CSVs it was written on (imported, not generated)
    registry_folder: Path | None = None


_CITED = re.compile(
    r"(?:lei(?:\s+complementar)?|lc|decreto(?:-lei)?)\s*n?[º°.]?\s*(\d[\d.]*)(?:/\d{2,4})?"
    r"\s*,?\s*art(?:igo)?\.?\s*(\d+[A-Za-z\-]*)[º°]?",
    re.IGNORECASE,
)


def _turn(raw: Any, where: str) -> Turn:
    if not isinstance(raw, dict) or not isinstance(raw.get("user"), str) or not raw["user"]:
        raise ValueError(f"{where}: a turn needs a non-empty 'user' text")
    expect = raw.get("expect") or {}
    if not isinstance(expect, dict):
        raise ValueError(f"{where}: 'expect' must be an object")
    kind = expect.get("kind")
    if kind is not None and kind not in KINDS:
        raise ValueError(f"{where}: unknown kind {kind!r} (use one of {', '.join(KINDS)})")
    facts = expect.get("facts") or {}
    if not isinstance(facts, dict):
        raise ValueError(f"{where}: 'facts' must be an object of field: value")
    article = expect.get("article")
    if article is not None:
        # "Lei 9.784/1999, Art. 59" (as a citation reads) is the same as "9784:59"
        cited = _CITED.fullmatch(str(article).strip())
        if cited:
            article = f"{cited.group(1).replace('.', '')}:{cited.group(2)}"
        if not re.fullmatch(
            r"(?:\d[\d.]*|CF|ADCT|constitui[cç][aã]o):\d+[A-Za-z\-]*", str(article), re.I
        ):
            raise ValueError(
                f"{where}: 'article' must read LAW:ARTICLE (13709:5; CF:71 for the "
                "Constitution, ADCT:27 for its transitional acts) or as cited "
                "(Lei 13.709/2018, Art. 5)"
            )
    says = expect.get("says") or []
    if isinstance(says, str):
        says = [says]
    return Turn(
        raw["user"],
        kind,
        str(expect["case"]) if expect.get("case") else None,
        {str(k): str(v) for k, v in facts.items()},
        str(article) if article else None,
        [str(s) for s in says],
        str(raw.get("intent") or ""),
    )


def _files(folder: Path | None) -> list[tuple[str, str, Path]]:
    """(name shown in problems, text, the folder the file's relative paths start from)."""
    if folder is not None:
        return [
            (str(p), p.read_text(encoding="utf-8"), p.parent)
            for p in sorted(folder.glob("conversations_*.json"))
        ]
    data = resources.files("colmeia.apps.assistant").joinpath("data")
    return [
        (f"data/{entry.name}", entry.read_text(encoding="utf-8"), Path(str(data)))
        for entry in sorted(data.iterdir(), key=lambda e: e.name)
        if entry.name.startswith("conversations_") and entry.name.endswith(".json")
    ]


def _imported_registry(base: Path, reg: dict[str, Any]) -> tuple[Path, str]:
    """The folder of registry CSVs a file names and the day its turns are asked on."""
    folder = base / str(reg["import"])
    if not folder.is_dir():
        raise ValueError(f"'import' {folder} is not a folder")
    as_of = str(reg.get("as_of", "2026-11-01"))
    try:
        dt.date.fromisoformat(as_of)
    except ValueError as exc:
        raise ValueError(f"'as_of' {as_of!r} is not a date") from exc
    return folder, as_of


def load_conversations(folder: Path | None = None) -> tuple[list[Conversation], list[str]]:
    """Every ``conversations_*.json`` (the package's data/ by default); a bad file or
    conversation is reported (file, conversation id, turn) and the rest kept."""
    out: list[Conversation] = []
    problems: list[str] = []
    seen: set[str] = set()
    for name, text, base in _files(folder):
        try:
            rows = json.loads(text)
        except ValueError as exc:
            problems.append(str(RecordError(name, f"not JSON: {exc}")))
            continue
        spec: tuple[int, int, int, str] | None = None
        imported: Path | None = None
        if isinstance(rows, dict) and isinstance(rows.get("conversations"), list):
            # {"registry": {...generate_registry's arguments}, "conversations": [...]}
            reg = rows.get("registry") or {}
            try:
                if isinstance(reg, dict) and "import" in reg:
                    imported, day = _imported_registry(base, reg)
                    spec = (0, 0, 0, day)
                else:
                    spec = (
                        int(reg.get("processes", 2000)),
                        int(reg.get("expedientes", 500)),
                        int(reg.get("seed", 7)),
                        str(reg.get("as_of", "2026-11-01")),
                    )
            except (TypeError, ValueError, AttributeError) as exc:
                problems.append(str(RecordError(name, f"'registry' is not readable: {exc}")))
                continue
            rows = rows["conversations"]
        if not isinstance(rows, list):
            problems.append(
                str(
                    RecordError(name, "must be a list of conversations or {'conversations': [...]}")
                )
            )
            continue
        for n, row in enumerate(rows, start=1):
            cid = str(row.get("id", "")) if isinstance(row, dict) else ""
            where = f"{name} conversation {cid or n}"
            try:
                if not cid:
                    raise ValueError(f"{where}: needs an 'id'")
                if cid in seen:
                    raise ValueError(f"{where}: the id is used twice")
                turns = row.get("turns")
                if not isinstance(turns, list) or not turns:
                    raise ValueError(f"{where}: needs a non-empty list of 'turns'")
                parsed = [_turn(t, f"{where} turn {i}") for i, t in enumerate(turns, start=1)]
            except ValueError as exc:
                problems.append(str(exc))
                continue
            seen.add(cid)
            out.append(Conversation(cid, parsed, name, spec, imported))
    return out, problems


def _case_numbers(facts: Iterable[dict[str, Any]]) -> set[str]:
    return {str(f.get("number")) for f in facts if f.get("status") == "found" and f.get("number")}


def observed_kind(result: TurnResult) -> str:
    """What the turn was, from what the person got."""
    if result.agent == "institutional":
        return "institutional"  # answered from the court's own file
    searched = [f for f in result.facts if f.get("status") == "search"]
    if searched and not result.citations:
        return "search_list"  # a registry search: the list to pick from, or none found
    if result.status == "waiting_clarification":
        cases = _case_numbers(result.facts)
        return "search_list" if len(cases) > 1 else "clarify"
    if is_scope_answer(result.answer):
        return "scope"
    if is_missing_norm_answer(result.answer):
        return "missing_norm"
    cases = _case_numbers(result.facts)
    if result.citations and cases:
        return "mixed"
    # several cases shown in an answered turn are the cases the person typed, each answered
    # ("quem é o relator do 615/24 e se o 3098/2023 já teve defesa"): case answers, not a
    # list to pick from (a list is a search's, or waits for the pick)
    if cases:
        return "case"
    if result.citations:
        return "law"
    return "other"


def _canonical(typed: str) -> str:
    try:
        return parse_case_id(typed).canonical
    except (IdentifierError, ColmeiaError):
        return typed.strip().upper()


def _numbers(typed: str) -> list[int]:
    """The numbers of a typed case reference, a two-digit year read as this century's ("4826/22"
    is 4826/2022, as people type it and as the court's numbers run)."""
    numbers = [int(n) for n in re.findall(r"\d+", typed)]
    if len(numbers) == 2 and re.search(r"(?<!\d)\d\d\s*$", typed):
        numbers[1] += 2000
    return numbers


def _same_case(expected: str, shown: str) -> bool:
    """Whether two typings name one case ("4506/2023", "tc 4506/23" and "TC/004506/2023": the
    same numbers, leading zeros aside, whatever the prefix)."""
    if _canonical(expected) == _canonical(shown):
        return True
    numbers = _numbers(expected)
    return bool(numbers) and numbers == _numbers(shown)


def _fact_value(fact: dict[str, Any], name: str) -> list[str]:
    values: list[str] = []
    for source in (fact, fact.get("record") or {}, fact.get("location") or {}):
        if isinstance(source, dict) and name in source and source[name] is not None:
            value = source[name]
            values += (
                [json.dumps(v, ensure_ascii=False) for v in value]
                if isinstance(value, list)
                else [str(value)]
            )
    if name in ("party", "parties"):
        values += [str(p.get("name", "")) for p in fact.get("parties") or [] if isinstance(p, dict)]
    return values


def score_turn(turn: Turn, result: TurnResult) -> tuple[str, list[str]]:
    """The observed kind and what failed (nothing: the turn passed)."""
    kind = observed_kind(result)
    failures: list[str] = []
    if turn.kind and kind != turn.kind:
        failures.append(f"kind: expected {turn.kind}, got {kind}")
    found = [f for f in result.facts if f.get("status") == "found"]
    if turn.case:
        found = [f for f in found if _same_case(turn.case, str(f.get("number", "")))]
        if not found:
            failures.append(f"case: {turn.case} not among the facts shown")
    found += [f for f in result.facts if f.get("status") == "search"]  # its total, its list
    for name, value in turn.facts.items():
        want = normalise_text(value)
        if not any(want in normalise_text(v) for f in found for v in _fact_value(f, name)):
            failures.append(f"facts: {name}={value!r} not shown")
    if turn.article:
        law, art = turn.article.split(":", 1)
        keys = {
            article_key(str(c.get("law", "")), str(c.get("article", ""))) for c in result.citations
        }
        if article_key(law, art) not in keys:
            failures.append(f"article: {turn.article} not cited")
    text = normalise_text(result.answer)
    for phrase in turn.says:
        if normalise_text(phrase) not in text:
            failures.append(f"says: {phrase!r} not in the answer")
    return kind, failures


async def run_conversations(
    assistant: Assistant,
    conversations: list[Conversation],
    progress: Callable[[int, int], None] | None = None,
) -> list[TurnOutcome]:
    """Play each conversation in its own thread; score every turn."""
    outcomes: list[TurnOutcome] = []
    total = sum(len(c.turns) for c in conversations)
    done = 0
    for c_index, conv in enumerate(conversations, start=1):
        thread = f"conv-{c_index}"
        waiting = False
        for t_index, turn in enumerate(conv.turns, start=1):
            started = time.perf_counter()
            try:
                if waiting:
                    result = await assistant.resume(thread, turn.user)
                else:
                    result = await assistant.ask(thread, turn.user)
            except ColmeiaError as exc:
                outcomes.append(
                    TurnOutcome(
                        conv.id,
                        t_index,
                        turn.user,
                        turn.kind or "",
                        "error",
                        [f"error: {exc}"],
                        seconds=time.perf_counter() - started,
                        intent=turn.intent,
                    )
                )
                waiting = False
                done += 1
                continue
            kind, failures = score_turn(turn, result)
            outcomes.append(
                TurnOutcome(
                    conv.id,
                    t_index,
                    turn.user,
                    turn.kind or "",
                    kind,
                    failures,
                    int(result.usage.get("calls", 0)),
                    time.perf_counter() - started,
                    turn.intent,
                )
            )
            waiting = result.waiting is not None
            done += 1
            if progress is not None:
                progress(done, total)
    return outcomes
