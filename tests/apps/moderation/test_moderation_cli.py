"""`colmeia moderate` as a user runs it: a real subprocess, killed with SIGKILL, resumed, reported."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from colmeia.sim.engine import Latency, SimulatedModel
from shared_data import DATA_DIR

DATA = DATA_DIR / "moderation"


def colmeia(*args: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "colmeia", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def complete_lines(path: Path) -> list[bytes]:
    data = path.read_bytes() if path.exists() else b""
    return [line + b"\n" for line in data.split(b"\n")[:-1]]


def test_killed_run_resumes_to_exactly_one_line_per_record_and_reports(
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
    deadline = time.monotonic() + 120
    while len(complete_lines(out)) < 25:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    before = complete_lines(out)
    assert 25 <= len(before) < 200

    resumed = colmeia(*run, "--resume", env=env)
    stdout, stderr = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, stderr.decode()
    after = complete_lines(out)
    keys = [json.loads(line)["key"] for line in after]
    assert len(keys) == 200
    assert len(set(keys)) == 200
    assert out.read_bytes().endswith(b"\n")
    assert after[: len(before)] == before  # work done before the kill was kept as it was
    assert "already done" in stdout.decode()

    again = colmeia(*run, env=env)  # no --resume: refuses to touch the results
    _, err = again.communicate(timeout=60)
    assert again.returncode == 2
    assert "--resume" in err.decode()

    report_dir = tmp_path / "report"
    rep = colmeia(
        "moderate", "report", str(out), "--gold", str(items), "--out", str(report_dir), env=env
    )
    stdout, stderr = rep.communicate(timeout=120)
    assert rep.returncode == 0, stderr.decode()
    assert str(report_dir / "report.html") in stdout.decode().replace("\n", "")
    page = (report_dir / "report.html").read_text(encoding="utf-8")
    pngs = sorted(p.name for p in report_dir.glob("*.png"))
    assert {"confusion.png", "outcomes.png", "score_change.png"} <= set(pngs)
    for name in pngs:
        assert f'src="{name}"' in page
        assert (report_dir / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = json.loads((report_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["items"]["evaluated"] + summary["items"]["not_evaluated"] == 200
    assert (
        sum(map(sum, summary["first_review"]["confusion_matrix"])) == summary["items"]["evaluated"]
    )
    assert {"accuracy", "precision", "recall", "f1"} <= summary["first_review"].keys()
    assert {"locale", "intent", "category"} == summary["accuracy_by"].keys()


def test_malformed_input_exits_zero_with_a_line_per_record(tmp_path: Path, sim_server: Any) -> None:
    srv = sim_server(SimulatedModel(schema_mode=True))
    env = {**os.environ, "COLMEIA_LLM_BASE_URL": srv.base_url, "COLMEIA_LLM_MODEL": "sim"}
    items = tmp_path / "malformed.jsonl"
    items.write_bytes((DATA / "malformed_items.jsonl").read_bytes())
    out = tmp_path / "out.jsonl"
    proc = colmeia("moderate", "run", str(items), "--out", str(out), env=env)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr.decode()
    outcomes = [json.loads(line)["outcome"] for line in complete_lines(out)]
    assert len(outcomes) == 14
    assert outcomes.count("ERROR") == 11
    assert "ERROR 11" in stdout.decode()
