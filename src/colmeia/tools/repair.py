"""Arguments the way small models send them, made usable; and one-line example calls.

Small models shown a JSON Schema often send the schema back instead of arguments —
``{"required": ["expression"], "properties": {"expression": "2*3"}}``, or
``{"expression": {"type": "string", "value": "2*3"}}`` — or wrap the arguments once more
(``{"arguments": {...}}``). :func:`repair_arguments` recovers the values such an object
carries, and only when the values are really there: it never invents one. :func:`example_call`
writes the one-line call a model should imitate, ``calculator({"expression": "2 * (3 + 4)"})``,
because an example is copied far more faithfully than a schema.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Protocol

import orjson

__all__ = ["example_arguments", "example_call", "repair_arguments"]


class Tool(Protocol):
    """What repair reads of a tool; ``registry.Tool`` has it. A protocol rather than an import
    because the registry imports this module: imports run one way."""

    @property
    def name(self) -> str: ...

    @property
    def parameters(self) -> dict[str, Any]: ...

    def required_parameters(self) -> list[str]: ...


# Words of JSON Schema itself: a key from this set, where the tool has no parameter of that
# name, means the model copied the schema.
_SCHEMA_WORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "title",
        "description",
        "additionalProperties",
        "$schema",
        "$defs",
        "items",
        "enum",
        "default",
        "examples",
        "parameters",
        "arguments",
        "args",
        "input",
        "name",
    }
)
_TYPE_NAMES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
# The value a schema-like wrapper holds for one parameter, in the order models use them.
_VALUE_KEYS = ("value", "const", "default", "example")
_EXAMPLE = re.compile(
    r"""(?:e\.g\.|eg\.|for example|ex\.|por exemplo|p\. ?ex\.)[:,]?\s*(?P<q>["'`])(?P<v>.+?)(?P=q)""",
    re.I,
)
_MAX_DEPTH = 4


def _properties(tool: Tool) -> dict[str, Any]:
    props = tool.parameters.get("properties", {})
    return props if isinstance(props, dict) else {}


def _is_schema_value(value: Any) -> bool:
    """Whether ``value`` is schema vocabulary rather than a real argument."""
    if isinstance(value, str):
        return value in _TYPE_NAMES
    if isinstance(value, dict):
        return not value or set(value) <= _SCHEMA_WORDS | set(_VALUE_KEYS)
    return False


def _unwrap(value: Any) -> Any:
    """``{"type": "string", "value": "2*3"}`` → ``"2*3"``; anything else as it is."""
    keys = set(value) if isinstance(value, dict) else set()
    if keys & set(_VALUE_KEYS) and keys <= _SCHEMA_WORDS | set(_VALUE_KEYS):
        return next(value[k] for k in _VALUE_KEYS if k in value)
    return value


def _collect(obj: Any, names: set[str], found: dict[str, Any], depth: int = 0) -> None:
    """Values for parameter ``names`` anywhere in ``obj`` (shallowest wins)."""
    if depth > _MAX_DEPTH or not isinstance(obj, dict):
        return
    nested: list[Any] = []
    for key, value in obj.items():
        if key in names and key not in found:
            candidate = _unwrap(value)
            if not _is_schema_value(candidate):
                found[key] = candidate
                continue
        if isinstance(value, dict):
            nested.append(value)
    for value in nested:
        _collect(value, names, found, depth + 1)


def _leaf_values(obj: Any, depth: int = 0) -> list[Any]:
    """Scalar values in ``obj`` that are not schema vocabulary."""
    if depth > _MAX_DEPTH:
        return []
    if isinstance(obj, dict):
        out: list[Any] = []
        for key, value in obj.items():
            if key == "required" and isinstance(value, list):
                # {"required": ["2340*0.17"]}: a value where parameter names belong
                out.extend(v for v in value if isinstance(v, str | int | float))
            elif key not in ("type", "title", "description", "$schema", "required"):
                out.extend(_leaf_values(value, depth + 1))
        return out
    if isinstance(obj, list):
        return []
    if isinstance(obj, str) and obj in _TYPE_NAMES:
        return []
    return [obj] if obj is not None and not isinstance(obj, bool) else []


def repair_arguments(tool: Tool, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """Arguments for ``tool`` recovered from a schema-shaped or wrapped object, or ``None``.

    ``None`` means there was nothing to repair (the arguments are not schema-shaped) or the
    values are not there to recover; the caller then reports the validation error as is.
    """
    args = dict(arguments)
    props = _properties(tool)
    names = set(props)
    if not names:
        return None
    stray = set(args) - names
    if not stray:
        # Right keys; a value may still be wrapped: {"expression": {"value": "2*3"}}.
        unwrapped = {k: _unwrap(v) for k, v in args.items()}
        return (
            unwrapped
            if unwrapped != args and not any(_is_schema_value(v) for v in unwrapped.values())
            else None
        )
    if not stray <= _SCHEMA_WORDS:
        return None  # unknown keys that are not schema words: a real mistake to report
    found: dict[str, Any] = {}
    _collect(args, names, found)
    required = tool.required_parameters()
    if not all(r in found for r in required):
        # One required parameter and exactly one candidate value: that is the argument.
        missing = [r for r in required if r not in found]
        if len(missing) == 1 and len(required) == 1:
            leaves = [v for v in _leaf_values(args) if v not in names]
            if len(leaves) == 1:
                found[missing[0]] = leaves[0]
    if not all(r in found for r in required) or not found:
        return None
    return found


def _example_value(name: str, schema: Any) -> Any:
    if not isinstance(schema, dict):
        return "..."
    for key in ("examples",):
        values = schema.get(key)
        if isinstance(values, list) and values:
            return values[0]
    if "example" in schema:
        return schema["example"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    if "default" in schema and schema["default"] is not None:
        return schema["default"]
    kind = schema.get("type")
    if kind is None and isinstance(schema.get("anyOf"), list):
        kinds = [s.get("type") for s in schema["anyOf"] if isinstance(s, dict)]
        kind = next((k for k in kinds if k and k != "null"), None)
    described = _EXAMPLE.search(str(schema.get("description") or ""))
    if described and kind in (None, "string"):
        return described.group("v")
    if described and kind in ("number", "integer"):
        try:
            return orjson.loads(described.group("v"))
        except orjson.JSONDecodeError:
            pass
    return {
        "string": "...",
        "integer": 1,
        "number": 1.5,
        "boolean": True,
        "array": [],
        "object": {},
    }.get(str(kind), "...")


def example_arguments(tool: Tool) -> dict[str, Any]:
    """Plausible arguments for ``tool``: its required parameters (or the first one)."""
    props = _properties(tool)
    wanted = tool.required_parameters() or list(props)[:1]
    return {name: _example_value(name, props.get(name)) for name in wanted}


def example_call(tool: Tool) -> str:
    """``name({"param": example})`` on one line, for prompts and error messages."""
    return f"{tool.name}({json.dumps(example_arguments(tool), ensure_ascii=False)})"
