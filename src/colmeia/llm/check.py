"""Checking a model endpoint: does it answer, call tools, return JSON — and how fast is it?

Used by ``colmeia llm check``. The checks go through the ordinary client, so they probe the way
real calls do: a tool call is first asked for by name (the most demanding form), and when the
server refuses or ignores that, in the forms that still work (``"required"``, ``"auto"`` with
an instruction, tools described in the prompt). What the endpoint honoured is reported from
its learned profile, with its measured speed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from colmeia.errors import ModelError
from colmeia.llm.base import Message, ToolSpec
from colmeia.llm.openai_compat import OpenAIChatModel

__all__ = ["CheckReport", "CheckResult", "check_endpoint"]


class _Probe(BaseModel):
    """A tiny structured answer used to test JSON output."""

    city: str = Field(description="The city named in the question.")
    population_millions: float = Field(ge=0)


_WEATHER = ToolSpec(
    name="get_weather",
    description="Current weather for a city.",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string", "description": "City name"}},
        "required": ["city"],
    },
)
_FORMS = {
    "named": "native, tool_choice naming the function",
    "required_one": "native, tool_choice=required",
    "required": "native, tool_choice=required",
    "auto": "tool_choice=auto plus an instruction",
    "omit": "no tool_choice, plus an instruction",
    "prompt": "tools described in the prompt",
}


@dataclass(slots=True)
class CheckResult:
    """One check: passed or not, a short detail, how long it took."""

    name: str
    ok: bool
    detail: str
    seconds: float


@dataclass(slots=True)
class CheckReport:
    """All checks of one endpoint, what it honours and its speed."""

    checks: list[CheckResult] = field(default_factory=list)
    profile: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    @property
    def failed(self) -> list[str]:
        return [c.name for c in self.checks if not c.ok]


async def check_endpoint(model: OpenAIChatModel, *, deadline: float = 60.0) -> CheckReport:
    """Run the three checks against ``model``; a check that fails says why in its detail.

    ``deadline`` bounds the first call; later ones get more when the first showed a slow
    endpoint (see :meth:`colmeia.llm.capabilities.Speed.deadline_for`).
    """
    report = CheckReport()
    t0 = time.perf_counter()
    try:
        reply = await model.chat(
            [Message.user("Responda apenas com a palavra: ok")], max_tokens=16, deadline=deadline
        )
        detail = reply.content[:60] or "(empty)"
        report.checks.append(CheckResult("answers", True, detail, time.perf_counter() - t0))
    except ModelError as exc:
        report.checks.append(CheckResult("answers", False, _short(exc), time.perf_counter() - t0))
        report.profile = model.profile.describe()
        return report
    later = model.speed.deadline_for(deadline, prompt_tokens=400, completion_tokens=200)
    t0 = time.perf_counter()
    try:
        res = await model.chat(
            [Message.user("Como está o tempo em Recife agora?")],
            tools=[_WEATHER],
            tool_choice=_WEATHER.name,
            max_tokens=200,
            deadline=later,
        )
        how = _FORMS.get(res.tool_form, res.tool_form)
        if res.tool_calls_recovered:
            how = f"call read from the text (asked with {how})"
        report.checks.append(CheckResult("tool calls", True, how, time.perf_counter() - t0))
    except ModelError as exc:
        report.checks.append(
            CheckResult("tool calls", False, _short(exc), time.perf_counter() - t0)
        )
    t0 = time.perf_counter()
    try:
        res2 = await model.structured_result(
            [Message.user("Qual a população aproximada de São Paulo, em milhões?")],
            _Probe,
            max_tokens=200,
            deadline=later,
        )
        detail = f"{res2.mode} mode, {res2.usage.repairs} repairs"
        report.checks.append(
            CheckResult("JSON Schema output", True, detail, time.perf_counter() - t0)
        )
    except ModelError as exc:
        report.checks.append(
            CheckResult("JSON Schema output", False, _short(exc), time.perf_counter() - t0)
        )
    report.profile = model.profile.describe()
    return report


def _short(exc: Exception) -> str:
    return " ".join(str(exc).split())[:160]
