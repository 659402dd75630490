"""The case registry: processes, expedientes, parties, movements and documents.

A :class:`CaseRegistry` is what the search agent's tools read. The assistant never asks a
model for case data: whatever it says about a case comes from here. Backends:

* :class:`SQLiteCaseRegistry` — one SQLite file (``sqlite:///registry.db``), the default;
* :class:`~colmeia.apps.assistant.registry_http.HTTPCaseRegistry` — a registry served over
  HTTP (``http://host:port``), e.g. by ``colmeia registry serve``.

:func:`~colmeia.apps.assistant.registry_url.open_registry` opens either from a URL (it lives
apart so that this module does not import the HTTP client that imports it).

Methods take canonical identifiers (:class:`~colmeia.apps.assistant.ids.CaseId`); parsing and
normalising what a person typed happens before, in the tools.

The records live in :mod:`.registry_records`, the SQLite backend in :mod:`.registry_sqlite`;
this module holds the protocol and re-exports both.
"""

from __future__ import annotations

import datetime as dt
from typing import Protocol, runtime_checkable

from colmeia.apps.assistant.ids import CaseId
from colmeia.apps.assistant.registry_records import (
    CaseDocument,
    CaseSummary,
    Expediente,
    Location,
    Movement,
    Party,
    Process,
    RegistryBatch,
    Subscription,
    locate,
)
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry

__all__ = [
    "CaseDocument",
    "CaseRegistry",
    "CaseSummary",
    "Expediente",
    "Location",
    "Movement",
    "Party",
    "Process",
    "RegistryBatch",
    "SQLiteCaseRegistry",
    "Subscription",
    "locate",
]


@runtime_checkable
class CaseRegistry(Protocol):
    """Read access to cases, and one idempotent write (subscriptions)."""

    url: str

    async def process(self, case: CaseId) -> Process | None:
        """The process, or ``None`` when the registry has no such number."""
        ...

    async def expediente(self, case: CaseId) -> Expediente | None:
        """The expediente, or ``None``."""
        ...

    async def parties(self, case: CaseId) -> list[Party]:
        """People and bodies in the case (empty when unknown)."""
        ...

    async def movements(self, case: CaseId, limit: int = 20) -> list[Movement]:
        """The most recent movements, newest first."""
        ...

    async def documents(self, case: CaseId, limit: int = 20) -> list[CaseDocument]:
        """Documents in the case file, newest first."""
        ...

    async def location(self, case: CaseId, today: dt.date | None = None) -> Location | None:
        """Where the case is and since when, or ``None`` when unknown."""
        ...

    async def subscribe(self, case: CaseId, contact: str, key: str) -> Subscription:
        """Record a subscription once per ``key`` (a repeat returns the first, created=False)."""
        ...

    async def counts(self) -> dict[str, int]:
        """How many processes, expedientes, movements… the registry holds."""
        ...

    async def find(self, text: str, limit: int = 20) -> tuple[int, list[CaseSummary]]:
        """Cases described by ``text``, ranked by BM25 over subject, audited body, unit,
        class, rapporteur and parties (accents folded, Portuguese stems, filler dropped),
        best first with their ``score`` and ``matched``: the total and the first ``limit``."""
        ...

    async def case_numbers(self, number: int, year: int | None = None) -> list[CaseId]:
        """Every case numbered ``number`` (of ``year`` when given), oldest first."""
        ...

    async def close(self) -> None: ...
