"""Ctrl-C in child processes, however the test run itself was started.

A shell starts background jobs with SIGINT ignored, children inherit that, and Python then never
installs its KeyboardInterrupt handler: a test that presses Ctrl-C on a command would see it run
to the end as if nothing happened (seen when `.ci/run` was started with `&`). Pass
``preexec_fn=sigint_as_in_a_terminal`` to ``subprocess.Popen``.
"""

from __future__ import annotations

import signal


def sigint_as_in_a_terminal() -> None:
    """Runs in the child before it starts: SIGINT back to its default, as in a terminal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
