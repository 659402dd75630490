"""Request bodies measured as they arrive, before any parser holds them.

Starlette's multipart parser reads a whole form before a route sees it, so a 150 MB file sent
with a valid key was received in full before its 413 (the per-file limit was checked in the
route). :class:`BodyMeter` follows the multipart boundaries in the raw stream and refuses as
soon as one part passes the per-file limit, the whole body the request limit, or the declared
``Content-Length`` either — before a byte of the body is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["BodyMeter"]

_BOUNDARY = re.compile(r'boundary="?([^";,]+)"?', re.IGNORECASE)
# a part's headers and the form's own fields need some room above the file limit
_PART_SLACK = 64 * 1024


@dataclass(slots=True)
class BodyMeter:
    """Counts a body and says why it is refused (``None`` while it is within the limits)."""

    request_limit: int
    request_mb: float
    part_limit: int | None = None
    part_mb: float = 0.0
    boundary: bytes = b""
    received: int = 0
    _part: int = 0
    _tail: bytes = field(default=b"", repr=False)

    @classmethod
    def for_request(cls, headers: dict[str, str], request_mb: float, upload_mb: float) -> BodyMeter:
        """A meter for a request with ``headers`` (multipart bodies get a per-part limit)."""
        meter = cls(int(request_mb * 1024 * 1024), request_mb)
        kind = headers.get("content-type", "")
        found = _BOUNDARY.search(kind) if kind.startswith("multipart/") else None
        if found:
            meter.boundary = b"\r\n--" + found.group(1).encode("latin-1")
            meter.part_limit = int(upload_mb * 1024 * 1024) + _PART_SLACK
            meter.part_mb = upload_mb
        return meter

    def declared(self, length: str) -> str | None:
        """Why a declared ``Content-Length`` is refused before the body is read, or ``None``."""
        if length.isdigit() and int(length) > self.request_limit:
            return self._too_big()
        return None

    def feed(self, chunk: bytes) -> str | None:
        """Count ``chunk``; why the body is refused now, or ``None``."""
        self.received += len(chunk)
        if self.received > self.request_limit:
            return self._too_big()
        if self.part_limit is None:
            return None
        data = self._tail + chunk
        last = data.rfind(self.boundary)
        if last >= 0:
            self._part = len(data) - last - len(self.boundary)
        else:
            self._part += len(chunk)
        # keep enough of the end to find a boundary split across two chunks
        self._tail = data[-len(self.boundary) :]
        if self._part > self.part_limit:
            return (
                f"a file of the upload is larger than {self.part_mb:g} MB "
                "(COLMEIA_SERVICE_MAX_UPLOAD_MB); it was refused while being sent"
            )
        return None

    def _too_big(self) -> str:
        return (
            f"the request body is larger than {self.request_mb:g} MB "
            "(COLMEIA_SERVICE_MAX_REQUEST_MB)"
        )
