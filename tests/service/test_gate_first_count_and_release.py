"""Two things the restart tests rely on from the test-only pause point (colmeia.service.gate):
an empty ``.at`` file stops the job at its very first count, and a held job goes on promptly
once ``.go`` appears (it polls every 20 ms, so a restart test does not wait seconds)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from colmeia.service.gate import pause_at


def test_an_empty_at_file_stops_the_job_at_its_first_count(tmp_path: Path) -> None:
    (tmp_path / "ingest.at").write_text("\n")
    (tmp_path / "ingest.go").touch()  # released in advance: the call returns at once
    pause_at(tmp_path, "ingest", 0)  # no file ingested yet
    assert (tmp_path / "ingest.reached").read_text() == "0"


def test_a_held_job_goes_on_within_a_fraction_of_a_second_of_go(tmp_path: Path) -> None:
    (tmp_path / "moderation.at").write_text("1")
    worker = threading.Thread(target=pause_at, args=(tmp_path, "moderation", 1))
    worker.start()
    deadline = time.monotonic() + 10
    while not (tmp_path / "moderation.reached").exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.1)  # held, polling for .go
    assert worker.is_alive()
    released = time.monotonic()
    (tmp_path / "moderation.go").touch()
    worker.join(5)
    assert not worker.is_alive()
    assert time.monotonic() - released < 0.5
