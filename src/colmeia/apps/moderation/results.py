"""Reading and rewriting a moderation results file (JSONL, one line per record ``key``).

A line counts only when it is complete — valid JSON ending in a newline — so a cut-off last
line left by a killed run is ignored. Rewrites go through a temporary file and ``os.replace``:
the file on disk is always either the old or the new version, never a mix.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

__all__ = ["atomic_write", "complete_lines", "read_results", "scan_results", "sniff"]

log = logging.getLogger(__name__)


def complete_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """Lines that end in a newline; a cut-off last line (the run was killed) is not one."""
    start = 0
    number = 0
    while True:
        end = data.find(b"\n", start)
        if end < 0:
            return
        number += 1
        line = data[start:end]
        start = end + 1
        if line.strip():
            yield number, line


def scan_results(data: bytes, path: Path) -> dict[str, tuple[dict[str, Any], bytes]]:
    out: dict[str, tuple[dict[str, Any], bytes]] = {}
    for number, line in complete_lines(data):
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            try:  # written by the json fallback (escaped surrogates)
                obj = json.loads(line)
            except json.JSONDecodeError:
                log.warning("%s:%d: not a valid result line; ignored", path, number)
                continue
        if not isinstance(obj, dict) or not isinstance(obj.get("key"), str):
            log.warning("%s:%d: result line without a key; ignored", path, number)
            continue
        out.pop(obj["key"], None)  # a repeated key keeps its last line, at its place
        out[obj["key"]] = (obj, line)
    return out


def read_results(path: Path) -> dict[str, dict[str, Any]]:
    """Result lines by key: complete, valid lines only; a repeated key keeps the last."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    return {k: obj for k, (obj, _) in scan_results(data, path).items()}


def _first_record(path: Path) -> object:
    """The first JSON value of a JSONL file or JSON array, or ``None`` if there is none."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(1_000_000)
    except OSError:
        return None
    text = head.decode("utf-8-sig", "replace").lstrip()
    decoder = json.JSONDecoder()
    if text.startswith("["):
        text = text[1:].lstrip()
    try:
        value, _ = decoder.raw_decode(text)
    except json.JSONDecodeError:
        return None
    return value


def sniff(path: Path) -> str:
    """What a file holds, from its first record: ``"results"`` (lines written by a moderation
    run), ``"records"`` (input records: question and answer, no outcome) or ``"unknown"``."""
    first = _first_record(path)
    if not isinstance(first, dict):
        return "unknown"
    if "outcome" in first and "key" in first:
        return "results"
    if "question" in first and "answer" in first:
        return "records"
    return "unknown"


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform can open a directory
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write(path: Path, lines: Iterable[bytes]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as fh:
        fh.writelines(lines)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)
