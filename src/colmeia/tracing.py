"""Spans for model calls and tools, through OpenTelemetry's API — no-ops unless configured.

Library code marks its work with :func:`span`; nothing is recorded or sent until an
application (``colmeia serve`` with ``COLMEIA_SERVICE_OTLP_ENDPOINT``) installs a tracer
provider. Without one, a span costs a few microseconds and produces nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["record_span", "span"]

try:
    from opentelemetry import trace as _trace

    _tracer: Any = _trace.get_tracer("colmeia")
except ImportError:  # the API is a dependency, but library users may strip it
    _tracer = None


@contextmanager
def span(name: str, **attributes: Any) -> Iterator[Any]:
    """A span named ``name`` around the block (attributes: str, bool, int or float values).

    Yields the span (``None`` without OpenTelemetry) so the block can add attributes.
    """
    if _tracer is None:
        yield None
        return
    clean = {k: v for k, v in attributes.items() if isinstance(v, str | bool | int | float)}
    with _tracer.start_as_current_span(name, attributes=clean) as current:
        yield current


def record_span(name: str, duration_s: float, *, error: str = "", **attributes: Any) -> None:
    """A span for work that just ended and took ``duration_s`` (one call at its end).

    For code with many exits (a model call's retry loop): one line where it settles instead
    of a ``with`` block around it.
    """
    if _tracer is None:
        return
    import time

    end = time.time_ns()
    clean = {k: v for k, v in attributes.items() if isinstance(v, str | bool | int | float)}
    current = _tracer.start_span(name, start_time=end - int(duration_s * 1e9), attributes=clean)
    if error:
        from opentelemetry.trace import Status, StatusCode

        current.set_status(Status(StatusCode.ERROR, error))
    current.end(end_time=end)
