"""`colmeia llm serve` + `colmeia llm check` as a new user runs them, against a real model."""

from __future__ import annotations

import subprocess
import sys

from local_model import REAL_MODEL, LocalModel

pytestmark = REAL_MODEL


def test_llm_check_passes_all_three_checks_against_the_local_server(local_llm: LocalModel) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "colmeia", "llm", "check", "--timeout", "240"],
        env=local_llm.env(COLUMNS="200"),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = {line.split("│")[1].strip(): line for line in proc.stdout.splitlines() if "│" in line}
    for check in ("answers", "tool calls", "JSON Schema output"):
        assert "yes" in rows[check], proc.stdout
