"""The progress display every long command shares: count, rate and ETA; plain lines in logs;
silent until work starts; Ctrl-C says how far the command got and how to continue."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console

from colmeia.cli.progress import Progress, format_eta, format_rate
from colmeia.errors import ConfigurationError
from ctrl_c import sigint_as_in_a_terminal

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _frames(output: str) -> list[str]:
    text = _ANSI.sub("", output)
    return [f for f in re.split(r"[\r\n]", text) if f.strip()]


@pytest.mark.parametrize("width", [80, 100])
def test_the_bar_shows_count_rate_and_eta_within_the_terminal_width(width: int) -> None:
    buf = io.StringIO()
    console = Console(file=buf, width=width, force_terminal=True, color_system=None)
    with Progress("moderating", unit="records", console=console) as bar:
        for done in range(0, 121, 40):
            bar.update(done, 500, info="KEEP_ORIGINAL 80  ANSWER_REVISED 30  DO_NOT_ANSWER 10")
            time.sleep(0.15)
    last = _frames(buf.getvalue())[-1]
    assert len(last) <= width
    assert "120/500" in last
    assert "24%" in last
    assert re.search(r"[\d.,]+ records/s", last)
    assert re.search(r"ETA \d:\d\d:\d\d", last)
    assert last.startswith("moderating")


def test_plain_periodic_lines_when_the_stream_is_not_a_terminal() -> None:
    buf = io.StringIO()
    console = Console(file=buf, width=80)  # a file: not a terminal
    with Progress("ingest", unit="files", console=console, interval=3600) as bar:
        for done in range(101):
            bar.update(done, 100, info="lei.csv")
    lines = buf.getvalue().splitlines()
    # One line when work starts and one at the end, not one per update; no control codes.
    assert len(lines) == 2
    assert lines[0].startswith("ingest: 0/100 files (0%)")
    assert re.fullmatch(
        r"ingest: 100/100 files \(100%\) · [\d.,]+ files/s · ETA 0:00:00 · lei.csv", lines[1]
    )
    assert "\x1b" not in buf.getvalue()


def test_rate_and_eta_formats() -> None:
    assert format_rate(None, "files") == "… files/s"
    assert format_rate(12.34, "files") == "12.3 files/s"
    assert format_rate(0.05, "works") == "3.0 works/min"
    assert format_eta(245) == "ETA 0:04:05"
    assert format_eta(None) == "ETA …"


def test_nothing_is_drawn_before_a_configuration_error(colmeia_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "a.txt").write_text("Art. 1º Texto.", encoding="utf-8")
    code, out, err = colmeia_cli("ingest", str(tmp_path / "a.txt"), "-c", "x", "--chunker", "nope")
    assert code == 2
    assert err.strip().startswith("configuration error: unknown chunker 'nope'")
    assert "ingest:" not in err + out


def test_ctrl_c_says_how_far_it_got_and_how_to_continue(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(4000):
        (docs / f"doc{i:04d}.txt").write_text(f"Documento {i}. Texto de teste número {i}.\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
    env["COLMEIA_HOME"] = str(tmp_path / "home")
    # a line every 0.1 s: the test sees the count move, however fast or loaded the cores are
    # (with the default 10 s, all 4000 files were done before the second line and the
    # interrupt came after the work)
    env["COLMEIA_PROGRESS_INTERVAL"] = "0.1"
    proc = subprocess.Popen(
        [sys.executable, "-m", "colmeia", "ingest", str(docs), "-c", "docs"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=sigint_as_in_a_terminal,
    )
    assert proc.stderr is not None
    first = proc.stderr.readline()  # the first plain progress line: ingestion has started
    assert first.startswith("ingest: 0/4000 files"), first
    # interrupt once some files are done, and not all (a fixed second was not enough on
    # loaded cores)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        done = re.match(r"ingest: (\d+)/4000 files", proc.stderr.readline())
        assert done and int(done.group(1)) < 4000, "all files done before the interrupt"
        if int(done.group(1)) > 0:
            break
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    m = re.search(r"interrupted: (\d+) of 4000 files done — rerun the same command", err)
    assert m, err
    assert 0 < int(m.group(1)) < 4000


def test_the_progress_interval_setting_is_read_and_a_bad_value_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLMEIA_PROGRESS_INTERVAL", "2.5")
    assert Progress("x").interval == 2.5
    monkeypatch.setenv("COLMEIA_PROGRESS_INTERVAL", "depressa")
    with pytest.raises(ConfigurationError, match="COLMEIA_PROGRESS_INTERVAL='depressa'"):
        Progress("x")
