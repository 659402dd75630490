"""Scoring the lenient-reference, registry-search and institutional sets
(``data/registry_lenient_dev.json`` and the frozen ``data/registry_lenient_test.json``)
against the small fictitious registry ``data/registry_para``."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from colmeia.apps.assistant.case_refs import resolve_case_refs
from colmeia.apps.assistant.case_search import search_cases
from colmeia.apps.assistant.institutional import answer_institutional
from colmeia.apps.assistant.registry import CaseRegistry
from colmeia.apps.assistant.registry_io import import_registry
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry

DATA = Path(__file__).parent / "data"
PARA = DATA / "registry_para"
PARA_AS_OF = dt.date(2026, 11, 1)


def para_registry(folder: Path) -> SQLiteCaseRegistry:
    """The fictitious registry imported from its CSV files into a fresh SQLite file."""
    reg = SQLiteCaseRegistry(folder / "para.db")
    report = import_registry(reg, [PARA])
    assert not report.problems, report.problems
    return reg


@dataclass
class SetScore:
    passed: dict[str, int] = field(default_factory=dict)
    total: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    def add(self, part: str, ok: bool, what: str) -> None:
        self.total[part] = self.total.get(part, 0) + 1
        self.passed[part] = self.passed.get(part, 0) + int(ok)
        if not ok:
            self.failures.append(what)

    def line(self) -> str:
        return ", ".join(f"{p} {self.passed[p]}/{self.total[p]}" for p in self.total)


def _ref_ok(got: list[dict[str, Any]], expect: list[dict[str, Any]]) -> bool:
    return len(got) == len(expect) and all(
        g["status"] == e["status"]
        and e.get("case", g["case"]) == g["case"]
        and e.get("candidates", g["candidates"]) == g["candidates"]
        for g, e in zip(got, expect, strict=True)
    )


def _search_ok(found: dict[str, Any], item: dict[str, Any]) -> bool:
    if item["expect"] == "found":
        return found.get("status") == "found" and found.get("number") == item["case"]
    listed = [c["number"] for c in found.get("cases") or []]
    if item["expect"] == "none":
        return found.get("status") == "search" and not listed
    return (
        found.get("status") == "search"
        and set(item["includes"]) <= set(listed)
        and listed[0] == item.get("first", listed[0])
    )


async def score_set(name: str, registry: CaseRegistry) -> SetScore:
    """Every item of the set ``name`` (``dev`` or ``test``) run and scored."""
    data = json.loads((DATA / f"registry_lenient_{name}.json").read_text(encoding="utf-8"))
    score = SetScore()
    for item in data["refs"]:
        got = [
            r.as_dict() for r in await resolve_case_refs(item["text"], registry, today=PARA_AS_OF)
        ]
        score.add("refs", _ref_ok(got, item["expect"]), f"ref {item['text']!r}: {got}")
    for item in data["searches"]:
        found = await search_cases(registry, item["text"], today=PARA_AS_OF)
        got_s = found.get("number") or [c["number"] for c in found.get("cases") or []]
        score.add("searches", _search_ok(found, item), f"search {item['text']!r}: {got_s}")
    for item in data["institutional"]:
        answer = answer_institutional(item["text"])
        topic = answer.topic if answer else None
        score.add("institutional", topic == item["topic"], f"inst {item['text']!r}: {topic}")
    return score
