"""The events a client reads while a node streams its answer (colmeia.graphs.streaming), and
what "the text shown" is after each: a new request of the same call withdraws what was shown
(a ``replace`` to ``""`` with the reason ``retry``), tokens after a replacement add to its text,
and a run that did not ask for tokens (no ``configurable`` at all, even) gets no stream."""

from __future__ import annotations

from typing import Any

from colmeia.graphs.streaming import STREAM_TOKENS, TokenStream, token_stream


def _stream() -> tuple[TokenStream, list[Any]]:
    events: list[Any] = []
    return TokenStream(events.append, "search"), events


def test_a_retry_withdraws_what_was_shown() -> None:
    stream, events = _stream()
    stream.begin()  # nothing shown yet: nothing to withdraw
    assert events == []
    stream.delta("O processo ")
    stream.begin()
    assert events[-1] == {"type": "replace", "agent": "search", "text": "", "reason": "retry"}
    assert stream.shown == ""
    stream.begin()  # withdrawn already: no second event
    assert len(events) == 2


def test_tokens_after_a_replacement_add_to_its_text() -> None:
    stream, events = _stream()
    stream.delta("rascunho")
    stream.replace("O processo", "registry_check")
    stream.delta(" está em instrução.")
    assert stream.shown == "O processo está em instrução."
    stream.settle("O processo está em instrução.", "final")  # what was shown stands
    assert [e["type"] for e in events] == ["token", "replace", "token"]


def test_a_run_that_did_not_ask_for_tokens_gets_no_stream() -> None:
    assert token_stream(None, "search") is None
    assert token_stream({"tags": ["x"]}, "search") is None
    assert token_stream({"configurable": {"thread_id": "t1"}}, "search") is None
    assert token_stream({"configurable": {STREAM_TOKENS: False}}, "search") is None
