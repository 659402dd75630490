"""The colmeia service: every capability over HTTP and in the browser, for several tenants.

``colmeia serve`` runs it; :func:`create_app` builds the FastAPI app for embedding or tests.
Routers call the apps and hold no business logic; tenants are kept apart by their own stores.
"""

from __future__ import annotations

from colmeia.service.app import create_app
from colmeia.service.settings import ServiceSettings

__all__ = ["ServiceSettings", "create_app"]
