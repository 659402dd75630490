"""Percentages of everyday Portuguese/Spanish arithmetic, said as the operation they stand for.

"Uma pizza de R$ 64,00 paga com 10% de gorjeta" adds the tip, "12% de desconto" takes it off,
and "juros compostos de 1% ao mês por 12 meses" compounds a rate that is already monthly. Qwen2.5-
Coder-1.5B, reading the task as English, wrote ``64 * (1 - 0.10) / 4`` for the tip and
``1000 * (1 + 0.01/12) ^ 12`` for the interest (dividing a monthly rate by twelve), although its
own prose plan said "add the tip". As with the task's numbers (:mod:`colmeia.agents.numbers`),
naming the operation of the task's own words in the system prompt is what a small model follows.

Only phrasings whose operation is unambiguous get a note: a percentage next to a word that adds
(gorjeta, acréscimo, aumento, reajuste, taxa de serviço; propina, recargo) or takes away
(desconto, redução, abatimento; descuento, rebaja), and a rate "ao mês"/"ao ano" ("al mes",
"anual") whose period matches the duration given ("por 12 meses"). Anything else ("65% foram
aprovados", "17% de 2.340") is left to the model: a wrong note is worse than none.
"""

from __future__ import annotations

import re

__all__ = ["rate_notes"]

_PCT = r"(?P<pct>\d+(?:[.,]\d+)?)\s?%"
_ADDS = r"gorjeta|acr[ée]scimo|aumento|reajuste|taxa de servi[çc]o|propina|recargo|incremento"
_TAKES = r"desconto|redu[çc][ãa]o|abatimento|descuento|rebaja|reducci[óo]n"


def _percent_of(words: str) -> re.Pattern[str]:
    """ "10% de <word>" or "<word> de 10%", for any of ``words``. Built on each call, not at
    import: ``re`` keeps the compiled pattern, and a call inside :func:`rate_notes` is one
    the mutation tests can see (built at import, its mutants were never run by a test)."""
    return re.compile(
        rf"{_PCT}\s+(?:de|del)\s+(?:{words})\b|\b(?:{words})\s+(?:de|del)\s+"
        + _PCT.replace("pct", "pct2"),
        re.I,
    )


_PERIODS = {
    "mês": "month",
    "mes": "month",
    "mensal": "month",
    "ano": "year",
    "año": "year",
    "anual": "year",
    "dia": "day",
    "día": "day",
    "diário": "day",
    "diario": "day",
}
_RATE = re.compile(
    rf"{_PCT}\s*(?:ao|a\.|al|por|por\s+cada)?\s*(?P<per>m[êe]s|mensal|ano|año|anual|d[ií]a|di[áa]rio)\b",
    re.I,
)
_SPAN = re.compile(
    r"\b(?:por|durante|em|en|ao\s+longo\s+de)\s+(?P<n>\d+)\s+(?P<unit>mes(?:es)?|anos?|años?|dias?|días?)\b",
    re.I,
)
_UNITS = {"mes": "month", "ano": "year", "año": "year", "dia": "day", "día": "day"}
_COMPOUND = re.compile(r"compost|compuest", re.I)
_SIMPLE = re.compile(r"juros\s+simples|inter[ée]s\s+simple", re.I)


def _number(text: str) -> str:
    return text.replace(",", ".")


def _unit(word: str) -> str:
    """ "meses" -> "month" (_SPAN matches only words with one of these stems)."""
    w = word.lower()
    return next(unit for stem, unit in _UNITS.items() if w.startswith(stem))


def rate_notes(task: str) -> list[str]:
    """What each percentage of ``task`` does, in the order they appear (empty when none is
    unambiguous): ``["10% de gorjeta is added to the amount: amount * (1 + 10/100)"]``."""
    found: list[tuple[int, str]] = []
    for words, sign, verb in ((_ADDS, "+", "is added to"), (_TAKES, "-", "is taken off")):
        pattern = _percent_of(words)
        for m in pattern.finditer(task):
            pct = m.group("pct") or m.group("pct2")
            found.append(
                (
                    m.start(),
                    f"{m.group().strip()} {verb} the amount: amount * (1 {sign} {_number(pct)}/100)",
                )
            )
    rate, span = _RATE.search(task), _SPAN.search(task)
    if rate and span:
        per = _PERIODS[rate.group("per").lower()]  # _RATE matches only these words
        n, unit = span.group("n"), _unit(span.group("unit"))
        pct = _number(rate.group("pct"))
        if per == unit:
            said = f"{rate.group().strip()} for {n} {unit}s"
            if _COMPOUND.search(task):
                found.append(
                    (
                        rate.start(),
                        f"{said} (compound): the rate is already per {per}, do not divide it; "
                        f"final amount = amount * (1 + {pct}/100) ^ {n}",
                    )
                )
            elif _SIMPLE.search(task):
                found.append(
                    (
                        rate.start(),
                        f"{said} (simple interest): the rate is already per {per}; "
                        f"final amount = amount * (1 + {pct}/100 * {n})",
                    )
                )
    return [note for _, note in sorted(found)]
