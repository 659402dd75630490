"""A reader process that cannot start says so in one line, never with a Python traceback.

On Ctrl-C during `colmeia ingest` the fork server of the memory-bounded reader was starting a
child whose queue lock the exiting parent had already removed; the child's traceback reached the
person's terminal (tests/cli/test_progress.py caught it under load). Here a child that fails
while starting is made on purpose: an argument whose unpickling raises.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

SCRIPT = """
import multiprocessing, operator, sys

class FailsInTheChild:
    def __reduce__(self):
        return (operator.truediv, (1, 0))

if __name__ == "__main__":
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(sys.argv[1:])
    child = context.Process(target=print, args=(FailsInTheChild(),))
    child.start()
    child.join()
    print(child.exitcode)
"""


def _start_failing_child(*preload: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, *preload],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def test_a_child_that_cannot_start_says_so_in_one_line() -> None:
    run = _start_failing_child("colmeia.rag.reader_child")
    assert run.stdout.strip() == "1"  # the child failed, as the parent sees it
    assert "Traceback" not in run.stderr
    assert run.stderr.strip() == (
        "colmeia: a file reader process stopped (ZeroDivisionError: division by zero)"
    )


@pytest.mark.parametrize("preload", [(), ("colmeia.rag.pipeline",)])
def test_without_it_the_fork_server_prints_the_traceback(preload: tuple[str, ...]) -> None:
    # What the person saw before: why colmeia.rag.bounded preloads reader_child first.
    assert "Traceback" in _start_failing_child(*preload).stderr


def test_the_bounded_reader_preloads_it_first() -> None:
    from colmeia.rag.bounded import _PRELOAD

    assert _PRELOAD[0] == "colmeia.rag.reader_child"
