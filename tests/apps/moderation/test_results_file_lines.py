"""The moderation results file line by line: only complete lines count (numbered as the file
numbers them, blank ones skipped), a bad or keyless line is skipped with a warning naming file
and line, a repeated key keeps its last line in the last place, lines the JSON fallback wrote
are read back; what a file holds is told from its first record; a rewrite replaces the file
whole and leaves no temporary file."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from colmeia.apps.moderation.results import (
    atomic_write,
    complete_lines,
    read_results,
    scan_results,
    sniff,
)


def test_complete_lines_are_numbered_as_in_the_file_and_a_cut_off_one_is_left_out() -> None:
    data = b'{"a": 1}\n\n   \n{"b": 2}\n{"c": 3'
    assert list(complete_lines(data)) == [(1, b'{"a": 1}'), (4, b'{"b": 2}')]
    assert list(complete_lines(b"")) == []
    assert list(complete_lines(b"\n")) == []


def test_bad_and_keyless_lines_are_skipped_with_a_warning_naming_file_and_line(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    path = tmp_path / "results.jsonl"
    data = (
        b'{"key": "k1", "outcome": "answer"}\n'
        b"not json\n"
        b'{"outcome": "answer"}\n'
        b'["key", "k2"]\n'
        b'{"key": 7}\n'
    )
    with caplog.at_level(logging.WARNING, logger="colmeia.apps.moderation.results"):
        found = scan_results(data, path)
    assert list(found) == ["k1"]
    assert found["k1"] == (
        {"key": "k1", "outcome": "answer"},
        b'{"key": "k1", "outcome": "answer"}',
    )
    assert [r.getMessage() for r in caplog.records] == [
        f"{path}:2: not a valid result line; ignored",
        f"{path}:3: result line without a key; ignored",
        f"{path}:4: result line without a key; ignored",
        f"{path}:5: result line without a key; ignored",
    ]


def test_a_repeated_key_keeps_its_last_line_at_the_last_place() -> None:
    data = b'{"key": "a", "n": 1}\n{"key": "b", "n": 2}\n{"key": "a", "n": 3}\n'
    found = scan_results(data, Path("r.jsonl"))
    assert [(key, obj["n"]) for key, (obj, _) in found.items()] == [("b", 2), ("a", 3)]


def test_a_line_with_an_escaped_lone_surrogate_is_read_by_the_fallback(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_bytes(b'{"key": "k", "answer": "\\ud800 x"}\n')
    assert read_results(path) == {"k": {"key": "k", "answer": "\ud800 x"}}


def test_reading_a_missing_file_gives_no_results(tmp_path: Path) -> None:
    assert read_results(tmp_path / "none.jsonl") == {}


@pytest.mark.parametrize(
    ("content", "kind"),
    [
        (b'{"key": "k", "outcome": "answer"}\n', "results"),
        (b'\xef\xbb\xbf  [ {"question": "q", "answer": "a"}, {"x": 1} ]', "records"),
        (b'{"question": "q", "answer": "a", "key": "k"}\n', "records"),
        (b'{"question": "caf\xe9?", "answer": "a"}\n', "records"),  # Latin-1 bytes: still read
        (b'{"outcome": "answer"}\n', "unknown"),
        (b'{"question": "q"}\n', "unknown"),
        (b'{"key": "k"}\n', "unknown"),
        (b"[1, 2]", "unknown"),
        (b"not json at all", "unknown"),
        (b"", "unknown"),
    ],
)
def test_what_a_file_holds_is_told_from_its_first_record(
    tmp_path: Path, content: bytes, kind: str
) -> None:
    path = tmp_path / "file.jsonl"
    path.write_bytes(content)
    assert sniff(path) == kind


def test_a_missing_file_holds_nothing_known(tmp_path: Path) -> None:
    assert sniff(tmp_path / "missing.jsonl") == "unknown"


def test_a_rewrite_replaces_the_file_whole_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_bytes(b"old line\n")
    atomic_write(path, iter([b'{"key": "a"}\n', b'{"key": "b"}\n']))
    assert path.read_bytes() == b'{"key": "a"}\n{"key": "b"}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.jsonl"]
