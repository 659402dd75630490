"""JSON Schemas as a grammar-guided server enforces them: ``$ref`` inlined.

llama.cpp's server (``colmeia llm serve``, xllamacpp 0.2.14) turns a response format's JSON
Schema into a grammar but leaves an object behind a ``$ref`` into ``$defs`` unconstrained: under
a Pydantic schema with a nested model, the 0.5B model wrote values the schema forbids (ids outside
an ``enum``, a required field missing) and every answer failed validation. Pydantic writes every
nested model as such a ``$ref``, so the model layer inlines them before sending any schema.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["inline_refs"]


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every ``{"$ref": "#/$defs/X", …}`` replaced by ``X``'s definition (the
    ref's own keywords, a description say, kept beside it) and ``$defs`` dropped. A recursive
    definition cannot be inlined: its ``$ref`` stays, with the ``$defs`` it needs."""
    defs: dict[str, Any] = schema.get("$defs", {})
    if not defs:
        return schema

    def walk(node: Any, seen: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [walk(v, seen) for v in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name in defs and name not in seen:
                merged = {**defs[name], **{k: v for k, v in node.items() if k != "$ref"}}
                return walk(merged, (*seen, name))
        return {k: walk(v, seen) for k, v in node.items() if k != "$defs"}

    out: dict[str, Any] = walk(schema, ())
    if any(f'"#/$defs/{n}"' in json.dumps(out) for n in defs):
        out["$defs"] = defs
    return out
