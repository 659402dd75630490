"""The review queue: what the system changed or withheld, human verdicts that are never lost,
and an export the team can open in a spreadsheet."""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from moderation_helpers import SampleRuns, copy_run
from openpyxl import load_workbook

from colmeia.apps.moderation.results import read_results
from colmeia.apps.moderation.review import (
    VerdictLog,
    VerdictRecord,
    agreement,
    filter_items,
    review_items,
    verdicts_path,
    word_diff,
)
from colmeia.errors import ConfigurationError


@pytest.fixture
def results(sample_runs: SampleRuns, tmp_path: Path) -> Path:
    return copy_run(sample_runs.a, tmp_path)


def test_the_queue_holds_revised_and_withheld_items_with_what_a_reviewer_needs(
    results: Path,
) -> None:
    lines = read_results(results)
    items = review_items(lines)
    queue = filter_items(items)
    assert {i.outcome for i in queue} == {"ANSWER_REVISED", "DO_NOT_ANSWER"}
    assert len(queue) == sum(1 for r in lines.values() if r["outcome"] != "KEEP_ORIGINAL")
    revised = next(i for i in queue if i.outcome == "ANSWER_REVISED")
    line = lines[revised.key]
    assert revised.question == line["question"]
    assert revised.original == line["original_answer"]
    assert revised.proposed == line["final_answer"]
    assert revised.scores_original and revised.scores_final
    assert revised.reviews and revised.reason
    withheld = next(i for i in queue if i.outcome == "DO_NOT_ANSWER" and i.proposed)
    rewrites = [
        s
        for s in lines[withheld.key]["trail"]
        if s["role"] == "rewriter" and s["output"] and s["output"]["can_rewrite"]
    ]
    assert withheld.proposed == rewrites[-1]["output"]["answer"]  # what would have been sent


def test_filters_by_outcome_category_across_languages_and_locale(results: Path) -> None:
    items = review_items(read_results(results))
    tools = filter_items(items, outcomes=["revised", "withheld", "kept"], category="Herramientas")
    assert {i.category for i in tools} == {"Ferramentas", "Herramientas"}  # one group
    spanish = filter_items(items, outcomes=["withheld"], locale="es")
    assert spanish and {(i.locale, i.outcome) for i in spanish} == {("es", "DO_NOT_ANSWER")}
    with pytest.raises(ConfigurationError, match="unknown outcome"):
        filter_items(items, outcomes=["approved"])


def test_word_diff_marks_what_was_removed_and_added() -> None:
    ops = word_diff("A conexao é USB.", "A conexão é USB 2.4 GHz.")
    assert ("-", "conexao") in ops and ("+", "conexão") in ops
    assert "".join(t for op, t in ops if op != "-") == "A conexão é USB 2.4 GHz."


def test_verdicts_from_the_command_line_and_an_export_for_the_team(
    results: Path, colmeia_cli: Any, tmp_path: Path
) -> None:
    queue = filter_items(review_items(read_results(results)))
    first, second = queue[0].key, queue[1].key
    code, out, err = colmeia_cli(
        "moderate", "review", str(results), "--accept", first, "--by", "ana", "--note", "ok"
    )
    assert code == 0, err
    assert f"recorded: {first} accept by ana" in out
    code, _, err = colmeia_cli("moderate", "review", str(results), "--edit", second)
    assert code == 2 and "needs the edited answer text" in err
    code, _, err = colmeia_cli(
        "moderate", "review", str(results), "--edit", second, "--text", "=SUM(A1)", "--by", "bo"
    )
    assert code == 0, err
    code, _, err = colmeia_cli("moderate", "review", str(results), "--reject", "nope")
    assert code == 2 and "no item with key 'nope'" in err

    code, out, _ = colmeia_cli("moderate", "review", str(results), "--pending", "--limit", "2")
    assert code == 0
    assert f"{len(queue)} items in the queue ({len(queue) - 2} without a verdict)" in out
    assert f"{first} ·" not in out  # judged items leave the pending queue

    for name in ("review.csv", "review.xlsx"):
        code, out, err = colmeia_cli(
            "moderate", "review", str(results), "--export", str(tmp_path / name)
        )
        assert code == 0, err
        assert f"exported {len(queue)} items" in out
    with open(tmp_path / "review.csv", encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(queue)
    by_key = {r["key"]: r for r in rows}
    assert (by_key[first]["verdict"], by_key[first]["by"], by_key[first]["note"]) == (
        "accept",
        "ana",
        "ok",
    )
    assert by_key[second]["edited_answer"] == "'=SUM(A1)"  # never a live formula
    sheet = load_workbook(tmp_path / "review.xlsx").active
    header = [c.value for c in sheet[1]]
    values = {
        row[0]: dict(zip(header, row, strict=True))
        for row in sheet.iter_rows(min_row=2, values_only=True)
    }
    assert len(values) == len(queue)
    assert values[second]["verdict"] == "edit"
    assert values[second]["edited_answer"] == "=SUM(A1)"  # stored as text, not a formula
    assert sheet.cell(row=2, column=1).font.b is False and sheet.cell(row=1, column=1).font.b


def test_a_verdict_on_an_answer_moderated_again_is_stale(results: Path) -> None:
    items = review_items(read_results(results))
    item = next(i for i in items if i.outcome == "ANSWER_REVISED")
    log = VerdictLog(verdicts_path(results))
    log.append(VerdictRecord.of(item, "accept", by="ana"))
    assert agreement(items, log.latest())["reviewed"] == 1
    # The item is moderated again (say --retry-errors or --overwrite) and gets another answer.
    redone = [dataclasses.replace(i, proposed="Outra resposta.") if i is item else i for i in items]
    counted = agreement(redone, log.latest())
    assert (counted["reviewed"], counted["stale"]) == (0, 1)


def _complete_verdicts(path: Path) -> list[dict[str, Any]]:
    data = path.read_bytes() if path.exists() else b""
    return [json.loads(line) for line in data.split(b"\n")[:-1] if line.strip()]


def test_verdicts_survive_a_kill_of_the_reviewer(results: Path) -> None:
    """Interactive review in a real process, killed with SIGKILL after three verdicts: the
    three are on disk, whole; a fourth after a torn line still lands on a line of its own."""
    verdicts = verdicts_path(results)
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "colmeia", "moderate", "review", str(results), "-i", "--by", "ana"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**env, "COLUMNS": "200"},
    )
    assert proc.stdin is not None and proc.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(
        target=lambda: [lines.put(raw.decode()) for raw in iter(proc.stdout.readline, b"")],
        daemon=True,
    )
    reader.start()
    seen: list[str] = []
    try:
        for answer in ("a", "r", "s", "a"):
            proc.stdin.write(f"{answer}\n".encode())
            proc.stdin.flush()
            if answer == "s":
                continue
            while True:  # wait until the process confirms the verdict (after its fsync)
                line = lines.get(timeout=60)
                if "recorded: " in line:
                    seen.append(line.split("recorded: ", 1)[1].split()[0])
                    break
    finally:
        proc.send_signal(signal.SIGKILL)  # no chance to flush or clean up anything
        proc.wait(timeout=10)
        # the reader ends at the pipe's end of file; closing the pipe under its readline
        # raised in its thread on a busy machine
        reader.join(timeout=10)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream:
                stream.close()
    on_disk = _complete_verdicts(verdicts)
    assert [v["key"] for v in on_disk] == seen and len(seen) == 3
    assert [v["verdict"] for v in on_disk] == ["accept", "reject", "accept"]
    assert all(v["by"] == "ana" and v["at"] for v in on_disk)

    # A kill in the middle of a write leaves a torn last line: it is ignored, and the next
    # verdict starts on a line of its own.
    with open(verdicts, "ab") as fh:
        fh.write(b'{"key": "torn", "verdi')
    log = VerdictLog(verdicts)
    assert [v.key for v in log.read()] == seen
    item = next(i for i in review_items(read_results(results)) if i.key not in seen)
    log.append(VerdictRecord.of(item, "reject", by="bo"))
    assert [v.key for v in log.read()] == [*seen, item.key]


def test_the_queue_piped_to_a_file_keeps_removed_and_added_words_apart(
    results: Path, colmeia_cli: Any
) -> None:
    # Out of a terminal the strike-through is lost: "Olá,oficial" is what a team saw in a file.
    item = next(i for i in filter_items(review_items(read_results(results))) if i.proposed)
    removed = next(t.strip() for op, t in item.diff() if op == "-" and t.strip())
    added = next(t.strip() for op, t in item.diff() if op == "+" and t.strip())
    code, out, err = colmeia_cli("moderate", "review", str(results), "--limit", "50")
    assert code == 0, err
    flat = " ".join(out.split())  # the panel wraps long lines
    assert f"[-{removed}-]" in flat and f"{{+{added}+}}" in flat
