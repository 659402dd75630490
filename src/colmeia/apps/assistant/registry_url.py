"""Opening a case registry from its URL, and the stand-in used when none is configured.

Kept apart from :mod:`~colmeia.apps.assistant.registry` (the protocol and the SQLite backend)
because it chooses between that module and :mod:`~colmeia.apps.assistant.registry_http`,
which imports it: one level up, so neither of the two imports the other.
"""

from __future__ import annotations

import datetime as dt
from typing import NoReturn

from colmeia.apps.assistant.ids import CaseId
from colmeia.apps.assistant.registry import CaseRegistry
from colmeia.apps.assistant.registry_records import (
    CaseDocument,
    CaseSummary,
    Expediente,
    Location,
    Movement,
    Party,
    Process,
    Subscription,
)
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.errors import ConfigurationError

__all__ = ["NOT_CONFIGURED", "UnconfiguredRegistry", "open_registry"]

NOT_CONFIGURED = (
    "O cadastro de processos não está configurado neste atendimento, então não consigo "
    "consultar processos nem expedientes; perguntas sobre leis e normas continuam disponíveis. "
    "(Quem administra o serviço define COLMEIA_ASSISTANT_REGISTRY ou importa os casos com "
    "`colmeia registry import`.)"
)


def open_registry(url: str, *, create: bool = False) -> CaseRegistry:
    """The registry at ``url``: ``sqlite:///path``, a plain path, or ``http(s)://…``."""
    if url.startswith(("http://", "https://")):
        # imported here: httpx costs a CLI turn on a SQLite registry about 0.2 s of start-up
        from colmeia.apps.assistant.registry_http import HTTPCaseRegistry

        return HTTPCaseRegistry(url)
    path = url.removeprefix("sqlite:///")
    if "://" in path:
        raise ConfigurationError(
            f"unsupported registry URL {url!r}: use sqlite:///path.db or http(s)://host:port"
        )
    return SQLiteCaseRegistry(path, create=create)


class UnconfiguredRegistry:
    """No registry at all: every read raises :class:`ConfigurationError` with
    :data:`NOT_CONFIGURED`, which the assistant's tools turn into that sentence, so the rest of
    the assistant (law questions) works without one."""

    url = ""

    def _refuse(self) -> NoReturn:
        raise ConfigurationError(NOT_CONFIGURED)

    async def process(self, case: CaseId) -> Process | None:
        self._refuse()

    async def expediente(self, case: CaseId) -> Expediente | None:
        self._refuse()

    async def parties(self, case: CaseId) -> list[Party]:
        self._refuse()

    async def movements(self, case: CaseId, limit: int = 20) -> list[Movement]:
        self._refuse()

    async def documents(self, case: CaseId, limit: int = 20) -> list[CaseDocument]:
        self._refuse()

    async def location(self, case: CaseId, today: dt.date | None = None) -> Location | None:
        self._refuse()

    async def subscribe(self, case: CaseId, contact: str, key: str) -> Subscription:
        self._refuse()

    async def counts(self) -> dict[str, int]:
        self._refuse()

    async def find(self, text: str, limit: int = 20) -> tuple[int, list[CaseSummary]]:
        self._refuse()

    async def case_numbers(self, number: int, year: int | None = None) -> list[CaseId]:
        self._refuse()

    async def close(self) -> None:
        return None
