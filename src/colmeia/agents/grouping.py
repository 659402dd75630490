"""Two checks that keep Plan-and-Solve's arithmetic honest on small models.

* :func:`is_computation`: a plan step that computes a number ("multiplique o total por 3",
  "17% de 2.340") goes to the calculator even when the planner named no tool — small planners
  leave ``tool`` empty and the worker then computes in its head.
* :func:`broken_grouping`: a calculator expression must keep the grouping the task wrote. For
  "(345 + 789) multiplicado por 3" a planner wrote ``345 + 789 * 3``, which the calculator
  computes correctly — as another number. The call is refused with the grouping to keep.
"""

from __future__ import annotations

import re

__all__ = ["broken_grouping", "is_computation", "task_groups"]

_OPS = "+-*/"
_GROUP = re.compile(r"\(([^()]+)\)")
_NUMBER = re.compile(r"\d")
_COMPUTE_WORDS = re.compile(
    r"calcul|comput|multipli|divid|divis|\bsom[ae]|\bsum\b|subtra|percent|porcent|m[ée]dia|"
    r"average|convert|raiz|potên|juros|interest|desconto|discount|total|\bquanto|how much|"
    r"cu[aá]nto|\d\s*%",
    re.IGNORECASE,
)


def _plain(text: str) -> str:
    """Arithmetic without spaces, with ``×``/``÷``/``x`` between numbers as ``*``/``/``."""
    text = text.replace("×", "*").replace("÷", "/").replace("−", "-")
    text = re.sub(r"(?<=\d)\s*[xX]\s*(?=\d)", "*", text)
    return re.sub(r"\s+", "", text)


def is_computation(description: str) -> bool:
    """Whether a step's description asks for a number to be computed."""
    if not _NUMBER.search(description):
        return False
    if re.search(rf"\d\s*[{re.escape(_OPS)}×÷^]\s*[\d(]", description):
        return True
    return bool(_COMPUTE_WORDS.search(description))


def task_groups(task: str) -> list[str]:
    """The parenthesised sums and differences of numbers a task writes, e.g. ``["345+789"]``.

    Only these matter: inside parentheses, ``*`` and ``/`` bind as they would without them.
    """
    groups = []
    for inner in _GROUP.findall(task):
        plain = _plain(inner)
        if re.fullmatch(r"[\d.,]+(?:[+\-][\d.,]+)+", plain):
            groups.append(plain)
    return groups


def broken_grouping(expression: str, groups: list[str]) -> str | None:
    """Why ``expression`` computes a task's group without its parentheses, or ``None``.

    ``345 + 789 * 3`` against the group ``345+789`` → a message to write ``(345 + 789) * 3``.
    """
    plain = _plain(expression)
    for group in groups:
        start = plain.find(group)
        while start != -1:
            end = start + len(group)
            wrapped = plain[start - 1 : start] == "(" and plain[end : end + 1] == ")"
            before, after = plain[:start], plain[end:]
            binds = before.endswith(("*", "/")) or after.startswith(("*", "/", "^"))
            if binds and not wrapped:
                shown = re.sub(r"([+\-])", r" \1 ", group)
                return (
                    f"the task groups ({shown}) in parentheses, but {expression.strip()!r} "
                    f"computes it without them; keep the grouping, e.g. "
                    f"{before}({shown}){after}"
                )
            start = plain.find(group, start + 1)
    return None
