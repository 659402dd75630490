#!/usr/bin/env python3
"""A scripted session against a running colmeia service, as a user's client would run it:
upload a document (an ingest job), search and ask about it, run a moderation batch (a job) and
read its results and report. Python's standard library only, so it runs on any machine with
Python 3.11 and inside the service image. Prints one line per step; exits non-zero on the first
step that does not give what a user expects.

    python3 deploy/smoke_session.py --url http://127.0.0.1:8090 --key KEY [--moderation]
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import sys
import time
import urllib.error
import urllib.request
import uuid
from typing import Any
from urllib.parse import urlsplit

DOC = (
    "Regulamento interno do tribunal\n\n"
    "Art. 1º O prazo de recurso administrativo é de dez dias úteis, contados da intimação.\n\n"
    "Art. 2º O recurso é dirigido à autoridade que proferiu a decisão.\n"
)
RECORDS = [
    {
        "id": n,
        "question": q,
        "answer": a,
    }
    for n, (q, a) in enumerate(
        [
            ("Qual o prazo do recurso?", "O prazo é de dez dias úteis."),
            ("A quem dirijo o recurso?", "À autoridade que proferiu a decisão."),
            ("Posso recorrer por e-mail?", "Sim, envie para qualquer endereço."),
        ],
        start=1,
    )
]


class SmokeError(Exception):
    pass


class Client:
    def __init__(self, url: str, key: str) -> None:
        host = urlsplit(url).hostname or ""
        if host != "localhost" and not ipaddress.ip_address(host).is_loopback:
            raise SmokeError(f"{url}: the smoke session only talks to loopback addresses")
        self.url = url.rstrip("/")
        self.key = key

    def call(
        self, method: str, path: str, body: bytes | None = None, ctype: str | None = None
    ) -> tuple[int, bytes]:
        request = urllib.request.Request(self.url + path, data=body, method=method)
        request.add_header("X-API-Key", self.key)
        if ctype:
            request.add_header("Content-Type", ctype)
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def json(self, method: str, path: str, data: Any = None, want: int = 200) -> Any:
        body = None if data is None else json.dumps(data).encode()
        status, raw = self.call(method, path, body, "application/json" if body else None)
        if status != want:
            raise SmokeError(f"{method} {path}: HTTP {status} (expected {want}): {raw[:300]!r}")
        return json.loads(raw)

    def upload(self, path: str, name: str, content: bytes, ctype: str) -> Any:
        boundary = uuid.uuid4().hex
        body = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{name}"\r\n'
            f"Content-Type: {ctype}\r\n\r\n"
        ).encode() + content + f"\r\n--{boundary}--\r\n".encode()
        status, raw = self.call("POST", path, body, f"multipart/form-data; boundary={boundary}")
        if status != 202:
            raise SmokeError(f"POST {path}: HTTP {status} (expected 202): {raw[:300]!r}")
        return json.loads(raw)

    def wait(self, job_id: str, timeout: float = 300) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            status, raw = self.call("GET", f"/v1/jobs/{job_id}")
            if status == 429:  # polled faster than the key's rate limit: wait as told
                time.sleep(2)
                continue
            if status != 200:
                raise SmokeError(f"GET /v1/jobs/{job_id}: HTTP {status}: {raw[:300]!r}")
            job: dict[str, Any] = json.loads(raw)
            if job["status"] in ("succeeded", "partial", "failed", "cancelled"):
                return job
            if time.monotonic() > deadline:
                raise SmokeError(f"job {job_id} still {job['status']} after {timeout:.0f} s")
            time.sleep(1)


def step(name: str, detail: str) -> None:
    print(f"ok  {name:<11} {detail}", flush=True)


def session(client: Client, moderation: bool, collection: str) -> None:
    started = time.monotonic()
    health = urllib.request.urlopen(client.url + "/healthz", timeout=10)
    step("healthz", f"HTTP {health.status}")

    job = client.upload(
        f"/v1/collections/{collection}/documents", "regulamento.txt", DOC.encode(), "text/plain"
    )
    done = client.wait(job["id"])
    if done["status"] != "succeeded" or done["result"].get("documents") != 1:
        raise SmokeError(f"ingest job ended {done['status']}: {done.get('result') or done}")
    chunks = done["result"].get("chunks")
    step("ingest", f"job {job['id'][:8]} {done['status']}: 1 document, {chunks} chunks")

    found = client.json(
        "POST", "/v1/search", {"query": "prazo de recurso", "collections": [collection]}
    )
    top = found["hits"][0] if found["hits"] else {}
    if "dez dias" not in top.get("text", ""):
        raise SmokeError(f"search: the top passage does not hold the answer: {top}")
    step("search", f"{len(found['hits'])} hits, top: {top['text'][:60]!r}")

    answer = client.json(
        "POST", "/v1/ask", {"question": "Qual é o prazo de recurso?", "collections": [collection]}
    )
    cited = [c for c in answer["citations"] if c["supported"]]
    if not answer["answer"] or not (cited or answer["extractive"]):
        raise SmokeError(f"ask: no answer with a checked citation: {answer}")
    step(
        "ask",
        f"{len(cited)} checked citation(s), simulated={answer['simulated']}, "
        f"answer: {answer['answer'][:60]!r}",
    )

    if moderation:
        job = client.upload(
            "/v1/moderation/jobs", "lote.json", json.dumps(RECORDS).encode(), "application/json"
        )
        done = client.wait(job["id"])
        if done["status"] != "succeeded" or done["result"]["total"] != len(RECORDS):
            raise SmokeError(f"moderation job ended {done['status']}: {done.get('result')}")
        results = client.json("GET", f"/v1/moderation/jobs/{job['id']}/results")
        if results["total"] != len(RECORDS):
            raise SmokeError(f"moderation results: {results['total']} of {len(RECORDS)}")
        status, report = client.call(
            "GET", f"/v1/moderation/jobs/{job['id']}/report/{done['result']['report']}"
        )
        if status != 200 or b"<html" not in report.lower():
            raise SmokeError(f"moderation report: HTTP {status}")
        counts = {k: v for k, v in done["result"]["counts"].items() if v}
        step(
            "moderation",
            f"job {job['id'][:8]} {len(RECORDS)} records {counts}, report {len(report)} B",
        )
    step("done", f"session in {time.monotonic() - started:.1f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--moderation", action="store_true", help="also run a moderation job")
    parser.add_argument("--collection", default=f"smoke-{uuid.uuid4().hex[:6]}")
    args = parser.parse_args()
    try:
        session(Client(args.url, args.key), args.moderation, args.collection)
    except (SmokeError, OSError, ValueError, KeyError) as exc:
        print(f"FAIL {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
