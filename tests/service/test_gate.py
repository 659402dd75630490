"""The test-only pause point the restart tests kill a job at (colmeia.service.gate)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from colmeia.service.gate import pause_at


def test_a_job_stops_at_the_count_it_was_told_and_goes_on_when_released(tmp_path: Path) -> None:
    (tmp_path / "ingest.at").write_text("3")
    pause_at(tmp_path, "ingest", 2)  # before the point: no pause
    assert not (tmp_path / "ingest.reached").exists()
    worker = threading.Thread(target=pause_at, args=(tmp_path, "ingest", 3))
    worker.start()
    time.sleep(0.3)
    assert worker.is_alive()  # held at the point
    assert (tmp_path / "ingest.reached").read_text() == "3"
    (tmp_path / "ingest.go").touch()
    worker.join(2)
    assert not worker.is_alive()
    pause_at(tmp_path, "ingest", 4)  # once per process: no second pause


def test_without_a_gate_nothing_pauses(tmp_path: Path) -> None:
    pause_at(None, "ingest", 10**6)
    pause_at(tmp_path, "ingest", 10**6)  # a folder without an .at file
    assert list(tmp_path.iterdir()) == []
