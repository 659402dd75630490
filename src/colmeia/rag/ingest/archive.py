"""Limits for zip-based files (DOCX and every other package the ingester opens through a zip).

A zip's central directory states each member's unpacked size before anything is inflated, and
Python's :mod:`zipfile` never returns more than that stated size for a member, so checking the
directory bounds what parsing the file can unpack: total unpacked size, member count, the
compression ratio of big members (a run of zeros packs a thousand to one; real documents a
few to one) and archives nested inside the archive. A file over any limit is refused with a
:class:`DocumentError` naming it and the limit, before any parser sees it.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from colmeia.errors import DocumentError

__all__ = ["ArchiveLimits", "check_archive"]

_NESTED = (".zip", ".docx", ".xlsx", ".pptx", ".odt", ".ods", ".epub", ".jar")


@dataclass(frozen=True, slots=True)
class ArchiveLimits:
    """What one zip-based file may unpack to."""

    max_unpacked_bytes: int = 100 * 1024 * 1024
    max_members: int = 2_000
    # a member must pack at least 1/max_ratio of its size; checked on members of ratio_floor+
    max_ratio: float = 100.0
    ratio_floor_bytes: int = 1024 * 1024
    max_nesting: int = 1


DEFAULT_LIMITS = ArchiveLimits()


def check_archive(path: Path, limits: ArchiveLimits = DEFAULT_LIMITS) -> None:
    """Refuse ``path`` (a :class:`DocumentError` naming it) when it is not a readable zip or
    when its directory breaks one of ``limits``; return quietly otherwise."""
    name = str(path)
    try:
        with zipfile.ZipFile(path) as archive:
            _check(archive, name, limits, depth=0, budget=[limits.max_unpacked_bytes])
    except zipfile.BadZipFile as exc:
        raise DocumentError(name, f"the file is not a readable zip package ({exc})") from exc
    except OSError as exc:
        raise DocumentError(name, f"the file cannot be read ({exc.strerror or exc})") from exc


def _check(
    archive: zipfile.ZipFile, name: str, limits: ArchiveLimits, *, depth: int, budget: list[int]
) -> None:
    members = archive.infolist()
    if len(members) > limits.max_members:
        raise DocumentError(
            name, f"the package has {len(members)} members, over the limit of {limits.max_members}"
        )
    total = sum(m.file_size for m in members)
    # the budget is shared with nested archives: their content counts once more when unpacked
    budget[0] -= total
    if budget[0] < 0:
        raise DocumentError(
            name,
            f"the package unpacks to {total / 2**20:.1f} MB, over the limit of "
            f"{limits.max_unpacked_bytes / 2**20:.0f} MB (a zip bomb or an oversized document)",
        )
    for member in members:
        if member.file_size >= limits.ratio_floor_bytes:
            ratio = member.file_size / max(member.compress_size, 1)
            if ratio > limits.max_ratio:
                raise DocumentError(
                    name,
                    f"member {member.filename!r} unpacks {ratio:.0f} times its packed size "
                    f"(limit {limits.max_ratio:g}): refused as a zip bomb",
                )
    for member in members:
        if not member.filename.lower().endswith(_NESTED):
            continue
        if depth + 1 > limits.max_nesting:
            raise DocumentError(
                name,
                f"member {member.filename!r} is an archive nested {depth + 1} levels deep "
                f"(limit {limits.max_nesting})",
            )
        with archive.open(member) as inner_file:
            data: IO[bytes] = io.BytesIO(inner_file.read())
        try:
            with zipfile.ZipFile(data) as inner:
                _check(inner, f"{name}!{member.filename}", limits, depth=depth + 1, budget=budget)
        except zipfile.BadZipFile:
            continue  # named like an archive, but not one: nothing nested to unpack
