"""The line a reader process that cannot start leaves on the terminal, read in this process.

tests/rag/test_reader_child.py sees it through a real fork server (a subprocess, where mutation
testing cannot follow); here the hook itself is called, as the fork server calls it.
"""

from __future__ import annotations

import pytest

from colmeia.rag.reader_child import quiet_excepthook


def test_the_line_names_the_error_and_its_message(capsys: pytest.CaptureFixture[str]) -> None:
    try:
        raise ConnectionResetError("the parent's queue lock is gone")
    except ConnectionResetError as error:
        quiet_excepthook(ConnectionResetError, error, error.__traceback__)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "colmeia: a file reader process stopped "
        "(ConnectionResetError: the parent's queue lock is gone)\n"
    )
