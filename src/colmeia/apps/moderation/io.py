"""Reading moderation records from JSON arrays, JSONL files and folders, losing nothing.

Every record read becomes one :class:`LoadedRecord`: either a valid item or an error naming
the record (its id, or ``file:line`` / ``file[index]``) and the problem. A bad record never
stops the rest: missing fields, wrong types, NUL bytes, lone surrogates, huge strings,
truncated or non-JSON lines all become per-record errors. When records share an id, the first
valid one owns it (an invalid record with that id before it does not take it away); the others
are errors under keys of their own, so every input record has exactly one result line.
"""

from __future__ import annotations

import codecs
import json
import logging
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from colmeia.apps.moderation.records import ModerationItem, parse_item
from colmeia.errors import InputError, RecordError

__all__ = [
    "MAX_LINE_BYTES",
    "RECORD_SUFFIXES",
    "LoadedRecord",
    "RecordStream",
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


# How much of a file is read at a time: a record is decoded as soon as it is whole, so memory
# holds one chunk and the record being read, never the file.
_CHUNK = 1 << 16


def _lines(fh: IO[bytes]) -> Iterator[tuple[int, bytes | None, int]]:
    """``(number, line, length)`` per line of ``fh``, read one at a time; a line over
    :data:`MAX_LINE_BYTES` is read past (never held) and comes as ``None`` with its length."""
    number = 0
    while True:
        line = fh.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        number += 1
        if line.endswith(b"\n"):
            yield number, line[:-1], len(line) - 1
            continue
        if len(line) <= MAX_LINE_BYTES:  # the last line, without a newline
            yield number, line, len(line)
            return
        length = len(line)
        while True:  # the rest of an over-long line, a chunk at a time
            rest = fh.readline(_CHUNK)
            if not rest:
                break
            if rest.endswith(b"\n"):
                length += len(rest) - 1
                break
            length += len(rest)
        yield number, None, length


def _jsonl(path: Path, fh: IO[bytes]) -> Iterator[tuple[str, object | None, str | None]]:
    """(source, decoded value, error) per non-blank line."""
    for number, line, length in _lines(fh):
        source = f"{path}:{number}"
        if line is None:
            yield source, None, f"{source}: line of {length:,} bytes is over the 1 MB limit"
            continue
        if not line.strip():
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


class _ArrayText:
    """The text of a JSON array file, decoded a chunk at a time; remembers where the text it
    dropped ended (line and column) so that errors name the place in the whole file."""

    def __init__(self, fh: IO[bytes]) -> None:
        self._fh = fh
        self._decoder = codecs.getincrementaldecoder("utf-8-sig")()
        self.text = ""
        self.eof = False
        self.bytes_read = 0
        self.line = 1  # of text[0] in the file
        self.column = 1

    def more(self, at_least: int = _CHUNK) -> None:
        """Append at least ``at_least`` more bytes' worth (or the rest) to :attr:`text`.

        Raises :class:`UnicodeDecodeError` with ``start`` counted from the file's start."""
        chunk = self._fh.read(max(at_least, _CHUNK))
        try:
            self.text += self._decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError as exc:
            exc.start += self.bytes_read
            raise
        self.bytes_read += len(chunk)
        self.eof = not chunk

    def drop(self, upto: int) -> None:
        """Forget ``text[:upto]`` (already decoded records)."""
        gone = self.text[:upto]
        newlines = gone.count("\n")
        if newlines:
            self.line += newlines
            self.column = upto - gone.rindex("\n")
        else:
            self.column += upto
        self.text = self.text[upto:]

    def where(self, exc: json.JSONDecodeError) -> tuple[int, int]:
        """Line and column in the file of a decode error in :attr:`text`."""
        if exc.lineno == 1:
            return self.line, self.column + exc.colno - 1
        return self.line + exc.lineno - 1, exc.colno


def _array(path: Path, fh: IO[bytes]) -> Iterator[tuple[str, object | None, str | None]]:
    """Elements of a JSON array, decoded one by one as the file is read, so a broken element
    keeps the ones before it and memory holds one element (up to :data:`MAX_LINE_BYTES`)."""
    buf = _ArrayText(fh)
    index = 0
    try:
        while "[" not in buf.text and not buf.eof:
            buf.more()
        pos = buf.text.index("[") + 1
        while True:
            while True:
                while pos < len(buf.text) and buf.text[pos] in " \t\r\n,":
                    pos += 1
                if pos < len(buf.text) or buf.eof:
                    break
                buf.drop(pos)
                pos = 0
                buf.more()
            if pos >= len(buf.text):
                yield (
                    f"{path}[{index}]",
                    None,
                    f"{path}: the JSON array is cut short after {index} records "
                    "(missing ']'); the file looks truncated",
                )
                return
            if buf.text[pos] == "]":
                return
            while True:
                try:
                    value, end = _DECODER.raw_decode(buf.text, pos)
                    if end < len(buf.text) or buf.eof:
                        break  # (a value ending with the text read may be a number cut short)
                except json.JSONDecodeError as exc:
                    # the element may only be cut by the chunk: read on while the file lasts
                    # and the element is under the limit
                    too_big = len(buf.text) - pos > MAX_LINE_BYTES
                    if buf.eof or too_big:
                        line, column = buf.where(exc)
                        problem = (
                            "a record over the 1 MB limit"
                            if too_big and not buf.eof
                            else f"not valid JSON ({exc.msg} at line {line} column {column})"
                        )
                        yield (
                            f"{path}[{index}]",
                            None,
                            f"{path}[{index}]: {problem}; the records after it in this file "
                            "could not be read",
                        )
                        return
                buf.drop(pos)
                pos = 0
                buf.more(len(buf.text))  # doubling: each retry reads as much again
            yield f"{path}[{index}]", value, None
            index += 1
            pos = end
            if pos > _CHUNK:  # forget what was decoded, a chunk's worth at a time
                buf.drop(pos)
                pos = 0
    except UnicodeDecodeError as exc:
        yield f"{path}[{index}]", None, f"{path}: not valid UTF-8 at byte {exc.start}"


def _single_object(fh: IO[bytes]) -> bool:
    """A file whose first record starts with ``{`` and no other line does: one (maybe
    pretty-printed) object, read whole if it is small enough to be one record."""
    fh.seek(0)
    previous = b""
    while chunk := fh.read(_CHUNK):
        if b"\n{" in previous[-1:] + chunk:
            return False
        previous = chunk
    return True


def read_file_records(path: Path) -> Iterator[tuple[str, object | None, str | None]]:
    """Decode one file: ``(source, value, error)`` per record, never raising on bad content.

    The file is read as the records are taken, a chunk at a time: however big it is, memory
    holds one record."""
    try:
        fh = path.open("rb")
    except OSError as exc:
        yield str(path), None, f"{path}: cannot read the file ({exc.strerror})"
        return
    with fh:
        head = fh.read(_CHUNK).lstrip()[:3].lstrip(b"\xef\xbb\xbf").lstrip()
        fh.seek(0)
        if head.startswith(b"["):
            yield from _array(path, fh)
            return
        if path.suffix.lower() == ".json" and head.startswith(b"{") and _single_object(fh):
            # One object in a .json file (possibly pretty-printed over many lines).
            size = path.stat().st_size
            if size > MAX_LINE_BYTES:
                yield (
                    str(path),
                    None,
                    f"{path}: one record of {size:,} bytes is over the 1 MB limit",
                )
                return
            fh.seek(0)
            try:
                yield str(path), json.loads(fh.read().decode("utf-8-sig")), None
                return
            except (UnicodeDecodeError, json.JSONDecodeError):
                pass  # fall through: read it line by line and report each bad line
        fh.seek(0)
        yield from _jsonl(path, fh)


def _key_of(
    rid: int | str | None, source: str, index: int, owners: dict[str, tuple[int, str, bool]]
) -> str:
    """A record's key: its id when it owns the id, ``<id>@<source>`` for a repeat, its source
    when it has no usable id."""
    if rid is None:
        return source
    return str(rid) if owners[str(rid)][0] == index else f"{rid}@{source}"


class RecordStream:
    """The records of files and folders, read from disk each time they are iterated.

    Holds per record only its key (ids and sources): a batch of any size moderated from a
    stream holds one record's text at a time, not the batch. The first pass (on the first
    ``len`` or iteration) decides who owns each id — the first valid record with it, else the
    first record with it — so repeats get the same keys and errors as :func:`load_records`.
    The files must not change between passes; if their records do, iteration raises
    :class:`~colmeia.errors.InputError`.
    """

    def __init__(self, inputs: Sequence[str | Path] | Iterable[Path]) -> None:
        self.paths = list(iter_files(list(inputs)))
        self._keys: list[str] | None = None
        # ids seen more than once: (index of the owner, its source, whether it is valid)
        self._repeated: dict[str, tuple[int, str, bool]] = {}

    def _decoded(self) -> Iterator[tuple[str, object | None, str | None]]:
        for path in self.paths:
            yield from read_file_records(path)

    def _index(self) -> list[str]:
        if self._keys is not None:
            return self._keys
        seen: list[tuple[int | str | None, str]] = []
        owners: dict[str, tuple[int, str, bool]] = {}
        counts: dict[str, int] = {}
        bad = 0
        for index, (source, value, error) in enumerate(self._decoded()):
            rid = _raw_id(value)
            if error is None:
                _, error, rid = _record(value, source)
            ok = error is None
            bad += not ok
            seen.append((rid, source))
            if rid is None:
                continue
            counts[str(rid)] = counts.get(str(rid), 0) + 1
            current = owners.get(str(rid))
            # A broken export followed by a corrected copy of the same record must not lose
            # the corrected one.
            if current is None or (not current[2] and ok):
                owners[str(rid)] = (index, source, ok)
        keys: list[str] = []
        used: set[str] = set()
        for index, (rid, source) in enumerate(seen):
            key = _key_of(rid, source, index, owners)
            while key in used:  # only when a source string collides with an id
                key += "'"
            used.add(key)
            keys.append(key)
        self._repeated = {k: v for k, v in owners.items() if counts[k] > 1}
        if bad:
            log.warning(
                "%d of %d input records cannot be moderated (see their ERROR results)",
                bad,
                len(keys),
            )
        self._keys = keys
        return keys

    def keys(self) -> list[str]:
        """Every record's key, in input order."""
        return self._index()

    def __len__(self) -> int:
        return len(self._index())

    def __iter__(self) -> Iterator[LoadedRecord]:
        keys = self._index()
        index = -1
        for index, (source, value, error) in enumerate(self._decoded()):
            if index >= len(keys):
                break
            rid = _raw_id(value)
            item = None
            if error is None:
                item, error, rid = _record(value, source)
            rec = LoadedRecord(key=keys[index], source=source, item=item, error=error, raw_id=rid)
            first = self._repeated.get(str(rid)) if rid is not None else None
            if first is not None and first[0] != index:
                _, first_source, first_ok = first
                if rec.ok:
                    rec.item = None
                    rec.error = (
                        f"record {rid} ({source}): duplicate id {rid!r}, first seen at "
                        f"{first_source}; give every record its own id"
                    )
                elif first_ok:
                    rec.error = (
                        f"{rec.error} (the valid record with this id, {first_source}, is used)"
                    )
            yield rec
        if index + 1 != len(keys):
            raise InputError(
                f"the input files changed while they were being read ({len(keys)} records, "
                f"then {index + 1}); leave them unchanged during a run"
            )


def load_records(inputs: Sequence[str | Path] | Iterable[Path]) -> list[LoadedRecord]:
    """Read every record from files and folders; bad and repeated records become errors.

    Holds them all: a batch run takes a :class:`RecordStream` instead."""
    return list(RecordStream(inputs))
