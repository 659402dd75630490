"""The calculator computes arithmetic and refuses everything else, without running code."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from colmeia.errors import ToolError
from colmeia.tools.builtins.calculator import CalculatorLimits, calculate, calculator_tool


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("2+2", 4),
        ("2 * (3 + 4)", 14),
        ("7 / 2", 3.5),
        ("7 // 2", 3),
        ("-7 % 3", 2),
        ("2^10", 1024),
        ("2 ** -1", 0.5),
        ("3 × 4 ÷ 2", 6),
        ("sqrt(16) + abs(-3)", 7),
        ("round(pi, 2)", 3.14),
        ("log(8, 2)", 3),
        ("ln(e)", 1),
        ("max(1, 5, 3) - min(4, 2)", 3),
        ("factorial(5)", 120),
        ("comb(5, 2)", 10),
        ("mean(1, 2, 3, 4)", 2.5),
        ("1e3 * 2", 2000),
        ("10**100 // 10**99", 10),
    ],
)
def test_arithmetic_and_math_functions(expression: str, expected: float) -> None:
    assert calculate(expression) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("__import__('os')", "__import__"),
        ("__import__('os').system('touch /tmp/pwned')", "only these functions"),
        ("().__class__.__bases__[0].__subclasses__()", "not allowed"),
        ("(1).real", "Attribute is not allowed"),
        ("lambda: 1", "Lambda is not allowed"),
        ("[x for x in range(10**9)]", "not allowed"),
        ("open('/etc/passwd')", "only these functions"),
        ("x + 1", "unknown name 'x'"),
        ("'a' * 10", "only numbers"),
        ("True + 1", "only numbers"),
        ("1j * 2", "only numbers"),
        ("9**9**9**9", "too large"),
        ("2**100000", "too large"),
        ("10.0**400", "too large"),
        ("factorial(100000)", "too large"),
        ("(" * 10000 + "1" + ")" * 10000, "characters long"),
        ("(" * 10000, "characters long"),
        ("(" * 100 + "1" + ")" * 100, "nested more than 40 levels"),
        ("sqrt(" * 60 + "1" + ")" * 60, "nested more than 40 levels"),
        ("-" * 300 + "1", "too complex"),
        ("1+" * 1000 + "1", "characters long"),
        ("1/0", "division by zero"),
        ("5 % 0", "division by zero"),
        ("sqrt(-1)", "math domain error"),
        ("sqrt(1, 2)", "takes 1 arguments"),
        ("sqrt(x=4)", "positional"),
        ("", "empty"),
        ("2 +", "cannot read"),
        ("1 if 1 else 2", "IfExp is not allowed"),
        ("1 << 10", "not supported"),
        ("exp(1000)", "too large"),
    ],
)
def test_hostile_or_invalid_input_gives_a_clear_error(expression: str, message: str) -> None:
    with pytest.raises(ToolError, match=message.replace("(", r"\(").replace("*", r"\*")):
        calculate(expression)


def test_depth_is_checked_before_parsing_even_with_a_generous_length_limit() -> None:
    roomy = CalculatorLimits(max_length=100_000)
    with pytest.raises(ToolError, match="nested"):
        calculate("(" * 10000 + "1" + ")" * 10000, roomy)
    with pytest.raises(ToolError, match="nested"):
        calculate("[" * 50_000, roomy)
    with pytest.raises(ToolError, match="too complex"):
        calculate("-" * 50_000 + "1", roomy)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("17%", 0.17),
        ("17% de 2.340", 397.8),  # the README's headline task, in Portuguese notation
        ("17% * 2340", 397.8),
        ("2340 * 17%", 397.8),
        ("10% of 50", 5),
        ("17 por cento de 200", 34),
        ("2,5 * 4", 10),
        ("R$ 59,90 * 2", 119.8),
        ("2.340,50 + 1", 2341.5),
        ("1.234.567 / 1", 1234567),
        ("max(2,5)", 5),  # inside a call the comma separates arguments
        ("17 % 5", 2),  # followed by a number, % is still the remainder
        ("2.5 * 4", 10),  # English decimals keep working
    ],
)
def test_percent_and_portuguese_numbers(expression: str, expected: float) -> None:
    assert calculate(expression) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        (
            "2340 + 17%",
            r"'\+ 17%' is ambiguous \(a percent of what\?\); write x \* \(1 \+ 17/100\)",
        ),
        ("Quanto é 17% de 2.340", "words like 'Quanto' are not understood"),
        ("2 +", r"write it like 2 \* \(3 \+ 4\), 2,5 \* 4 or 17% de 2.340"),
    ],
)
def test_what_the_calculator_cannot_read_it_says_why(expression: str, message: str) -> None:
    with pytest.raises(ToolError, match=message):
        calculate(expression)


def test_no_code_is_executed(tmp_path: pytest.TempPathFactory) -> None:
    marker = f"{tmp_path}/pwned"
    for attack in (
        f"__import__('os').system('touch {marker}')",
        f"open('{marker}', 'w')",
        "[c for c in ().__class__.__base__.__subclasses__()]",
    ):
        with pytest.raises(ToolError):
            calculate(attack)
    import os

    assert not os.path.exists(marker)


async def test_the_tool_reports_errors_as_observations() -> None:
    t = calculator_tool()
    assert (await t.run({"expression": "0.1 + 0.2"})).output == "0.3"
    bad = await t.run({"expression": "__import__('os')"})
    assert not bad.ok
    assert bad.output.startswith("Error:")
    assert t.parameters["required"] == ["expression"]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789+-*/%().^ e,abcdefghijklmnopqrstuvwxyz_'[]{}:=<>!", max_size=60))
def test_fuzzed_input_returns_a_number_or_a_tool_error(text: str) -> None:
    try:
        value = calculate(text)
    except ToolError:
        return
    assert isinstance(value, int | float)
    assert not isinstance(value, bool)
    if isinstance(value, float):
        assert math.isfinite(value)


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.integers(min_value=-(10**6), max_value=10**6).map(str),
        lambda inner: st.tuples(
            inner, st.sampled_from(["+", "-", "*", "/", "**", "//", "%"]), inner
        ).map(lambda t: f"({t[0]}){t[1]}({t[2]})"),
        max_leaves=12,
    )
)
def test_fuzzed_arithmetic_never_escapes_the_limits(expression: str) -> None:
    try:
        value = calculate(expression)
    except ToolError:
        return
    if isinstance(value, int):
        assert value.bit_length() <= 1000
    else:
        assert math.isfinite(value)
        assert abs(value) <= 1e300
