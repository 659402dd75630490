"""Everything one running service holds: settings, tables, tenant stores, limits, telemetry,
the job worker and the shared model client. Built by :func:`colmeia.service.app.create_app`.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from colmeia.config import Settings
from colmeia.errors import ConfigurationError
from colmeia.service.db import Database
from colmeia.service.files import FileStorage, LocalFiles
from colmeia.service.jobs import JobStore, Worker
from colmeia.service.limits import Limiter
from colmeia.service.observability import Metrics, Tracing
from colmeia.service.settings import ServiceSettings
from colmeia.service.tenants import TenantSpace

if TYPE_CHECKING:
    from colmeia.llm.base import ChatModel
    from colmeia.rag.index.embedders import Embedder

__all__ = ["NO_MODEL", "ServiceState"]

log = logging.getLogger(__name__)

NO_MODEL = (
    "no language model is configured: set COLMEIA_LLM_BASE_URL and COLMEIA_LLM_MODEL "
    "(e.g. the /v1 address of an Ollama server), or start the service with "
    "`colmeia serve --simulated` to try it with colmeia's simulated model"
)


@dataclass
class ServiceState:
    """The parts of one service process."""

    settings: Settings
    service: ServiceSettings
    db: Database
    tenants: TenantSpace
    jobs: JobStore
    limiter: Limiter
    metrics: Metrics
    tracing: Tracing
    #: uploaded files and job outputs: the local disk, or an S3 bucket every replica shares
    files: FileStorage = field(default_factory=lambda: LocalFiles(Path(".")))
    worker: Worker | None = None
    model: ChatModel | None = None
    simulated: bool = False
    extras: dict[str, Any] = field(default_factory=dict)
    #: things opened on first use (each tenant's assistant) and closed when the app stops
    closers: contextlib.AsyncExitStack = field(default_factory=contextlib.AsyncExitStack)

    @property
    def home(self) -> Path:
        return self.settings.home

    def require_model(self) -> ChatModel:
        """The shared model client, or a configuration error saying how to set one."""
        if self.model is None:
            raise ConfigurationError(NO_MODEL)
        return self.model

    def embedder(self) -> Embedder | None:
        from colmeia.rag.index.embedders import default_embedder

        return default_embedder(self.settings.embeddings)
