"""Tools as typed Python functions, and a registry that validates and runs them.

A :class:`Tool` wraps a function: its JSON Schema comes from the type hints (through a Pydantic
model built on the fly) and its parameter descriptions from the docstring (Google ``Args:`` or
Sphinx ``:param x:`` style). A :class:`ToolRegistry` offers tools to a model, validates the
arguments the model sends and runs the function (sync or async) under a timeout.

Nothing a tool does crashes an agent: invalid arguments, unknown tools, exceptions and
timeouts all come back as a :class:`ToolResult` whose ``output`` is an observation the model
can read and correct. :class:`FailureCounter` turns *repeated* failures of one tool into a
clear stop signal (consecutive failures of any tool).
"""

from __future__ import annotations

import asyncio
import difflib
import inspect
import logging
import re
import time
import typing
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, overload

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from colmeia.errors import ColmeiaError, ConfigurationError, ToolError
from colmeia.llm.base import ToolCall, ToolSpec
from colmeia.llm.json_schema import inline_refs
from colmeia.tools.repair import example_call, repair_arguments
from colmeia.tracing import span

__all__ = [
    "FailureCounter",
    "Tool",
    "ToolRegistry",
    "ToolResult",
    "parse_docstring",
    "tool",
]

log = logging.getLogger(__name__)

ResultKind = Literal["ok", "invalid_arguments", "unknown_tool", "error", "timeout"]
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]{0,63}$")
_SECTION = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Returns|Return|Raises|Yields|Examples?|Notes?)\s*:\s*$"
)
_GOOGLE_PARAM = re.compile(r"^\s*(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SPHINX_PARAM = re.compile(r"^\s*:param\s+(?:[\w\[\], ]+\s+)?(\w+)\s*:\s*(.*)$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a docstring into its description and per-parameter descriptions.

    Understands Google style (``Args:`` then ``name: text`` / ``name (type): text``, continued on
    more-indented lines) and Sphinx style (``:param name: text``).
    """
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    description: list[str] = []
    params: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    param_indent = 0
    for line in lines:
        sphinx = _SPHINX_PARAM.match(line)
        if sphinx:
            current = sphinx.group(1)
            params[current] = sphinx.group(2).strip()
            section = "sphinx"
            continue
        if line.strip().startswith(":"):
            section, current = "sphinx-other", None
            continue
        header = _SECTION.match(line)
        if header:
            section = header.group(1).lower()
            current = None
            continue
        if section is None:
            description.append(line)
            continue
        if section in ("args", "arguments", "parameters", "params"):
            indent = len(line) - len(line.lstrip())
            match = _GOOGLE_PARAM.match(line)
            if match and (current is None or indent <= param_indent):
                current = match.group(1).lstrip("*")
                param_indent = indent
                params[current] = match.group(2).strip()
            elif current and line.strip():
                params[current] = f"{params[current]} {line.strip()}".strip()
        elif section == "sphinx" and current and line.strip():
            params[current] = f"{params[current]} {line.strip()}".strip()
    text = "\n".join(description).strip()
    return re.sub(r"\n{3,}", "\n\n", text), params


def _args_model(
    func: Callable[..., Any], name: str, param_docs: Mapping[str, str]
) -> type[BaseModel]:
    """A Pydantic model of ``func``'s parameters (what the model must send)."""
    signature = inspect.signature(func)
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except NameError as exc:
        raise ConfigurationError(
            f"Tool {name!r}: a type hint cannot be resolved ({exc}); import the type at module "
            "level so the tool's schema can be built."
        ) from exc
    fields: dict[str, Any] = {}
    for pname, param in signature.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ConfigurationError(
                f"Tool {name!r}: *args/**kwargs cannot be described to a model; give every "
                "parameter a name and a type."
            )
        if pname not in hints:
            raise ConfigurationError(
                f"Tool {name!r}: parameter {pname!r} has no type hint; add one so the model "
                "knows what to send."
            )
        default = ... if param.default is param.empty else param.default
        fields[pname] = (hints[pname], Field(default, description=param_docs.get(pname)))
    model_name = "".join(part.capitalize() for part in re.split(r"[_\-]", name)) + "Args"
    return create_model(
        model_name,
        __config__=ConfigDict(extra="forbid"),
        **fields,
    )


def _strip_titles(schema: Any) -> Any:
    """Drop Pydantic's auto-generated ``title`` keys: noise in a prompt, no information."""
    if isinstance(schema, dict):
        return {
            k: _strip_titles(v)
            for k, v in schema.items()
            if not (k == "title" and isinstance(v, str))
        }
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


def _to_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    try:
        return orjson.dumps(value, default=str).decode()
    except TypeError:
        return str(value)


@dataclass(slots=True)
class ToolResult:
    """What happened when a tool was called; ``output`` is what the model reads next."""

    name: str
    arguments: dict[str, Any]
    output: str
    kind: ResultKind = "ok"
    latency_s: float = 0.0
    value: Any = None
    #: what the model sent, when it had to be repaired into ``arguments`` (see tools.repair)
    repaired_from: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.kind == "ok"


@dataclass(slots=True)
class Tool:
    """A typed function a model can call: name, description, argument schema and a timeout."""

    name: str
    description: str
    func: Callable[..., Any]
    args_model: type[BaseModel]
    timeout: float | None = 30.0
    max_output_chars: int = 8000
    tags: tuple[str, ...] = ()
    _parameters: dict[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ConfigurationError(
                f"Tool name {self.name!r} is not usable by models: use letters, digits, '_' or "
                "'-' (at most 64 characters, not starting with a digit)."
            )
        if not self.description.strip():
            raise ConfigurationError(
                f"Tool {self.name!r} has no description: write a docstring (or pass "
                "description=...) saying what it does and when to use it."
            )
        # inlined: a grammar-guided server leaves what sits behind a $ref unconstrained
        schema = _strip_titles(inline_refs(self.args_model.model_json_schema()))
        schema.setdefault("properties", {})
        schema["type"] = "object"
        self._parameters = schema

    @classmethod
    def from_function(
        cls,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        timeout: float | None = 30.0,
        max_output_chars: int = 8000,
        tags: Sequence[str] = (),
    ) -> Tool:
        """A tool from a function's signature and docstring (explicit arguments win)."""
        tool_name: str = name or str(getattr(func, "__name__", ""))
        doc_description, param_docs = parse_docstring(inspect.getdoc(func))
        return cls(
            name=tool_name,
            description=(description or doc_description).strip(),
            func=func,
            args_model=_args_model(func, tool_name, param_docs),
            timeout=timeout,
            max_output_chars=max_output_chars,
            tags=tuple(tags),
        )

    @property
    def parameters(self) -> dict[str, Any]:
        """JSON Schema of the arguments (an ``object``)."""
        return self._parameters

    @property
    def is_async(self) -> bool:
        return inspect.iscoroutinefunction(self.func)

    def spec(self) -> ToolSpec:
        """The tool as offered to a model."""
        return ToolSpec(self.name, self.description, self._parameters)

    def required_parameters(self) -> list[str]:
        return list(self._parameters.get("required", []))

    def validate(self, arguments: Mapping[str, Any]) -> BaseModel:
        """Validated arguments, or :class:`ToolError` saying exactly what to fix."""
        try:
            return self.args_model.model_validate(dict(arguments))
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '(arguments)'}: {e['msg']}"
                for e in exc.errors()[:8]
            )
            # An example call, not the schema: small models copy a schema back as arguments.
            raise ToolError(
                f"Invalid arguments for tool {self.name!r}: {problems}. "
                f"Expected {self.describe_parameters()}. Call it like: {example_call(self)}"
            ) from None

    def describe_parameters(self) -> str:
        """``expression (string, required), digits (integer)`` — the parameters in one line."""
        required = set(self.required_parameters())
        parts = []
        for name, schema in self._parameters.get("properties", {}).items():
            kind = schema.get("type") if isinstance(schema, dict) else None
            if kind is None and isinstance(schema, dict) and "anyOf" in schema:
                kinds = [s.get("type") for s in schema["anyOf"] if isinstance(s, dict)]
                kind = "/".join(str(k) for k in kinds if k and k != "null") or None
            label = ", ".join(x for x in (kind, "required" if name in required else "") if x)
            parts.append(f"{name} ({label})" if label else name)
        return ", ".join(parts) or "no arguments"

    async def run(self, arguments: Mapping[str, Any]) -> ToolResult:
        """Validate and run; every failure becomes an observation, never an exception."""
        with span("tool", tool=self.name) as current:
            result = await self._run(arguments)
            if current is not None:
                current.set_attribute("outcome", result.kind)
            return result

    async def _run(self, arguments: Mapping[str, Any]) -> ToolResult:
        started = time.perf_counter()
        args = dict(arguments)
        repaired_from: dict[str, Any] | None = None
        try:
            validated = self.validate(args)
        except ToolError as exc:
            repaired = repair_arguments(self, args)
            try:
                if repaired is None:
                    raise exc from None
                validated = self.validate(repaired)
            except ToolError:
                return ToolResult(self.name, args, f"Error: {exc}", "invalid_arguments", 0.0)
            log.info("tool %s: repaired schema-shaped arguments %s", self.name, args)
            repaired_from, args = args, repaired
        kwargs = {k: getattr(validated, k) for k in type(validated).model_fields}
        try:
            if self.is_async:
                call: Awaitable[Any] = self.func(**kwargs)
            else:
                call = asyncio.to_thread(self.func, **kwargs)
            value = await asyncio.wait_for(call, self.timeout)
        except TimeoutError:
            return ToolResult(
                self.name,
                args,
                f"Error: tool {self.name!r} did not finish within {self.timeout:g}s; try "
                "simpler input or another approach.",
                "timeout",
                time.perf_counter() - started,
                repaired_from=repaired_from,
            )
        except ColmeiaError as exc:
            return ToolResult(
                self.name,
                args,
                f"Error: {exc}",
                "error",
                time.perf_counter() - started,
                repaired_from=repaired_from,
            )
        except Exception as exc:  # a tool's bug must not kill the agent that called it
            log.warning("tool %s raised %s", self.name, exc.__class__.__name__, exc_info=True)
            return ToolResult(
                self.name,
                args,
                f"Error: tool {self.name!r} failed ({exc.__class__.__name__}: {exc}).",
                "error",
                time.perf_counter() - started,
                repaired_from=repaired_from,
            )
        text = _to_text(value)
        if len(text) > self.max_output_chars:
            text = text[: self.max_output_chars] + f"\n[… cut at {self.max_output_chars} chars]"
        return ToolResult(
            self.name, args, text, "ok", time.perf_counter() - started, value, repaired_from
        )

    def run_sync(self, arguments: Mapping[str, Any]) -> ToolResult:
        """Blocking :meth:`run` (for scripts; inside an event loop, await :meth:`run`)."""
        return asyncio.run(self.run(arguments))


@overload
def tool(func: Callable[..., Any], /) -> Tool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | None = 30.0,
    tags: Sequence[str] = (),
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    func: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | None = 30.0,
    tags: Sequence[str] = (),
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Decorator: ``@tool`` or ``@tool(name=..., timeout=...)`` turns a function into a Tool."""

    def wrap(f: Callable[..., Any]) -> Tool:
        return Tool.from_function(f, name=name, description=description, timeout=timeout, tags=tags)

    return wrap(func) if func is not None else wrap


class ToolRegistry:
    """The tools an agent may use: register, list, validate and execute by name."""

    def __init__(self, tools: Iterable[Tool | Callable[..., Any]] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for t in tools:
            self.register(t)

    def register(self, item: Tool | Callable[..., Any], *, replace: bool = False) -> Tool:
        """Add a tool (or a plain function, turned into one). Names must be unique."""
        t = item if isinstance(item, Tool) else Tool.from_function(item)
        if t.name in self._tools and not replace:
            raise ConfigurationError(
                f"A tool named {t.name!r} is already registered; pick another name or pass "
                "replace=True."
            )
        self._tools[t.name] = t
        return t

    def tool(
        self, func: Callable[..., Any] | None = None, /, **options: Any
    ) -> Tool | Callable[[Callable[..., Any]], Tool]:
        """Decorator registering a function: ``@registry.tool`` or ``@registry.tool(name=…)``."""

        def wrap(f: Callable[..., Any]) -> Tool:
            return self.register(Tool.from_function(f, **options))

        return wrap(func) if func is not None else wrap

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __getitem__(self, name: str) -> Tool:
        try:
            return self._tools[name]
        except KeyError:
            raise ToolError(self._unknown(name)) from None

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        return list(self._tools)

    def specs(self, names: Iterable[str] | None = None) -> list[ToolSpec]:
        """Specs of all tools, or of ``names`` in that order (unknown names are skipped)."""
        chosen = self._tools.values() if names is None else (self._tools.get(n) for n in names)
        return [t.spec() for t in chosen if t is not None]

    def subset(self, names: Iterable[str]) -> ToolRegistry:
        return ToolRegistry(self._tools[n] for n in names if n in self._tools)

    def _unknown(self, name: str) -> str:
        available = ", ".join(self._tools) or "(none)"
        message = f"Unknown tool {name!r}. Available tools: {available}."
        close = difflib.get_close_matches(name.lower(), list(self._tools), n=1, cutoff=0.5)
        if close or len(self._tools) == 1:
            # A small model retries better from an example than from a list of names.
            suggestion = self._tools[close[0] if close else next(iter(self._tools))]
            message += f" Did you mean {suggestion.name}? Call it like: {example_call(suggestion)}"
        return message

    async def execute(self, name: str, arguments: Mapping[str, Any] | None = None) -> ToolResult:
        """Run ``name`` with ``arguments``; failures come back as an observation."""
        t = self._tools.get(name)
        if t is None:
            return ToolResult(
                name, dict(arguments or {}), f"Error: {self._unknown(name)}", "unknown_tool"
            )
        return await t.run(arguments or {})

    async def execute_call(self, call: ToolCall) -> ToolResult:
        return await self.execute(call.name, call.arguments)

    def execute_sync(self, name: str, arguments: Mapping[str, Any] | None = None) -> ToolResult:
        """Blocking :meth:`execute`, same signature."""
        return asyncio.run(self.execute(name, arguments))


class FailureCounter:
    """Counts consecutive failed tool calls, whatever the tool; says when to stop.

    Any successful call resets the count, so a model that corrects itself is never stopped.
    Counting across names matters: a model that tries a different wrong tool name (or a
    different broken call) every step never fails twice with one name, yet is stuck.
    """

    def __init__(self, limit: int = 3) -> None:
        if limit < 1:
            raise ConfigurationError("max tool failures must be at least 1")
        self.limit = limit
        self.consecutive = 0
        self.names: list[str] = []

    def record(self, result: ToolResult) -> bool:
        """Record ``result``; True when ``limit`` calls in a row have now failed."""
        if result.ok:
            self.consecutive = 0
            self.names.clear()
            return False
        self.consecutive += 1
        self.names.append(result.name)
        return self.consecutive >= self.limit

    def count(self, name: str | None = None) -> int:
        """Failed calls in the current run of failures (of ``name`` only, if given)."""
        if name is None:
            return self.consecutive
        return self.names.count(name)
