"""Where the service keeps uploaded files and job outputs: the local disk, or an S3 bucket too.

Every file the service keeps lives under ``COLMEIA_HOME/tenants/…`` (a collection's uploads,
a job's input files, results and report), and the code that reads them (ingestion, moderation,
reports) reads that local folder. With ``COLMEIA_SERVICE_FILES=s3://bucket/prefix`` the bucket
is the shared truth and each process's disk a cache of it: a request publishes what it saved,
a job fetches its folder before it runs and publishes what it wrote, and a download fetches
the file it serves. Replicas on different machines, each with its own disk, then see the same
uploads and reports. An object's key is the prefix plus the file's path below ``COLMEIA_HOME``
(``prefix/tenants/acme/moderation/JOB/report/report.html``).

The default (``local``) is the disk alone, as before: publishing and fetching do nothing.
Only what lies under the home folder is ever sent; an object whose key would land outside the
folder being fetched is refused, so a key in the bucket never chooses a path on the disk.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlsplit

from colmeia.errors import ConfigurationError, StoreError

__all__ = ["FileStorage", "LocalFiles", "S3Files", "S3Location", "open_file_storage"]

log = logging.getLogger(__name__)


@runtime_checkable
class FileStorage(Protocol):
    """Keeps the files under the service's home folder where every replica finds them."""

    url: str

    @property
    def shared(self) -> bool:
        """Whether other processes (other machines) see what this one publishes."""
        ...

    async def check(self) -> None:
        """Raise a ConfigurationError naming the setting when the storage cannot be used."""
        ...

    async def publish(self, paths: Sequence[Path]) -> int:
        """Send these local files (below the home folder) to the storage; how many were sent."""
        ...

    async def publish_tree(self, folder: Path) -> int:
        """Send every file below ``folder`` (hidden staging files apart); how many were sent."""
        ...

    async def fetch(self, folder: Path) -> int:
        """Bring the files kept below ``folder`` that this disk lacks or has older; how many."""
        ...

    async def remove(self, paths: Sequence[Path]) -> None:
        """Forget these files in the storage (the local copies are the caller's)."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...


class LocalFiles:
    """The default: the local disk is the only copy (one machine, or a shared volume)."""

    url = "local"

    def __init__(self, home: Path) -> None:
        self.home = home

    @property
    def shared(self) -> bool:
        return False

    async def check(self) -> None:
        return None

    async def publish(self, paths: Sequence[Path]) -> int:
        return 0

    async def publish_tree(self, folder: Path) -> int:
        return 0

    async def fetch(self, folder: Path) -> int:
        return 0

    async def remove(self, paths: Sequence[Path]) -> None:
        return None

    def close(self) -> None:
        return None


@dataclass(frozen=True, slots=True)
class S3Location:
    """``s3://bucket/prefix`` taken apart (the prefix without slashes at either end)."""

    bucket: str
    prefix: str

    @classmethod
    def parse(cls, url: str) -> S3Location:
        parts = urlsplit(url)
        if parts.scheme != "s3" or not parts.netloc:
            raise ConfigurationError(
                f"COLMEIA_SERVICE_FILES={url!r} is not a storage address: use 'local' or "
                "s3://BUCKET/PREFIX"
            )
        if parts.query or parts.fragment:
            raise ConfigurationError(
                f"COLMEIA_SERVICE_FILES={url!r}: an s3:// address takes no '?' or '#' part; "
                "the endpoint goes in COLMEIA_SERVICE_S3_ENDPOINT_URL"
            )
        return cls(parts.netloc, parts.path.strip("/"))

    def key(self, relative: str) -> str:
        return f"{self.prefix}/{relative}" if self.prefix else relative


class S3Files:
    """Files kept in an S3-compatible bucket (AWS S3, MinIO, Ceph RGW, Garage…), with the
    local disk as a cache. Credentials come from the settings or boto3's usual chain
    (``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``, a profile, an instance role)."""

    def __init__(
        self,
        url: str,
        home: Path,
        *,
        endpoint_url: str | None = None,
        region: str | None = None,
        access_key_id: str | None = None,
        secret_access_key: str | None = None,
        path_style: bool = True,
    ) -> None:
        self.url = url
        self.home = home
        self.location = S3Location.parse(url)
        self.endpoint_url = endpoint_url
        try:
            import boto3
            from botocore.config import Config
        except ImportError as exc:  # pragma: no cover - depends on the installed extras
            raise ConfigurationError(
                f"COLMEIA_SERVICE_FILES={url!r} needs boto3: pip install 'colmeia[s3]'"
            ) from exc
        config = Config(
            s3={"addressing_style": "path" if path_style else "auto"},
            connect_timeout=5,
            read_timeout=60,
            retries={"max_attempts": 4, "mode": "standard"},
        )
        session = boto3.session.Session(
            aws_access_key_id=access_key_id or None,
            aws_secret_access_key=secret_access_key or None,
            region_name=region or None,
        )
        self._client: Any = session.client("s3", endpoint_url=endpoint_url or None, config=config)

    @property
    def shared(self) -> bool:
        return True

    # ------------------------------------------------------------------ keys and paths
    def _relative(self, path: Path) -> str:
        home = self.home.resolve()
        full = path.resolve()
        if not full.is_relative_to(home):
            raise StoreError(f"{path} is not below the service's home folder {home}")
        return full.relative_to(home).as_posix()

    def key_of(self, path: Path) -> str:
        """The object key that keeps ``path`` (a file below the home folder)."""
        return self.location.key(self._relative(path))

    def _problem(self, exc: Exception, what: str) -> StoreError:
        where = self.endpoint_url or "the default S3 endpoint"
        return StoreError(
            f"object storage {self.url} at {where}: {what} failed ({exc}); check "
            "COLMEIA_SERVICE_FILES, COLMEIA_SERVICE_S3_ENDPOINT_URL and the credentials"
        )

    # ------------------------------------------------------------------ operations
    async def check(self) -> None:
        try:
            await asyncio.to_thread(self._client.head_bucket, Bucket=self.location.bucket)
        except Exception as exc:
            raise ConfigurationError(
                f"COLMEIA_SERVICE_FILES={self.url!r}: bucket {self.location.bucket!r} cannot be "
                f"reached at {self.endpoint_url or 'the default S3 endpoint'} ({exc})"
            ) from exc

    async def publish(self, paths: Sequence[Path]) -> int:
        return await asyncio.to_thread(self._publish, list(paths))

    def _publish(self, paths: list[Path]) -> int:
        sent = 0
        for path in paths:
            key = self.key_of(path)
            try:
                self._client.upload_file(str(path), self.location.bucket, key)
            except Exception as exc:
                raise self._problem(exc, f"sending {key}") from exc
            sent += 1
        if sent:
            log.info("published %d file(s) to %s", sent, self.url)
        return sent

    async def publish_tree(self, folder: Path) -> int:
        files = await asyncio.to_thread(_visible_files, folder)
        return await self.publish(files)

    async def fetch(self, folder: Path) -> int:
        return await asyncio.to_thread(self._fetch, folder)

    def _fetch(self, folder: Path) -> int:
        base = folder.resolve()
        start = self.key_of(folder).rstrip("/") + "/"
        got = 0
        try:
            pages = self._client.get_paginator("list_objects_v2").paginate(
                Bucket=self.location.bucket, Prefix=start
            )
            for page in pages:
                for item in page.get("Contents", []):
                    got += self._fetch_one(base, start, item)
        except StoreError:
            raise
        except Exception as exc:
            raise self._problem(exc, f"reading {start}") from exc
        if got:
            log.info("fetched %d file(s) from %s into %s", got, self.url, folder)
        return got

    def _fetch_one(self, base: Path, start: str, item: dict[str, Any]) -> int:
        key = str(item["Key"])
        target = (base / key[len(start) :]).resolve()
        if not target.is_relative_to(base) or target == base or key.endswith("/"):
            log.warning("object %s ignored: its key does not name a file below %s", key, base)
            return 0
        stamp = item["LastModified"].timestamp()
        if target.is_file():
            seen = target.stat()
            if seen.st_size == int(item["Size"]) and seen.st_mtime >= stamp:
                return 0
        target.parent.mkdir(parents=True, exist_ok=True)
        part = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.part")
        try:
            self._client.download_file(self.location.bucket, key, str(part))
            os.utime(part, (stamp, stamp))
            os.replace(part, target)  # a reader never sees half a file
        finally:
            part.unlink(missing_ok=True)
        return 1

    async def remove(self, paths: Sequence[Path]) -> None:
        keys = [{"Key": self.key_of(p)} for p in paths]
        if not keys:
            return
        try:
            await asyncio.to_thread(
                self._client.delete_objects,
                Bucket=self.location.bucket,
                Delete={"Objects": keys, "Quiet": True},
            )
        except Exception as exc:
            raise self._problem(exc, f"deleting {len(keys)} object(s)") from exc

    def close(self) -> None:
        self._client.close()


def _visible_files(folder: Path) -> list[Path]:
    """The files below ``folder``, leaving out hidden ones (``.incoming-*``, ``.*.part``)."""
    if not folder.is_dir():
        return []
    found: list[Path] = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).parts
        if path.is_file() and not any(part.startswith(".") for part in relative):
            found.append(path)
    return found


def open_file_storage(
    url: str,
    home: Path,
    *,
    endpoint_url: str | None = None,
    region: str | None = None,
    access_key_id: str | None = None,
    secret_access_key: str | None = None,
    path_style: bool = True,
) -> FileStorage:
    """The storage that ``url`` names: ``local`` (the default) or ``s3://bucket/prefix``."""
    if url in ("", "local"):
        return LocalFiles(home)
    return S3Files(
        url,
        home,
        endpoint_url=endpoint_url,
        region=region,
        access_key_id=access_key_id,
        secret_access_key=secret_access_key,
        path_style=path_style,
    )
