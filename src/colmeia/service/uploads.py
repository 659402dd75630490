"""Uploaded files: safe names, allowed types, a size cap per file, nothing half-written.

A file is streamed to a hidden temporary name (``.NAME.part``) in a hidden staging folder of the
upload (``.incoming-ID``) and the upload's files are moved into place only when all of them are
complete, so a job never sees a partial upload; :func:`sweep_interrupted` removes what a killed
process left behind at the next start-up. Type checks look at the name's ending and, for binary
formats, at the first bytes. Files read into memory instead (a registry import) get the same
name, count and size checks.
"""

from __future__ import annotations

import asyncio
import csv
import io
import logging
import os
import re
import shutil
import unicodedata
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TextIO

from fastapi import HTTPException, UploadFile

if TYPE_CHECKING:
    from colmeia.service.files import FileStorage

__all__ = ["check_csv_rows", "read_uploads", "safe_name", "save_uploads", "sweep_interrupted"]

log = logging.getLogger(__name__)

_UNSAFE = re.compile(r"[^\w.\- ()]+")
_MAGIC = {".pdf": (b"%PDF",), ".docx": (b"PK\x03\x04",)}
_CHUNK = 1 << 20


def safe_name(filename: str | None) -> str:
    """The file's own name, reduced to letters, digits and ``._- ()`` (or a 422)."""
    base = re.split(r"[\\/]", filename or "")[-1]
    base = unicodedata.normalize("NFC", base)
    base = _UNSAFE.sub("_", base).strip(" .")[:150]
    if not base or base.startswith("."):
        raise HTTPException(422, f"unusable file name {filename!r}")
    return base


async def save_uploads(
    files: Sequence[UploadFile],
    folder: Path,
    *,
    allowed: Sequence[str],
    max_mb: float,
    max_files: int,
    storage: FileStorage | None = None,
    max_csv_rows: int | None = None,
) -> list[str]:
    """Write ``files`` into ``folder``; their names (later ones win on a repeated name).
    With a shared ``storage`` (object storage) the complete files are published to it too, so
    a job run by another replica finds them. A CSV file of more than ``max_csv_rows`` rows is
    refused (413 naming the file and the limit) before anything is moved into place: rows are
    counted from disk, a row at a time."""
    _check_count(files, max_files)
    limit = int(max_mb * 1024 * 1024)
    checked: list[tuple[UploadFile, str]] = []
    for upload in files:
        name = safe_name(upload.filename)
        suffix = Path(name).suffix.lower()
        if suffix not in allowed:
            raise HTTPException(
                415,
                f"{name}: files of type {suffix or '(none)'} are not accepted; accepted: "
                f"{', '.join(allowed)}",
            )
        checked.append((upload, name))
    staging = folder / f".incoming-{uuid.uuid4().hex}"
    saved: list[str] = []
    try:
        for upload, name in checked:
            await asyncio.to_thread(_write, upload.file, staging, name, limit, max_mb)
            if max_csv_rows is not None and name.lower().endswith(".csv"):
                await asyncio.to_thread(check_csv_rows, staging / name, name, max_csv_rows)
            saved.append(name)
        for name in dict.fromkeys(saved):
            os.replace(staging / name, folder / name)
    finally:
        await asyncio.to_thread(shutil.rmtree, staging, True)
    names = list(dict.fromkeys(saved))
    if storage is not None:
        await storage.publish([folder / name for name in names])
    return names


def sweep_interrupted(root: Path) -> int:
    """Remove the staging folders and ``.part`` files under ``root`` that an interrupted upload
    left (a process killed mid-upload); the number removed. Run at start-up, before jobs."""
    removed = 0
    if not root.is_dir():
        return 0
    for path in list(root.rglob(".incoming-*")) + list(root.rglob(".*.part")):
        if not path.exists():
            continue
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        removed += 1
    if removed:
        log.warning("removed %d interrupted upload(s) left by a stopped process", removed)
    return removed


async def read_uploads(
    files: Sequence[UploadFile],
    *,
    max_mb: float,
    max_files: int,
    max_csv_rows: int | None = None,
) -> list[tuple[str, bytes]]:
    """``files`` as ``(safe name, content)``, read into memory with :func:`save_uploads`'s
    count, size and row checks (for small files a request handles at once)."""
    _check_count(files, max_files)
    limit = int(max_mb * 1024 * 1024)
    read: list[tuple[str, bytes]] = []
    for upload in files:
        name = safe_name(upload.filename)
        data = await asyncio.to_thread(_read, upload.file, name, limit, max_mb)
        if max_csv_rows is not None and name.lower().endswith(".csv"):
            rows = io.StringIO(data.decode("utf-8-sig", errors="replace"), newline="")
            _check_rows(rows, name, max_csv_rows)
        read.append((name, data))
    return read


def check_csv_rows(path: Path, name: str, limit: int) -> None:
    """413 when the CSV file at ``path`` has more than ``limit`` rows (header excluded)."""
    with path.open(encoding="utf-8-sig", errors="replace", newline="") as fh:
        _check_rows(fh, name, limit)


def _check_rows(text: TextIO, name: str, limit: int) -> None:
    try:
        for count, _ in enumerate(csv.reader(text)):
            if count > limit:  # row 0 is the header
                raise HTTPException(
                    413,
                    f"{name} has more than {limit:,} rows; the limit is {limit:,} "
                    "(COLMEIA_SERVICE_MAX_CSV_ROWS): split it into several files",
                )
    except csv.Error:
        return  # a broken CSV is reported by its reader, naming the line


def _check_count(files: Sequence[UploadFile], max_files: int) -> None:
    if not files:
        raise HTTPException(422, "no file was sent: use the multipart field `files`")
    if len(files) > max_files:
        raise HTTPException(
            413, f"{len(files)} files in one upload; the limit is {max_files} (send several)"
        )


def _chunks(source: BinaryIO, name: str, limit: int, max_mb: float) -> Iterator[bytes]:
    """``source`` a chunk at a time, with a 413 as soon as it passes ``limit`` bytes."""
    size = 0
    while chunk := source.read(_CHUNK):
        size += len(chunk)
        if size > limit:
            raise HTTPException(
                413, f"{name} is larger than {max_mb:g} MB (COLMEIA_SERVICE_MAX_UPLOAD_MB)"
            )
        yield chunk


def _read(source: BinaryIO, name: str, limit: int, max_mb: float) -> bytes:
    return b"".join(_chunks(source, name, limit, max_mb))


def _write(source: BinaryIO, folder: Path, name: str, limit: int, max_mb: float) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    part = folder / f".{name}.part"
    size = 0
    head = b""
    try:
        with part.open("wb") as out:
            for chunk in _chunks(source, name, limit, max_mb):
                if not head:
                    head = chunk[:16]
                size += len(chunk)
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        if size == 0:
            raise HTTPException(422, f"{name} is empty")
        magic = _MAGIC.get(Path(name).suffix.lower())
        if magic and not head.startswith(magic):
            raise HTTPException(
                415, f"{name} does not look like a {Path(name).suffix} file (its content)"
            )
        os.replace(part, folder / name)
    finally:
        part.unlink(missing_ok=True)
