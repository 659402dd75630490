"""A calculator tool: arithmetic and common math functions, evaluated without running code.

The expression is parsed with :mod:`ast` and walked by a tiny interpreter that knows numbers,
``+ - * / // % **``, unary signs, a few constants and a whitelist of :mod:`math` functions.
Anything else (names, attributes, calls to other things, lambdas, strings, comprehensions…)
is refused before evaluation. Limits bound the work: expression length, nesting depth,
exponent size and result magnitude, so ``9**9**9**9`` or ``"(" * 10000`` fail fast with a
clear :class:`~colmeia.errors.ToolError`.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from colmeia.errors import ToolError
from colmeia.tools.registry import Tool

__all__ = ["CalculatorLimits", "calculate", "calculator_tool", "format_number"]

Number = int | float


@dataclass(frozen=True, slots=True)
class CalculatorLimits:
    """Bounds on what one expression may cost."""

    max_length: int = 500
    max_depth: int = 40
    max_nodes: int = 400
    #: integers may grow to about this many bits (~300 decimal digits)
    max_int_bits: int = 1000
    max_float: float = 1e300
    max_factorial: int = 170


DEFAULT_LIMITS = CalculatorLimits()

_CONSTANTS: dict[str, Number] = {"pi": math.pi, "e": math.e, "tau": math.tau}


def _log(x: Number, base: Number | None = None) -> float:
    return math.log(x) if base is None else math.log(x, base)


def _round(x: Number, ndigits: int | None = None) -> Number:
    if ndigits is not None and not isinstance(ndigits, int):
        raise ToolError("round(x, n): n must be a whole number")
    return round(x) if ndigits is None else round(x, ndigits)


_FUNCTIONS: dict[str, tuple[Callable[..., Any], int, int]] = {
    # name: (function, min args, max args)
    "sqrt": (math.sqrt, 1, 1),
    "cbrt": (math.cbrt, 1, 1),
    "exp": (math.exp, 1, 1),
    "log": (_log, 1, 2),
    "ln": (math.log, 1, 1),
    "log10": (math.log10, 1, 1),
    "log2": (math.log2, 1, 1),
    "sin": (math.sin, 1, 1),
    "cos": (math.cos, 1, 1),
    "tan": (math.tan, 1, 1),
    "asin": (math.asin, 1, 1),
    "acos": (math.acos, 1, 1),
    "atan": (math.atan, 1, 1),
    "atan2": (math.atan2, 2, 2),
    "sinh": (math.sinh, 1, 1),
    "cosh": (math.cosh, 1, 1),
    "tanh": (math.tanh, 1, 1),
    "degrees": (math.degrees, 1, 1),
    "radians": (math.radians, 1, 1),
    "hypot": (math.hypot, 1, 8),
    "abs": (abs, 1, 1),
    "round": (_round, 1, 2),
    "floor": (math.floor, 1, 1),
    "ceil": (math.ceil, 1, 1),
    "trunc": (math.trunc, 1, 1),
    "min": (min, 1, 32),
    "max": (max, 1, 32),
    "sum": (lambda *xs: sum(xs), 1, 64),
    "mean": (lambda *xs: sum(xs) / len(xs), 1, 64),
    "factorial": (math.factorial, 1, 1),
    "gcd": (math.gcd, 1, 16),
    "lcm": (math.lcm, 1, 16),
    "comb": (math.comb, 2, 2),
    "perm": (math.perm, 1, 2),
}
_INT_ONLY = {"factorial", "gcd", "lcm", "comb", "perm"}

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_SYMBOLS = {ast.Pow: "**", ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}


def _normalise(expression: str) -> str:
    """Accept the usual ways people write maths: ``^`` for power, ``×``/``÷``, ``−``."""
    return (
        expression.replace("^", "**")
        .replace("×", "*")
        .replace("÷", "/")
        .replace("−", "-")
        .replace("\u00a0", " ")
        .strip()
    )


# Brazilian notation: "2.340,50" is 2340.5, "1.234.567" is 1234567.
_BR_DECIMAL = re.compile(r"(?<![\w.])(\d{1,3}(?:\.\d{3})+),(\d+)(?![\w.])")
_BR_THOUSANDS = re.compile(r"(?<![\w.,])\d{1,3}(?:\.\d{3}){2,}(?![\w.,])")
_ONE_THOUSANDS_GROUP = re.compile(r"(?<![\w.,])\d{1,3}\.\d{3}(?![\w.,])")
_COMMA_DECIMAL = re.compile(r"(?<![\w.,])(\d+),(\d+)(?![\w.,])")
# Words that say the expression is written in Portuguese or Spanish, where "2.340" is 2340.
_ROMANCE_WORDS = re.compile(r"\b(?:de|do|da|dos|das|del|por\s+cento|por\s+ciento|sobre)\b", re.I)
_CURRENCY = re.compile(r"(?:R\$|US\$|€|\$)\s*")
_NUMBER = r"\d+(?:\.\d+)?"
_PERCENT_OF = re.compile(rf"({_NUMBER})\s*%\s*(?:de|do|da|dos|das|del|of|sobre)\b\s*", re.I)
# "%" is a percent sign when no operand follows it ("17%", "17% * 2340", "(17%)"); followed by
# a number it stays Python's remainder ("17 % 5").
_PERCENT = re.compile(rf"({_NUMBER})\s*%(?=\s*(?:$|[-+*/),]))")
_ADDED_PERCENT = re.compile(rf"[\d)]\s*([-+])\s*\(({_NUMBER})/100\)")


def _call_spans(text: str) -> list[tuple[int, int]]:
    """Where the arguments of function calls are (``max(2,5)``): commas there separate."""
    spans, opened = [], []
    for i, ch in enumerate(text):
        if ch == "(":
            # a call's name ends in a letter or digit (log2); "_" ends none of _FUNCTIONS
            opened.append((i, i > 0 and text[i - 1].isalnum()))
        elif ch == ")" and opened:
            start, is_call = opened.pop()
            if is_call:
                spans.append((start, i))
    return spans


def _localise(text: str) -> str:
    """Read numbers and percentages as a Portuguese or Spanish speaker writes them.

    ``2,5`` is 2.5 (outside a function's arguments, where the comma separates), ``2.340,50`` and
    ``1.234.567`` use dots for thousands, and so does ``2.340`` when the expression is written in
    Portuguese (``17% de 2.340``). ``17%`` is 0.17, ``17% de x`` and ``17% of x`` multiply.
    """
    text = _CURRENCY.sub("", text)
    text = re.sub(r"\s*\bpor\s+(?:cento|ciento)\b", "%", text, flags=re.I)
    romance = bool(_ROMANCE_WORDS.search(text))
    text = _BR_DECIMAL.sub(lambda m: m.group(1).replace(".", "") + "." + m.group(2), text)
    text = _BR_THOUSANDS.sub(lambda m: m.group(0).replace(".", ""), text)
    calls = _call_spans(text)

    def comma(m: re.Match[str]) -> str:
        if any(a < m.start() < b for a, b in calls):
            return m.group(0)
        return f"{m.group(1)}.{m.group(2)}"

    text = _COMMA_DECIMAL.sub(comma, text)
    if romance:
        text = _ONE_THOUSANDS_GROUP.sub(lambda m: m.group(0).replace(".", ""), text)
    text = _PERCENT_OF.sub(r"(\1/100)*", text)
    text = _PERCENT.sub(r"(\1/100)", text)
    added = _ADDED_PERCENT.search(text)
    if added:
        raise ToolError(
            f"'{added.group(1)} {added.group(2)}%' is ambiguous (a percent of what?); write "
            f"x * (1 {added.group(1)} {added.group(2)}/100) or x {added.group(1)} "
            f"{added.group(2)}% de x"
        )
    return text


def _paren_depth(text: str) -> int:
    depth = deepest = 0
    for ch in text:
        if ch in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in ")]}":
            depth -= 1
    return deepest


class _Evaluator:
    def __init__(self, limits: CalculatorLimits) -> None:
        self.limits = limits

    def check(self, value: Any) -> Number:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ToolError(f"the result is not a real number ({type(value).__name__})")
        if isinstance(value, int):
            if value.bit_length() > self.limits.max_int_bits:
                raise ToolError(
                    f"the result is too large (more than {self.limits.max_int_bits} bits); "
                    "split the calculation or use smaller numbers"
                )
            return value
        if math.isnan(value):
            raise ToolError("the result is not a number (NaN)")
        if math.isinf(value) or abs(value) > self.limits.max_float:
            raise ToolError(f"the result is too large (above {self.limits.max_float:g})")
        return value

    def power(self, base: Number, exponent: Number) -> Number:
        if isinstance(base, int) and isinstance(exponent, int) and exponent >= 0:
            magnitude = abs(base)
            if magnitude > 1 and exponent * math.log2(magnitude) > self.limits.max_int_bits:
                raise ToolError(
                    f"{base}**{exponent} is too large to compute (more than "
                    f"{self.limits.max_int_bits} bits)"
                )
            return self.check(base**exponent)
        if base == 0 and exponent < 0:
            raise ToolError("division by zero: 0 raised to a negative power")
        if base < 0 and not float(exponent).is_integer():
            raise ToolError("a negative number raised to a fractional power is not real")
        if base != 0 and exponent * math.log10(abs(base)) > 300:
            raise ToolError(f"{base}**{exponent} is too large to compute")
        try:
            return self.check(float(base) ** float(exponent))
        except OverflowError:
            raise ToolError(f"{base}**{exponent} is too large to compute") from None

    def visit(self, node: ast.AST) -> Number:
        if isinstance(node, ast.Expression):
            return self.visit(node.body)
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, int | float):
                raise ToolError(
                    f"only numbers are allowed, found {type(node.value).__name__} "
                    f"{str(node.value)[:30]!r}"
                )
            return self.check(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
            value = self.visit(node.operand)
            return self.check(-value if isinstance(node.op, ast.USub) else value)
        if isinstance(node, ast.BinOp):
            left = self.visit(node.left)
            right = self.visit(node.right)
            if isinstance(node.op, ast.Pow):
                return self.power(left, right)
            op = _BINARY.get(type(node.op))
            if op is None:
                raise ToolError(
                    f"operator {type(node.op).__name__} is not supported; use + - * / // % **"
                )
            if isinstance(node.op, ast.Div | ast.FloorDiv | ast.Mod) and right == 0:
                raise ToolError("division by zero")
            try:
                return self.check(op(left, right))
            except OverflowError:
                raise ToolError("the result is too large") from None
        if isinstance(node, ast.Name):
            if node.id in _CONSTANTS:
                return _CONSTANTS[node.id]
            raise ToolError(
                f"unknown name {node.id!r}: only the constants pi, e, tau and the functions "
                f"{', '.join(sorted(_FUNCTIONS))} are allowed"
            )
        if isinstance(node, ast.Call):
            return self.call(node)
        raise ToolError(
            f"{type(node).__name__} is not allowed in a calculation; write plain arithmetic "
            "like 2*(3+4) or sqrt(16)"
        )

    def call(self, node: ast.Call) -> Number:
        if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
            what = node.func.id if isinstance(node.func, ast.Name) else type(node.func).__name__
            raise ToolError(
                f"{what[:40]} is not allowed: only these functions may be called: "
                + ", ".join(sorted(_FUNCTIONS))
            )
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise ToolError(f"{node.func.id}() takes plain positional numbers only")
        name = node.func.id
        func, low, high = _FUNCTIONS[name]
        if not low <= len(node.args) <= high:
            expected = str(low) if low == high else f"{low} to {high}"
            raise ToolError(f"{name}() takes {expected} arguments, got {len(node.args)}")
        args = [self.visit(a) for a in node.args]
        if name in _INT_ONLY:
            if not all(isinstance(a, int) for a in args):
                raise ToolError(f"{name}() needs whole numbers")
            if any(a > 10_000 for a in args) or (
                name == "factorial" and args[0] > self.limits.max_factorial
            ):
                raise ToolError(f"{name}() argument is too large")
        try:
            return self.check(func(*args))
        except (ValueError, ZeroDivisionError) as exc:
            raise ToolError(f"{name}{tuple(args)!r}: {exc}") from None
        except OverflowError:
            raise ToolError(f"{name}() result is too large") from None


def calculate(expression: str, limits: CalculatorLimits = DEFAULT_LIMITS) -> Number:
    """Evaluate an arithmetic ``expression`` safely; :class:`ToolError` if it cannot be."""
    if not isinstance(expression, str):
        raise ToolError("the expression must be text, e.g. '2 * (3 + 4)'")
    if len(expression) > limits.max_length:
        raise ToolError(
            f"the expression is {len(expression)} characters long; the limit is "
            f"{limits.max_length}. Split it into smaller calculations."
        )
    text = _localise(_normalise(expression))
    if not text:
        raise ToolError("the expression is empty; write something like '2 * (3 + 4)'")
    if _paren_depth(text) > limits.max_depth:
        raise ToolError(f"the expression is nested more than {limits.max_depth} levels deep")
    if re.search(rf"(?:[-+~]\s*){{{limits.max_depth + 1},}}", text):
        # a long run of signs nests as deeply as parentheses and exhausts the parser
        raise ToolError("the expression is too complex: too many signs in a row")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        detail = exc.msg if isinstance(exc, SyntaxError) else exc.__class__.__name__
        words = re.findall(r"[^\W\d_]{2,}", text)
        hint = (
            f"; words like {words[0]!r} are not understood, write only numbers and operators"
            if words
            else "; write it like 2 * (3 + 4), 2,5 * 4 or 17% de 2.340"
        )
        raise ToolError(f"cannot read the expression {expression[:80]!r}: {detail}{hint}") from None
    # Check size and depth of the whole tree before computing anything.
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    nodes = 0
    while stack:
        node, depth = stack.pop()
        nodes += 1
        if depth > limits.max_depth or nodes > limits.max_nodes:
            raise ToolError("the expression is too complex; split it into smaller calculations")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return _Evaluator(limits).visit(tree)


def format_number(value: Number) -> str:
    """A number as a model should read it (no float noise like 0.30000000000000004)."""
    if isinstance(value, int):
        return str(value)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return format(value, ".12g")


def calculator_tool(limits: CalculatorLimits = DEFAULT_LIMITS) -> Tool:
    """The ``calculator`` tool."""

    def calculator(expression: str) -> str:
        """Evaluate an arithmetic expression exactly and return the number.

        Supports + - * / // % ** (or ^), parentheses, pi, e and the functions sqrt, exp, log,
        ln, log10, log2, sin, cos, tan, asin, acos, atan, atan2, abs, round, floor, ceil,
        min, max, sum, mean, factorial, gcd, lcm, comb, perm, hypot, degrees, radians.
        Percent and Brazilian numbers are understood: 17%, 17% de 2.340, 2,5 * 4.
        Use it for any arithmetic instead of computing in your head.

        Args:
            expression: The arithmetic expression, e.g. "2 * (3 + 4)" or "sqrt(2) / 3".
        """
        return format_number(calculate(expression, limits))

    return Tool.from_function(calculator, timeout=5.0, tags=("math",))
