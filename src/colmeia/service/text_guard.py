"""Text checked at the boundary: no lone surrogate and no NUL gets past a route's door.

JSON may carry ``"\\ud800"`` (a half of a UTF-16 pair, no character at all) and ``"\\u0000"``;
Python's ``json`` turns them into a ``str`` that cannot be encoded to UTF-8 or stored, and the
request failed deep inside with a 500 ("surrogates not allowed"). Both can only arrive as JSON
escapes (raw UTF-8 cannot hold a surrogate, and a raw NUL inside a JSON string is already a
parse error), so the raw body is searched for the escapes first — a cheap scan that leaves
ordinary requests alone — and only a body that has one is walked to name the field.
"""

from __future__ import annotations

import json
import re
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError

__all__ = ["bad_text", "check_text"]

_ESCAPE = re.compile(rb"\\u(?:0000|d[89a-f][0-9a-f]{2})", re.IGNORECASE)
_BAD = re.compile(r"[\x00\ud800-\udfff]")


def bad_text(value: str) -> str | None:
    """Why ``value`` cannot be stored as text (a NUL, a lone surrogate), or ``None``."""
    found = _BAD.search(value)
    if found is None:
        return None
    char = found.group(0)
    if char == "\x00":
        return "contains a NUL character (U+0000), which text cannot hold"
    return (
        f"contains a lone surrogate (U+{ord(char):04X}): half of a UTF-16 pair, not a "
        "character; send the text as UTF-8"
    )


def _walk(value: Any, loc: tuple[str | int, ...]) -> tuple[tuple[str | int, ...], str] | None:
    if isinstance(value, str):
        why = bad_text(value)
        return (loc, why) if why else None
    if isinstance(value, dict):
        for k, v in value.items():
            found = _walk(k, loc) or _walk(v, (*loc, str(k)))
            if found:
                return found
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found = _walk(v, (*loc, i))
            if found:
                return found
    return None


def _refuse(loc: tuple[str | int, ...], why: str, value: Any) -> RequestValidationError:
    shown = value[:20] if isinstance(value, str) else None
    return RequestValidationError(
        [
            {
                "loc": list(loc),
                "msg": f"{'.'.join(map(str, loc[1:])) or loc[0]} {why}",
                "type": "invalid_text",
                "input": shown,
            }
        ]
    )


async def check_text(request: Request) -> None:
    """An app-wide dependency: 422 naming the field when the path, the query or a JSON body
    holds a lone surrogate or a NUL."""
    for name, value in request.path_params.items():
        if isinstance(value, str) and (why := bad_text(value)):
            raise _refuse(("path", name), why, value)
    for name, value in request.query_params.multi_items():
        if why := bad_text(value):
            raise _refuse(("query", name), why, value)
    if "json" not in request.headers.get("content-type", ""):
        return
    body = await request.body()
    if not _ESCAPE.search(body):
        return
    try:
        data = json.loads(body)  # what FastAPI parses with: it accepts lone surrogates
    except ValueError:
        return  # FastAPI answers a body that is not JSON itself
    found = _walk(data, ("body",))
    if found:
        loc, why = found
        raise _refuse(loc, why, None)
