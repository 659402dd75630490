"""Reading moderation records from JSON arrays, JSONL files and folders, losing nothing.

Every record read becomes one :class:`LoadedRecord`: either a valid item or an error naming
the record (its id, or ``file:line`` / ``file[index]``) and the problem. A bad record never
stops the rest: missing fields, wrong types, NUL bytes, lone surrogates, huge strings,
truncated or non-JSON lines all become per-record errors. When records share an id, the first
valid one owns it (an invalid record with that id before it does not take it away); the others
are errors under keys of their own, so every input record has exactly one result line.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from colmeia.apps.moderation.records import ModerationItem, parse_item
from colmeia.errors import InputError, RecordError

__all__ = [
    "MAX_LINE_BYTES",
    "RECORD_SUFFIXES",
    "LoadedRecord",
    "iter_files",
    "load_records",
    "read_file_records",
]

log = logging.getLogger(__name__)

RECORD_SUFFIXES = (".json", ".jsonl", ".ndjson")
# A line this long is not a record anyone meant to send; refuse it before parsing.
MAX_LINE_BYTES = 1_000_000

_DECODER = json.JSONDecoder()


@dataclass(slots=True)
class LoadedRecord:
    """One input record: a valid item, or the reason it cannot be moderated.

    ``key`` is unique within a load and stable between runs over the same inputs: the id for
    the first record with that id, ``<id>@<source>`` for a repeat, ``<source>`` when there is
    no usable id.
    """

    key: str
    source: str
    item: ModerationItem | None
    error: str | None = None
    raw_id: int | str | None = None

    @property
    def ok(self) -> bool:
        return self.item is not None and self.error is None


def iter_files(inputs: Sequence[str | Path]) -> Iterator[Path]:
    """Files to read: each file as given; folders searched recursively for JSON/JSONL files."""
    for given in inputs:
        path = Path(given)
        if path.is_dir():
            found = sorted(
                p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in RECORD_SUFFIXES
            )
            if not found:
                log.warning("%s: folder has no .json/.jsonl/.ndjson files", path)
            yield from found
        elif path.is_file():
            yield path
        else:
            raise InputError(f"{path}: no such file or folder; check the path and try again")


def _raw_id(raw: object) -> int | str | None:
    if isinstance(raw, dict):
        v = raw.get("id")
        if isinstance(v, int | str) and not isinstance(v, bool) and str(v).strip():
            return v
    return None


def _record(raw: object, source: str) -> tuple[ModerationItem | None, str | None, int | str | None]:
    rid = _raw_id(raw)
    where = f"record {rid} ({source})" if rid is not None else source
    try:
        return parse_item(raw, where), None, rid
    except RecordError as exc:
        return None, str(exc), rid


_ID_HINT = re.compile(r'"id"\s*:\s*("(?:[^"\\]|\\.){1,200}"|-?\d{1,40})')


def _json_problem(text: str, exc: json.JSONDecodeError) -> str:
    body = text.strip()
    if not body.startswith(("{", "[")):
        return (
            f"not JSON (a record must be one JSON object per line; {exc.msg} at column {exc.colno})"
        )
    hint = _ID_HINT.search(body)
    named = f" (looks like record {hint.group(1)})" if hint else ""
    if not body.endswith(("}", "]")):
        return f"truncated JSON: the line ends before the record does{named}; re-export it"
    return f"not valid JSON ({exc.msg} at column {exc.colno}){named}"


def _jsonl(path: Path, data: bytes) -> Iterator[tuple[str, object | None, str | None]]:
    """(source, decoded value, error) per non-blank line."""
    for number, line in enumerate(data.split(b"\n"), start=1):
        source = f"{path}:{number}"
        if not line.strip():
            continue
        if len(line) > MAX_LINE_BYTES:
            yield source, None, f"{source}: line of {len(line):,} bytes is over the 1 MB limit"
            continue
        try:
            text = line.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            yield source, None, f"{source}: not valid UTF-8 at byte {exc.start}; re-export as UTF-8"
            continue
        try:
            yield source, json.loads(text), None
        except json.JSONDecodeError as exc:
            yield source, None, f"{source}: {_json_problem(text, exc)}"


def _array(path: Path, text: str) -> Iterator[tuple[str, object | None, str | None]]:
    """Elements of a JSON array, decoded one by one so a broken element keeps the ones before."""
    pos = text.index("[") + 1
    index = 0
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text):
            yield (
                f"{path}[{index}]",
                None,
                f"{path}: the JSON array is cut short after {index} records "
                "(missing ']'); the file looks truncated",
            )
            return
        if text[pos] == "]":
            return
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            yield (
                f"{path}[{index}]",
                None,
                f"{path}[{index}]: not valid JSON ({exc.msg} at line {exc.lineno} column "
                f"{exc.colno}); the records after it in this file could not be read",
            )
            return
        yield f"{path}[{index}]", value, None
        index += 1
        pos = end


def read_file_records(path: Path) -> Iterator[tuple[str, object | None, str | None]]:
    """Decode one file: ``(source, value, error)`` per record, never raising on bad content."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        yield str(path), None, f"{path}: cannot read the file ({exc.strerror})"
        return
    head = data.lstrip()[:3].lstrip(b"\xef\xbb\xbf").lstrip()
    if head.startswith(b"["):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            yield str(path), None, f"{path}: not valid UTF-8 at byte {exc.start}"
            return
        yield from _array(path, text)
        return
    if path.suffix.lower() == ".json" and head.startswith(b"{") and data.count(b"\n{") == 0:
        # One object in a .json file (possibly pretty-printed over many lines).
        try:
            yield str(path), json.loads(data.decode("utf-8-sig")), None
            return
        except (UnicodeDecodeError, json.JSONDecodeError):
            pass  # fall through: read it line by line and report each bad line
    yield from _jsonl(path, data)


def load_records(inputs: Sequence[str | Path] | Iterable[Path]) -> list[LoadedRecord]:
    """Read every record from files and folders; bad and repeated records become errors."""
    paths = list(iter_files(list(inputs)))
    rows: list[LoadedRecord] = []
    for path in paths:
        for source, value, error in read_file_records(path):
            rid = _raw_id(value)
            item = None
            if error is None:
                item, error, rid = _record(value, source)
            rows.append(LoadedRecord(key="", source=source, item=item, error=error, raw_id=rid))
    # Who owns an id: the first valid record with it, else the first record with it. A broken
    # export followed by a corrected copy of the same record must not lose the corrected one.
    owner: dict[str, LoadedRecord] = {}
    for rec in rows:
        if rec.raw_id is None:
            continue
        current = owner.get(str(rec.raw_id))
        if current is None or (not current.ok and rec.ok):
            owner[str(rec.raw_id)] = rec
    used_keys: set[str] = set()
    for rec in rows:
        rid = rec.raw_id
        first = owner.get(str(rid)) if rid is not None else None
        if first is None:
            key = rec.source
        elif first is rec:
            key = str(rid)
        else:
            key = f"{rid}@{rec.source}"
            if rec.ok:
                rec.item = None
                rec.error = (
                    f"record {rid} ({rec.source}): duplicate id {rid!r}, first seen at "
                    f"{first.source}; give every record its own id"
                )
            elif first.ok:
                rec.error = f"{rec.error} (the valid record with this id, {first.source}, is used)"
        while key in used_keys:  # only when a source string collides with an id
            key += "'"
        used_keys.add(key)
        rec.key = key
    bad = sum(1 for r in rows if not r.ok)
    if bad:
        log.warning(
            "%d of %d input records cannot be moderated (see their ERROR results)", bad, len(rows)
        )
    return rows
