"""`colmeia moderate` as a user runs it: a real subprocess, killed with SIGKILL, resumed, reported."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from colmeia.sim.engine import Latency, SimulatedModel
from ctrl_c import sigint_as_in_a_terminal
from shared_data import DATA_DIR

DATA = DATA_DIR / "moderation"


def colmeia(*args: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "colmeia", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=sigint_as_in_a_terminal,  # the test presses Ctrl-C
    )


def complete_lines(path: Path) -> list[bytes]:
    data = path.read_bytes() if path.exists() else b""
    return [line + b"\n" for line in data.split(b"\n")[:-1]]


def wait_for_lines(proc: subprocess.Popen[bytes], out: Path, n: int) -> None:
    deadline = time.monotonic() + 120
    while len(complete_lines(out)) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.02)


def test_killed_and_interrupted_runs_resume_to_exactly_one_line_per_record(
    tmp_path: Path, sim_server: Any
) -> None:
    srv = sim_server(SimulatedModel(schema_mode=True, latency=Latency(fixed_s=0.02), seed=11))
    env = {
        **os.environ,
        "COLMEIA_LLM_BASE_URL": srv.base_url,
        "COLMEIA_LLM_MODEL": "sim",
        "COLMEIA_LLM_MAX_RETRIES": "3",
    }
    items = tmp_path / "sample_items.json"
    items.write_bytes((DATA / "sample_items.json").read_bytes())
    out = tmp_path / "results.jsonl"
    run = ["moderate", "run", str(items), "--out", str(out), "--concurrency", "16"]

    proc = colmeia(*run, env=env)
    wait_for_lines(proc, out, 25)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    killed = complete_lines(out)
    assert 25 <= len(killed) < 200

    # Ctrl-C: what finished is written, and the command says how far it got and what to do.
    resumed = colmeia(*run, "--resume", env=env)
    wait_for_lines(resumed, out, len(killed) + 20)
    resumed.send_signal(signal.SIGINT)
    _, stderr = resumed.communicate(timeout=60)
    assert resumed.returncode == 130, stderr.decode()
    said = " ".join(stderr.decode().split())
    interrupted = complete_lines(out)
    done = re.search(r"interrupted: (\d+) of 200 records done — rerun with --resume", said)
    assert done, said
    assert int(done.group(1)) <= len(interrupted) < 200
    assert "Traceback" not in said
    assert interrupted[: len(killed)] == killed  # work done before the kill was kept as it was
    assert (
        json.loads((tmp_path / "results.manifest.json").read_text(encoding="utf-8"))["runs"][1][
            "status"
        ]
        == "interrupted"
    )

    final = colmeia(*run, "--resume", env=env)
    stdout, stderr = final.communicate(timeout=300)
    assert final.returncode == 0, stderr.decode()
    after = complete_lines(out)
    keys = [json.loads(line)["key"] for line in after]
    assert len(keys) == 200
    assert len(set(keys)) == 200
    assert out.read_bytes().endswith(b"\n")
    assert after[: len(interrupted)] == interrupted
    assert "already done" in stdout.decode()


def test_malformed_input_gives_a_line_per_record_and_exit_1(
    tmp_path: Path, sim_server: Any, colmeia_cli: Any
) -> None:
    """Every record gets a line; ERROR lines make the exit code 1, so a nightly job notices."""
    srv = sim_server(SimulatedModel(schema_mode=True))
    env = {"COLMEIA_LLM_BASE_URL": srv.base_url, "COLMEIA_LLM_MODEL": "sim"}
    items = tmp_path / "malformed.jsonl"
    items.write_bytes((DATA / "malformed_items.jsonl").read_bytes())
    out = tmp_path / "out.jsonl"
    code, stdout, stderr = colmeia_cli("moderate", "run", str(items), "--out", str(out), env=env)
    assert code == 1, stderr
    outcomes = [json.loads(line)["outcome"] for line in complete_lines(out)]
    assert len(outcomes) == 14
    assert outcomes.count("ERROR") == 10  # the valid copy of a broken record is moderated
    assert "ERROR 10" in stdout
    assert "10 invalid input records" in " ".join(stderr.split())
