"""A real S3-compatible server for tests: moto's server mode (``moto[server]``, a dev
dependency) in its own process on 127.0.0.1, spoken to over HTTP like any bucket."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

ACCESS_KEY = "colmeia-test"
SECRET_KEY = "colmeia-test-secret"
REGION = "us-east-1"


@dataclass
class S3Server:
    endpoint_url: str

    def client(self) -> Any:
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint_url,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
            region_name=REGION,
        )

    def new_bucket(self) -> str:
        name = f"colmeia-{uuid.uuid4().hex[:12]}"
        self.client().create_bucket(Bucket=name)
        return name

    def keys(self, bucket: str, prefix: str = "") -> list[str]:
        listing = self.client().list_objects_v2(Bucket=bucket, Prefix=prefix)
        return sorted(str(item["Key"]) for item in listing.get("Contents", []))

    def settings(self, url: str) -> dict[str, Any]:
        """The ``COLMEIA_SERVICE_*`` settings that point a service at ``url`` on this server."""
        return {
            "files": url,
            "s3_endpoint_url": self.endpoint_url,
            "s3_region": REGION,
            "s3_access_key_id": ACCESS_KEY,
            "s3_secret_access_key": SECRET_KEY,
        }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def running_s3_server() -> Iterator[S3Server]:
    """Start moto's S3 server on a free loopback port; stop it on exit."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            if proc.poll() is not None:
                err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
                raise RuntimeError(f"moto's S3 server stopped at start: {err[-800:]}")
            if time.monotonic() > deadline:
                raise RuntimeError("moto's S3 server did not listen within 30 s")
            time.sleep(0.1)
        yield S3Server(f"http://127.0.0.1:{port}")
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()
