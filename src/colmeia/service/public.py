"""What a caller may read of a failure: one mapping for every route, stream and job.

A caller gets a stable ``code``, a message that says what to do, and the request id; the
internals — the model server's address, exception classes, ports, the server's folders — go to
the log under that request id (or job id) and never into a response, an event or a job.
"""

from __future__ import annotations

import logging
import re
from typing import Any

__all__ = [
    "CODES",
    "MODEL_FAILED",
    "error_body",
    "has_internals",
    "public_text",
    "redacted",
    "scrub",
]

log = logging.getLogger("colmeia.service")

#: the ``code`` of every error answer, by HTTP status (a route may pass a more precise one)
CODES: dict[int, str] = {
    400: "bad_request",
    401: "unauthenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    409: "conflict",
    413: "too_large",
    415: "unsupported_type",
    422: "invalid",
    429: "rate_limited",
    499: "client_closed",
    500: "internal",
    502: "model_failed",
    503: "unavailable",
}

MODEL_FAILED = (
    "the language model did not answer; try again in a moment, and if it keeps failing give "
    "the request id to the operator"
)

_INTERNAL = re.compile(
    r"\b[a-z][a-z0-9+.-]*://[^\s'\"<>)]+"  # URLs
    r"|\[?[0-9a-f]*:[0-9a-f:]+:[0-9a-f]+\]?:\d+"  # IPv6 with a port
    r"|\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b"  # IPv4 addresses, with a port
    r"|\blocalhost(?::\d+)?\b"
    r"|\bport \d+\b",
    re.IGNORECASE,
)
# Python exception classes (``ClientConnectorError``, ``httpx.ConnectTimeout``, ``OSError``)
_EXCEPTION = re.compile(
    r"\b(?:[a-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Timeout|Refused|Reset|Failure)\b:?"
    r"|\bErrno \d+\b|\[Errno[^\]]*\]"
)
# absolute paths of this machine (at least two parts: ``/srv/colmeia/tenants/…``); the
# service's own routes (``/v1/assistant/threads/…/resume``) are what a caller is told to call
_PATH = re.compile(r"(?<![\w.:/])(?!/v1/)(?:/[\w.@+-]+){2,}/?")


def has_internals(text: str) -> bool:
    """Whether ``text`` names an address, a port, an exception class or a path."""
    return bool(_INTERNAL.search(text) or _EXCEPTION.search(text) or _PATH.search(text))


def scrub(text: str, root: str | None = None) -> str:
    """``text`` with internals replaced by what they are (``root``, a folder, made relative)."""
    if root:
        text = text.replace(root.rstrip("/") + "/", "")
    text = _INTERNAL.sub("(an internal address)", text)
    text = _EXCEPTION.sub("", text)
    text = _PATH.sub("(a server path)", text)
    return re.sub(r"\(\s*[:…]*\s*\)|\s{2,}", " ", text).strip()


def public_text(text: str, *, model: bool = False, where: str = "") -> str:
    """A message safe to show: ``text`` itself when it names no internal, else a stable
    message (the original goes to the log, tagged with ``where``)."""
    if not has_internals(text):
        return text
    log.error("%s: %s", where or "error shown to a caller", text)
    if model or "model" in text.lower():
        return MODEL_FAILED
    return scrub(text)


def redacted(data: Any, root: str | None = None) -> Any:
    """``data`` (JSON-like) with every string scrubbed (a job's result, an agent's trace)."""
    if isinstance(data, str):
        return scrub(data, root) if (root and root in data) or has_internals(data) else data
    if isinstance(data, list | tuple):
        return [redacted(v, root) for v in data]
    if isinstance(data, dict):
        return {k: redacted(v, root) for k, v in data.items()}
    return data


def error_body(
    status: int, detail: Any, request_id: str, code: str | None = None
) -> dict[str, Any]:
    """The JSON body of every error answer."""
    return {"detail": detail, "code": code or CODES.get(status, "error"), "request_id": request_id}
