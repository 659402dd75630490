"""The calculator's limits are the configured ones, to the unit, and what it refuses it says in
words a model (and the person behind it) can act on; everything inside the limits is computed
exactly like Python would, integers staying exact.

test_calculator.py covers the everyday expressions and hostile input; this file the edges: the
last expression a limit lets through and the first it refuses, and the full sentence of each
refusal."""

from __future__ import annotations

import math
import re

import pytest

from colmeia.errors import ToolError
from colmeia.tools.builtins.calculator import (
    CalculatorLimits,
    calculate,
    calculator_tool,
    format_number,
)

FUNCTIONS = (
    "abs, acos, asin, atan, atan2, cbrt, ceil, comb, cos, cosh, degrees, exp, factorial, floor, "
    "gcd, hypot, lcm, ln, log, log10, log2, max, mean, min, perm, radians, round, sin, sinh, "
    "sqrt, sum, tan, tanh, trunc"
)


def _refused(expression: str, limits: CalculatorLimits | None = None) -> str:
    with pytest.raises(ToolError) as info:
        calculate(expression, limits or CalculatorLimits())
    return str(info.value)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("log(e**3)", 3),  # one argument: the natural logarithm
        ("log(1000, 10)", 3),
        ("round(2.7)", 3),
        ("round(2.567, 1)", 2.6),
        ("5 − 3", 2),  # the typographic minus sign
        ("2\u00a0* 3", 6),  # a no-break space pasted from a document
        ("+5 - 3", 2),
        ("(2,5 + 1) * 2", 7),  # a decimal comma inside plain parentheses
        ("(2,5) * 2", 5),
        ("3*(2,5)", 7.5),
        ("max(2,5) + (2,5)", 7.5),
        ("2 ** 0.5", math.sqrt(2)),
        ("0 ** 0.5", 0),
        ("0.5 ** 0.5", math.sqrt(0.5)),
        ("0 ** 0.0", 1),
        ("(-2) ** 2.0", 4),
        ("10.0 ** 300", 1e300),  # the largest float allowed is allowed
        ("1e300 / 1", 1e300),
        ("comb(10000, 2)", 49995000),  # the largest argument allowed
        ("comb(200, 2)", 19900),  # only factorial has the lower bound
    ],
)
def test_what_is_inside_the_limits_is_computed(expression: str, expected: float) -> None:
    assert calculate(expression) == pytest.approx(expected)


def test_integers_stay_exact_up_to_the_bit_limit() -> None:
    assert calculate("2**999") == 2**999  # 1000 bits: the limit itself
    # x**0 is the integer 1: adding it to a 1000-bit integer stays exact (a float would be
    # above the float limit and refused)
    assert calculate("2**999 + 3**0") == 2**999 + 1


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("2**1000", "the result is too large (more than 1000 bits); split the calculation or use "
         "smaller numbers"),
        ("2**999 * 2", "the result is too large (more than 1000 bits); split the calculation or "
         "use smaller numbers"),
        ("2**1001", "2**1001 is too large to compute (more than 1000 bits)"),
        ("3**700", "3**700 is too large to compute (more than 1000 bits)"),
        ("1.9 ** 1100", "1.9**1100 is too large to compute"),
        ("10.0 ** 301", "10.0**301 is too large to compute"),
        ("1e299 * 100", "the result is too large (above 1e+300)"),
        ("0 ** -1", "division by zero: 0 raised to a negative power"),
        ("(-8) ** 0.5", "a negative number raised to a fractional power is not real"),
        ("1/0", "division by zero"),
        ("'a' * 10", "only numbers are allowed, found str 'a'"),
        ("'" + "b" * 40 + "'", "only numbers are allowed, found str '" + "b" * 30 + "'"),
        ("1 << 10", "operator LShift is not supported; use + - * / // % **"),
        ("[1]", "List is not allowed in a calculation; write plain arithmetic like 2*(3+4) or "
         "sqrt(16)"),
        ("x + 1", f"unknown name 'x': only the constants pi, e, tau and the functions {FUNCTIONS} "
         "are allowed"),
        ("(1).real()", f"Attribute is not allowed: only these functions may be called: {FUNCTIONS}"),
        ("a" * 50 + "(1)", f"{'a' * 40} is not allowed: only these functions may be called: "
         f"{FUNCTIONS}"),
        ("log(1, 2, 3)", "log() takes 1 to 2 arguments, got 3"),
        ("sqrt(1, 2)", "sqrt() takes 1 arguments, got 2"),
        ("factorial(2.5)", "factorial() needs whole numbers"),
        ("gcd(20000, 5)", "gcd() argument is too large"),
        ("comb(10001, 2)", "comb() argument is too large"),
        ("factorial(171)", "factorial() argument is too large"),
        ("round(2.5, 1.5)", "round(x, n): n must be a whole number"),
        ("", "the expression is empty; write something like '2 * (3 + 4)'"),
        ("2 +", "cannot read the expression '2 +': invalid syntax; write it like 2 * (3 + 4), "
         "2,5 * 4 or 17% de 2.340"),
        ("2340 - 17%", "'- 17%' is ambiguous (a percent of what?); write x * (1 - 17/100) or "
         "x - 17% de x"),
        ("-" * 41 + "1", "the expression is too complex: too many signs in a row"),
    ],
)  # fmt: skip
def test_each_refusal_says_what_and_what_to_do(expression: str, message: str) -> None:
    assert _refused(expression) == message


def test_an_unreadable_expression_is_quoted_up_to_eighty_characters() -> None:
    expression = "1 + " * 30  # ends in an operator: cannot be read
    assert _refused(expression).startswith(f"cannot read the expression {expression[:80]!r}: ")


def test_what_is_not_text_is_refused_in_words() -> None:
    with pytest.raises(ToolError) as info:
        calculate(42)  # type: ignore[arg-type]
    assert str(info.value) == "the expression must be text, e.g. '2 * (3 + 4)'"


def test_the_length_limit_lets_its_own_length_through() -> None:
    assert calculate(" " * 499 + "1") == 1  # 500 characters
    assert _refused(" " * 500 + "1") == (
        "the expression is 501 characters long; the limit is 500. Split it into smaller "
        "calculations."
    )
    assert _refused("1+2+3", CalculatorLimits(max_length=4)).startswith(
        "the expression is 5 characters long; the limit is 4."
    )


def test_the_nesting_limit_lets_its_own_depth_through() -> None:
    assert calculate("(" * 40 + "1" + ")" * 40) == 1
    assert (
        _refused("(" * 41 + "1" + ")" * 41) == "the expression is nested more than 40 levels deep"
    )
    # depth is how deep the parentheses are open, not how many there are
    assert calculate(("(" * 40 + "1" + ")" * 40 + "+") * 2 + "1") == 3
    assert (
        _refused("(" + "(1)" + "+" + "(" * 40 + "1" + ")" * 40 + ")")
        == "the expression is nested more than 40 levels deep"
    )
    assert calculate("(((1)))", CalculatorLimits(max_depth=3)) == 1
    assert _refused("((((1))))", CalculatorLimits(max_depth=3)).startswith(
        "the expression is nested"
    )


def test_signs_in_a_row_up_to_the_depth_limit_are_computed() -> None:
    assert calculate("-" * 39 + "1") == -1  # 39 unary signs: 40 levels with the number


def test_the_configured_size_and_depth_of_the_expression_are_the_ones_applied() -> None:
    roomy = CalculatorLimits(max_length=100_000, max_nodes=100_000)
    complex_ = "the expression is too complex; split it into smaller calculations"
    assert _refused("1+" * 100 + "1", roomy) == complex_  # 100 levels deep
    few_nodes = CalculatorLimits(max_nodes=14)
    assert calculate("1+2+3+4+5", few_nodes) == 15  # 14 syntax nodes: the limit itself
    assert _refused("1+2+3+4+5+6", few_nodes) == complex_


def test_the_configured_number_limits_are_the_ones_applied() -> None:
    small = CalculatorLimits(max_int_bits=10, max_float=1e6, max_factorial=5)
    assert calculate("2**9", small) == 512
    assert _refused("2**11", small) == "2**11 is too large to compute (more than 10 bits)"
    assert calculate("1e6 * 1", small) == 1e6
    assert _refused("1e6 * 1.5", small) == "the result is too large (above 1e+06)"
    assert calculate("factorial(5)", small) == 120
    assert _refused("factorial(6)", small) == "factorial() argument is too large"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (3, "3"),
        (2.0, "2"),
        (-3.0, "-3"),
        (0.1 + 0.2, "0.3"),
        (1e14, "100000000000000"),
        (1e15, "1e+15"),
        (1e-20, "1e-20"),
        (2**60, "1152921504606846976"),
    ],
)
def test_a_number_is_shown_without_float_noise(value: float, shown: str) -> None:
    assert format_number(value) == shown


async def test_the_tool_applies_its_limits_and_is_bounded_in_time() -> None:
    tool = calculator_tool(CalculatorLimits(max_length=4))
    refused = await tool.run({"expression": "1+2+3"})
    assert not refused.ok
    assert re.search(r"5 characters long; the limit is 4", refused.output)
    plain = calculator_tool()
    assert (await plain.run({"expression": "1e15 * 1"})).output == "1e+15"
    assert plain.tags == ("math",)
    assert plain.timeout == 5.0
