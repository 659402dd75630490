"""Numbers written the Portuguese or Spanish way, spelled out for a model that reads them as English.

"Divida 7.893 por 9" means 7893, but small models trained mostly on English text copy "7.893"
into a calculator call as seven point eight nine three (seen on Qwen2.5-Coder-1.5B, in colmeia's
ReAct and in the peers' agents alike). A general rule in the prompt did not change that; naming
the task's own numbers does. :class:`TaskNumbers` finds them once per task: its ``notes`` say how to write each one in a
tool argument (the agents put that line in the system prompt), and ``copied_in`` catches a call
that copies "1.247" even so, before the tool runs (the agent then asks once for the plain
numbers).

Only tasks that read as Portuguese or Spanish get notes: "7.893" in an English task is a
decimal. The language test is a word count, not a language model: it runs on every agent run,
and the numbers in question only ever appear next to ordinary function words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from colmeia.agents.rates import rate_notes

__all__ = ["TaskNumbers", "looks_portuguese_or_spanish", "read_numbers"]

#: 1.234 / 1.234.567 / 1.234,56 — dots group thousands, a comma (optional) starts the decimals
_GROUPED = re.compile(r"(?<![\d.,])[1-9]\d{0,2}(?:\.\d{3})+(?:,\d+)?(?!\d|[.,]\d)")
#: 3,75 / 0,5 — a decimal comma, no grouping
_DECIMAL_COMMA = re.compile(r"(?<![\d.,])\d+,\d+(?!\d|[.,]\d)")
_NUMBER = re.compile(r"-?\d[\d.,]*")
#: 1,234,567.89 and 1.234.567,89 as whole tokens; grouping never starts with 0 ("0.877")
_GROUPED_EN_TOKEN = re.compile(r"-?[1-9]\d{0,2}(,\d{3})+(\.\d+)?")
_GROUPED_PT_TOKEN = re.compile(r"-?[1-9]\d{0,2}(\.\d{3})+(,\d+)?")
_WORD = re.compile(r"[^\W\d_]+")
_IBERIAN = frozenset(
    [
        "à",
        "ao",
        "aos",
        "às",
        "com",
        "como",
        "da",
        "das",
        "de",
        "del",
        "dos",
        "e",
        "el",
        "em",
        "en",
        "es",
        "está",
        "esta",
        "este",
        "qual",
        "quál",
        "cuál",
        "quanto",
        "quanta",
        "quantos",
        "quantas",
        "cuánto",
        "cuánta",
        "cuántos",
        "cuántas",
        "los",
        "las",
        "na",
        "nas",
        "no",
        "nos",
        "o",
        "os",
        "para",
        "pelo",
        "pela",
        "por",
        "que",
        "qué",
        "se",
        "son",
        "são",
        "um",
        "uma",
        "una",
        "uno",
        "y",
        "é",
        "há",
        "hay",
        "custa",
        "cuesta",
        "dá",
    ]
)
_ENGLISH = frozenset(
    [
        "an",
        "and",
        "are",
        "at",
        "by",
        "for",
        "from",
        "how",
        "in",
        "is",
        "it",
        "many",
        "much",
        "of",
        "on",
        "or",
        "the",
        "to",
        "what",
        "which",
        "with",
    ]
)
MAX_NOTES = 12


def looks_portuguese_or_spanish(text: str) -> bool:
    """Whether ``text`` has more Portuguese/Spanish function words than English ones."""
    words = [w.lower() for w in _WORD.findall(text)]
    iberian = sum(w in _IBERIAN for w in words)
    english = sum(w in _ENGLISH for w in words)
    return iberian > english


def read_numbers(text: str) -> set[float]:
    """Every number ``text`` can be read as: 64.6 and 64,6 as decimals, 1,234.5 and 1.234,5
    grouped. "4.085" stays ambiguous (4.085 or 4085) and counts both ways; "0.877" is only
    0.877 and "12.5" only 12.5."""
    out: set[float] = set()
    for raw in _NUMBER.findall(text or ""):
        raw = raw.rstrip(".,")
        candidates = []
        if raw.count(".") + raw.count(",") <= 1:
            candidates.append(raw.replace(",", "."))
        if _GROUPED_EN_TOKEN.fullmatch(raw):
            candidates.append(raw.replace(",", ""))
        if _GROUPED_PT_TOKEN.fullmatch(raw):
            candidates.append(raw.replace(".", "").replace(",", "."))
        for candidate in candidates:
            try:
                out.add(float(candidate))
            except ValueError:
                continue
    return out


def _note(number: str) -> str:
    return f"{number} = {number.replace('.', '').replace(',', '.')}"


@dataclass(frozen=True, slots=True)
class TaskNumbers:
    """The numbers of a Portuguese/Spanish task that an English reader would misread, as
    written there, in order of appearance (none for a task in another language)."""

    written: tuple[str, ...] = ()
    #: what the task's percentages do ("10% de gorjeta is added to the amount: …"), from
    #: :func:`colmeia.agents.rates.rate_notes`
    rates: tuple[str, ...] = ()

    @classmethod
    def of(cls, task: str) -> TaskNumbers:
        if not looks_portuguese_or_spanish(task):
            return cls()
        found = [
            (m.start(), m.group()) for p in (_GROUPED, _DECIMAL_COMMA) for m in p.finditer(task)
        ]
        written = tuple(dict.fromkeys(number for _, number in sorted(found)))
        return cls(written, tuple(rate_notes(task)[:MAX_NOTES]))

    @property
    def notes(self) -> list[str]:
        """``["7.893 = 7893", "3,75 = 3.75"]``: how to write each one in a tool argument."""
        return [_note(n) for n in self.written[:MAX_NOTES]]

    def copied_in(self, arguments: Mapping[str, Any]) -> list[str]:
        """Notes for the thousands-grouped numbers ("1.247") that ``arguments`` copy as
        written, where any tool would read a decimal; empty when there are none."""
        sent = json.dumps(arguments, ensure_ascii=False, default=str)
        return [
            _note(number)
            for number in self.written
            # "1.000,00" copied as written is no number at all: the tool says so itself
            if "." in number
            and "," not in number
            and re.search(rf"(?<![\d.,]){re.escape(number)}(?!\d|[.,]\d)", sent)
        ]
