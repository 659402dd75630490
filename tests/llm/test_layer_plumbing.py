"""The model layer's plumbing: running from sync code (also inside a running loop), a broken
stream, and the prompt trace that `-v` shows."""

from __future__ import annotations

import asyncio
import logging
import socket
import threading

import pytest

from colmeia.errors import ModelProtocolError
from colmeia.llm import Message, OpenAIChatModel, SyncChatModel, run_sync
from colmeia.llm.openai_compat import TRACE_LOGGER
from colmeia.sim.engine import SimulatedModel


async def _answer() -> int:
    await asyncio.sleep(0)
    return 42


def test_run_sync_works_from_plain_code() -> None:
    assert run_sync(_answer()) == 42


async def test_run_sync_works_inside_a_running_event_loop_like_jupyter() -> None:
    # asyncio.run() would refuse here ("cannot be called from a running event loop").
    assert run_sync(_answer()) == 42


def test_run_sync_lets_exceptions_through() -> None:
    async def boom() -> None:
        raise ValueError("nope")

    with pytest.raises(ValueError, match="nope"):
        run_sync(boom())


async def test_the_blocking_model_answers_from_inside_a_running_loop(sim_server) -> None:
    srv = sim_server(SimulatedModel(script=["Olá!"]))
    with SyncChatModel(OpenAIChatModel(base_url=srv.base_url, model="sim")) as model:
        assert model.chat([Message.user("Oi")]).content == "Olá!"


def _broken_stream_server() -> tuple[socket.socket, str]:
    """A server whose stream carries one line that is not JSON."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            body = (
                b'data: {"choices":[{"index":0,"delta":{"content":"Ol"}}]}\n\n'
                b"data: {this is not json\n\n"
            )
            conn.sendall(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
            )

    threading.Thread(target=serve, daemon=True).start()
    return listener, f"http://127.0.0.1:{listener.getsockname()[1]}/v1"


async def test_a_malformed_stream_line_is_a_typed_error() -> None:
    listener, url = _broken_stream_server()
    model = OpenAIChatModel(base_url=url, model="m", max_retries=0, deadline=10)
    try:
        with pytest.raises(ModelProtocolError, match="not a JSON object"):
            async for _ in model.stream([Message.user("Oi")]):
                pass
    finally:
        await model.aclose()
        listener.close()


async def test_the_trace_shows_each_rendered_prompt_and_the_raw_reply(
    sim_server, make_model, caplog: pytest.LogCaptureFixture
) -> None:
    srv = sim_server(SimulatedModel(script=["<think>hmm</think>Resposta crua"]))
    with caplog.at_level(logging.INFO, logger=TRACE_LOGGER):
        await make_model(srv.base_url).chat(
            [Message.system("Você é um assistente."), Message.user("Pergunta?")]
        )
    text = "\n".join(r.getMessage() for r in caplog.records if r.name == TRACE_LOGGER)
    assert "[system] Você é um assistente." in text
    assert "[user] Pergunta?" in text
    assert "<think>hmm</think>Resposta crua" in text  # raw, before reasoning is stripped


def test_verbose_cli_prints_prompts_and_replies(sim_server) -> None:
    import os
    import subprocess
    import sys

    srv = sim_server(SimulatedModel(schema_mode=True))
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
    env.update(COLMEIA_LLM_BASE_URL=srv.base_url, COLMEIA_LLM_MODEL="sim")
    proc = subprocess.run(
        [sys.executable, "-m", "colmeia", "-v", "llm", "check"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "[user] Responda apenas com a palavra: ok" in proc.stderr
    assert "reply #1" in proc.stderr


def test_usage_of_blocking_calls_is_counted_by_the_callers_tracker(sim_server) -> None:
    from colmeia.llm import track_usage

    srv = sim_server(SimulatedModel(script=["um", "dois"]))
    with (
        SyncChatModel(OpenAIChatModel(base_url=srv.base_url, model="sim")) as model,
        track_usage() as tracker,
    ):
        model.chat([Message.user("1")])
        model.chat([Message.user("2")])
    assert tracker.usage.calls == 2
