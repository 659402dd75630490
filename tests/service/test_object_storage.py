"""Uploaded files and reports on an S3-compatible bucket (moto's server over real HTTP): what
is published is where another machine fetches it, the local disk stays the default, and no key
in the bucket chooses a path outside the folder being fetched."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic import ValidationError

from colmeia.errors import ConfigurationError, StoreError
from colmeia.service.files import LocalFiles, S3Files, S3Location, open_file_storage
from colmeia.service.settings import ServiceSettings
from s3_server import S3Server


def _files(s3: S3Server, url: str, home: Path) -> S3Files:
    opts = s3.settings(url)
    store = open_file_storage(
        url,
        home,
        endpoint_url=opts["s3_endpoint_url"],
        region=opts["s3_region"],
        access_key_id=opts["s3_access_key_id"],
        secret_access_key=opts["s3_secret_access_key"],
    )
    assert isinstance(store, S3Files)
    return store


def test_the_local_disk_is_the_default_and_publishes_nothing(tmp_path: Path) -> None:
    assert ServiceSettings().files == "local"
    store = open_file_storage(ServiceSettings().files, tmp_path)
    assert isinstance(store, LocalFiles) and not store.shared
    (tmp_path / "a.txt").write_text("x")
    assert asyncio.run(store.publish([tmp_path / "a.txt"])) == 0
    assert asyncio.run(store.fetch(tmp_path)) == 0


def test_a_file_published_on_one_machine_is_fetched_on_another(
    s3: S3Server, tmp_path: Path
) -> None:
    bucket = s3.new_bucket()
    one, two = tmp_path / "one", tmp_path / "two"
    folder = one / "tenants" / "acme" / "moderation" / "J1"
    (folder / "input").mkdir(parents=True)
    (folder / "input" / "lote.json").write_text('[{"id": 1}]', encoding="utf-8")
    (folder / "report").mkdir()
    (folder / "report" / "report.html").write_text("<h1>relatório</h1>", encoding="utf-8")
    (folder / "input" / ".lote.json.part").write_text("half", encoding="utf-8")  # never sent

    a = _files(s3, f"s3://{bucket}/prod/colmeia", one)
    assert asyncio.run(a.publish_tree(folder)) == 2
    assert s3.keys(bucket) == [
        "prod/colmeia/tenants/acme/moderation/J1/input/lote.json",
        "prod/colmeia/tenants/acme/moderation/J1/report/report.html",
    ]

    b = _files(s3, f"s3://{bucket}/prod/colmeia", two)
    there = two / "tenants" / "acme" / "moderation" / "J1"
    assert asyncio.run(b.fetch(there)) == 2
    assert (there / "report" / "report.html").read_text(encoding="utf-8") == "<h1>relatório</h1>"
    assert (there / "input" / "lote.json").read_text(encoding="utf-8") == '[{"id": 1}]'
    assert asyncio.run(b.fetch(there)) == 0  # what the disk has, up to date, is not fetched again

    # a newer version published elsewhere replaces the cached copy
    (folder / "input" / "lote.json").write_text('[{"id": 1}, {"id": 2}]', encoding="utf-8")
    asyncio.run(a.publish([folder / "input" / "lote.json"]))
    assert asyncio.run(b.fetch(there)) == 1
    assert (there / "input" / "lote.json").read_text(encoding="utf-8").count("id") == 2

    asyncio.run(a.remove([folder / "input" / "lote.json"]))
    assert s3.keys(bucket) == ["prod/colmeia/tenants/acme/moderation/J1/report/report.html"]


def test_a_key_that_climbs_out_of_the_folder_is_not_written(s3: S3Server, tmp_path: Path) -> None:
    bucket = s3.new_bucket()
    client = s3.client()
    client.put_object(Bucket=bucket, Key="p/tenants/acme/col/ok.txt", Body=b"ok")
    client.put_object(Bucket=bucket, Key="p/tenants/acme/col/../../evil.txt", Body=b"evil")
    store = _files(s3, f"s3://{bucket}/p", tmp_path)
    folder = tmp_path / "tenants" / "acme" / "col"
    assert asyncio.run(store.fetch(folder)) == 1
    assert (folder / "ok.txt").read_bytes() == b"ok"
    assert not list(tmp_path.rglob("evil.txt"))


def test_only_files_below_the_home_folder_are_sent(s3: S3Server, tmp_path: Path) -> None:
    store = _files(s3, f"s3://{s3.new_bucket()}", tmp_path / "home")
    outside = tmp_path / "secret.txt"
    outside.write_text("x")
    with pytest.raises(StoreError, match="not below the service's home folder"):
        asyncio.run(store.publish([outside]))


def test_a_missing_bucket_is_a_configuration_error_naming_the_setting(
    s3: S3Server, tmp_path: Path
) -> None:
    store = _files(s3, "s3://no-such-bucket-here/x", tmp_path)
    with pytest.raises(ConfigurationError, match="COLMEIA_SERVICE_FILES='s3://no-such-bucket"):
        asyncio.run(store.check())


def test_storage_addresses_are_checked_when_read() -> None:
    assert S3Location.parse("s3://b/a/b/") == S3Location("b", "a/b")
    assert S3Location.parse("s3://b").key("tenants/x") == "tenants/x"
    with pytest.raises(ConfigurationError, match="COLMEIA_SERVICE_S3_ENDPOINT_URL"):
        S3Location.parse("s3://b/p?endpoint=http://127.0.0.1:9000")
    with pytest.raises(ValidationError, match="not a storage address"):
        ServiceSettings(files="/mnt/shared")
