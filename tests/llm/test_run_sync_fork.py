"""run_sync in a process forked after it was used: the child gets its own loop.

The parent's background loop thread does not survive a fork. Before the fix the child queued
its coroutine on the parent's loop object, which no thread ran, and waited for ever (mutmut's
forked workers hung on every ingest with an HTTP embedder, and their hangs were scored as
kills).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time

import pytest

from colmeia.llm.sync import run_sync

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the platform has no fork")


async def _seven() -> int:
    await asyncio.sleep(0)
    return 7


def _wait(pid: int, seconds: float) -> int | None:
    """The child's exit code, or None if it was still running after ``seconds`` (then killed)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return None


def test_a_forked_child_runs_coroutines_on_a_loop_of_its_own() -> None:
    assert run_sync(_seven()) == 7  # the parent's loop thread is running now
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        try:
            code = 0 if run_sync(_seven()) == 7 else 1
        except BaseException:
            code = 2
        os._exit(code)
    assert _wait(pid, 30) == 0  # None: the child hung on the parent's loop
    assert run_sync(_seven()) == 7  # the parent's loop is untouched
