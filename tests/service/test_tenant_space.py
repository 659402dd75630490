"""Where each tenant's data lives (``TenantSpace``), checked without a server.

A tenant's store is its own SQLite file or its own PostgreSQL schema, and its uploads, job
folders and case registry are in its own folder; what one tenant writes is never in another's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from colmeia.errors import ConfigurationError, StoreError
from colmeia.service.tenants import TenantSpace
from pg import PG_URL, drop_schema, new_schema, postgres_unreachable


@pytest.fixture
def space(tmp_path: Path) -> Iterator[TenantSpace]:
    tenants = TenantSpace("sqlite:///unused.db", tmp_path / "home")
    yield tenants
    tenants.close()


def test_each_tenant_has_its_own_folder_created_on_first_use(space: TenantSpace) -> None:
    acme = space.folder("acme")
    assert acme == space.home / "tenants" / "acme" and acme.is_dir()
    assert space.folder("tenant-b") == space.home / "tenants" / "tenant-b"
    assert space.folder("acme") == acme  # asking again is harmless


@pytest.mark.parametrize("tenant", ["..", "../acme", "Acme", "", "a/b"])
def test_a_tenant_id_that_could_escape_its_folder_is_refused(
    space: TenantSpace, tenant: str
) -> None:
    with pytest.raises(ConfigurationError, match="invalid tenant"):
        space.folder(tenant)
    with pytest.raises(ConfigurationError, match="invalid tenant"):
        space.url_for(tenant)
    assert not (space.home / "tenants").exists() or list((space.home / "tenants").iterdir()) == []


def test_collection_files_are_kept_under_the_tenants_collections_folder(
    space: TenantSpace,
) -> None:
    path = space.collection_files("acme", "normas")
    assert path == space.home / "tenants" / "acme" / "collections" / "normas" and path.is_dir()
    (path / "lei.txt").write_text("Art. 1º", encoding="utf-8")
    assert space.collection_files("acme", "normas") == path  # the next upload: files kept
    assert (path / "lei.txt").read_text(encoding="utf-8") == "Art. 1º"
    with pytest.raises(ConfigurationError, match=r"invalid collection name '\.\.'"):
        space.collection_files("acme", "..")


def test_a_job_folder_is_named_by_tenant_kind_and_id(space: TenantSpace) -> None:
    path = space.job_folder("acme", "moderation", "abc123")
    assert path == space.home / "tenants" / "acme" / "moderation" / "abc123" and path.is_dir()
    assert space.job_folder("acme", "moderation", "abc123") == path  # a job run again
    for bad in ("../abc", "abc/def", "", "a.b"):
        with pytest.raises(ValueError, match="bad job id") as err:
            space.job_folder("acme", "moderation", bad)
        assert str(err.value) == f"bad job id {bad!r}"
    assert sorted(p.name for p in (space.home / "tenants" / "acme" / "moderation").iterdir()) == [
        "abc123"
    ]


def test_with_sqlite_each_tenant_has_its_own_store_file(space: TenantSpace) -> None:
    folder = space.home / "tenants" / "acme"
    assert space.url_for("acme") == f"sqlite:///{folder / 'colmeia.db'}"


@pytest.mark.parametrize(
    ("store_url", "tenant", "expected"),
    [
        (
            "postgresql://postgres@127.0.0.1:5432/test",
            "acme",
            "postgresql://postgres@127.0.0.1:5432/test?schema=colmeia_t_acme",
        ),
        (
            "postgres://u@127.0.0.1/test?sslmode=disable&schema=prod",
            "tenant-b",
            "postgres://u@127.0.0.1/test?sslmode=disable&schema=prod_t_tenant_b",
        ),
        (
            "postgresql://u@127.0.0.1/test?schema=prod&connect_timeout=3",
            "t_1",
            "postgresql://u@127.0.0.1/test?connect_timeout=3&schema=prod_t_t_1",
        ),
    ],
)
def test_with_postgresql_each_tenant_has_its_own_schema(
    tmp_path: Path, store_url: str, tenant: str, expected: str
) -> None:
    assert TenantSpace(store_url, tmp_path).url_for(tenant) == expected


def test_a_tenants_store_is_opened_once_and_holds_only_its_own_collections(
    space: TenantSpace,
) -> None:
    acme = space.store("acme")
    assert space.store("acme") is acme
    assert acme.url == space.url_for("acme")
    acme.ensure_collection("segredos")
    beta = space.store("beta")
    assert beta is not acme and beta.url == space.url_for("beta")
    assert [c.name for c in acme.collections()] == ["segredos"]
    assert beta.collections() == []
    assert (space.home / "tenants" / "acme" / "colmeia.db").is_file()
    assert (space.home / "tenants" / "beta" / "colmeia.db").is_file()


def test_a_tenants_case_registry_is_its_own_file_shared_until_closed(
    space: TenantSpace,
) -> None:
    acme = space.registry("acme")
    assert space.registry("acme") is acme
    assert acme.path == space.home / "tenants" / "acme" / "registry.db" and acme.path.is_file()
    beta = space.registry("beta")
    assert beta is not acme and beta.path == space.home / "tenants" / "beta" / "registry.db"
    assert asyncio.run(acme.counts()) == asyncio.run(beta.counts())


def test_close_closes_every_store_and_registry_and_the_next_use_reopens(
    space: TenantSpace,
) -> None:
    store, registry = space.store("acme"), space.registry("acme")
    store.ensure_collection("normas")
    space.close()
    with pytest.raises(StoreError, match="closed database"):
        store.collections()
    with pytest.raises(StoreError, match="closed database"):
        asyncio.run(registry.counts())
    reopened = space.store("acme")
    assert reopened is not store
    assert [c.name for c in reopened.collections()] == ["normas"]
    again = space.registry("acme")
    assert again is not registry
    assert asyncio.run(again.counts()) == asyncio.run(space.registry("beta").counts())


def test_with_postgresql_a_tenants_store_is_its_schema_and_its_indexes_its_folder(
    tmp_path: Path,
) -> None:
    reason = postgres_unreachable()
    if reason:
        pytest.skip(reason)
    base = new_schema()
    space = TenantSpace(f"{PG_URL}?schema={base}", tmp_path / "home")
    try:
        acme, beta = space.store("acme"), space.store("beta")
        assert acme.url.endswith(f"schema={base}_t_acme")
        acme.ensure_collection("segredos")
        assert [c.name for c in acme.collections()] == ["segredos"]
        assert beta.collections() == []
        # derived search indexes are cached in the tenant's own folder, not the working one
        assert acme.index_dir.is_relative_to(space.home / "tenants" / "acme")
    finally:
        space.close()
        drop_schema(f"{base}_t_acme")
        drop_schema(f"{base}_t_beta")
