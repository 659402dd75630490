"""Where each tenant's data lives: its own document store and its own folder.

Isolation is physical rather than a filter that every query must remember: a tenant's
collections are in its own SQLite file (``<home>/tenants/<id>/colmeia.db``) or its own
PostgreSQL schema (``colmeia_t_<id>``), and its uploads, job files, checkpoints and case
registry (``registry.db``) in its own folder. A request can only reach the store and registry
of the tenant its key belongs to.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from colmeia.service.keys import validate_tenant
from colmeia.store import Store, open_store
from colmeia.store.base import safe_folder_name

if TYPE_CHECKING:
    from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry

__all__ = ["TenantSpace"]


class TenantSpace:
    """Opens (once per process) and hands out each tenant's store and folders."""

    def __init__(self, store_url: str, home: Path) -> None:
        self.store_url = store_url
        self.home = home
        self._stores: dict[str, Store] = {}
        self._registries: dict[str, SQLiteCaseRegistry] = {}
        self._lock = threading.Lock()

    def folder(self, tenant: str) -> Path:
        """The tenant's own folder (uploads, job files, checkpoints)."""
        path = self.home / "tenants" / validate_tenant(tenant)
        path.mkdir(parents=True, exist_ok=True)
        return path

    def collection_files(self, tenant: str, collection: str) -> Path:
        """Where a collection's uploaded files are kept (ids are relative to it)."""
        # not the creation rule: a collection named under an older rule keeps its folder
        path = self.folder(tenant) / "collections" / safe_folder_name(collection)
        path.mkdir(parents=True, exist_ok=True)
        return path

    def job_folder(self, tenant: str, kind: str, job_id: str) -> Path:
        """A job's own folder (its input files, results, report)."""
        if not job_id.isalnum():
            raise ValueError(f"bad job id {job_id!r}")
        path = self.folder(tenant) / kind / job_id
        path.mkdir(parents=True, exist_ok=True)
        return path

    def url_for(self, tenant: str) -> str:
        """The tenant's store URL: its own SQLite file or its own PostgreSQL schema."""
        validate_tenant(tenant)
        if self.store_url.startswith(("postgresql://", "postgres://")):
            parts = urlsplit(self.store_url)
            query = [(k, v) for k, v in parse_qsl(parts.query) if k != "schema"]
            base = next((v for k, v in parse_qsl(parts.query) if k == "schema"), "colmeia")
            schema = f"{base}_t_{tenant.replace('-', '_')}"
            query.append(("schema", schema))
            return urlunsplit(parts._replace(query=urlencode(query)))
        return f"sqlite:///{self.folder(tenant) / 'colmeia.db'}"

    def store(self, tenant: str) -> Store:
        """The tenant's document store (opened on first use, then shared)."""
        with self._lock:
            found = self._stores.get(tenant)
            if found is None:
                found = open_store(self.url_for(tenant), cache_dir=self.folder(tenant))
                self._stores[tenant] = found
            return found

    def registry(self, tenant: str) -> SQLiteCaseRegistry:
        """The tenant's case registry (opened on first use, then shared by the registry API
        and the tenant's assistant, so an import is seen by the next question)."""
        from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry

        with self._lock:
            found = self._registries.get(tenant)
            if found is None:
                found = SQLiteCaseRegistry(self.folder(tenant) / "registry.db", create=True)
                self._registries[tenant] = found
            return found

    def close(self) -> None:
        with self._lock:
            for store in self._stores.values():
                store.close()
            self._stores.clear()
            for registry in self._registries.values():
                registry.close_sync()
            self._registries.clear()
