"""The case registry over HTTP: a small JSON API, its server and the client adapter.

API (identifiers in paths use their URL-safe form, ``TC-000123-2024`` / ``EXP-2024-00123``)::

    GET  /v1/cases/{id}                 → {"kind": "process"|"expediente", "record": {...}} | 404
    GET  /v1/cases/{id}/parties         → [{"name", "role"}]
    GET  /v1/cases/{id}/movements?limit → [{"seq", "at", "from_unit", "to_unit", ...}] newest first
    GET  /v1/cases/{id}/documents?limit → [{"seq", "kind", "title", "date", "pages"}]
    GET  /v1/cases/{id}/location?today  → {"location", "since", "days", ...} | 404
    POST /v1/subscriptions              {"case", "contact", "key"} → {"key", ..., "created"}
    GET  /v1/counts                     → {"processes": n, ...}
    GET  /v1/cases?q=&limit             → {"total": n, "cases": [{"kind", "number", ...}]}

:func:`registry_app` serves any :class:`CaseRegistry` with that API (``colmeia registry
serve``); :class:`HTTPCaseRegistry` reads one, so an institution's own system can stand
behind the same URL if it speaks this API.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import socket
import threading
import time
from typing import Any

import httpx

from colmeia.apps.assistant.ids import CaseId, IdentifierError, parse_case_id
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
from colmeia.errors import ConfigurationError, StoreError

__all__ = ["HTTPCaseRegistry", "RegistryServer", "case_slug", "registry_app"]


def case_slug(case: CaseId) -> str:
    """The identifier in a form that fits in a URL path (no slashes)."""
    return case.canonical.replace("/", "-")


class HTTPCaseRegistry:
    """A :class:`CaseRegistry` read from a server speaking the API above."""

    def __init__(self, base_url: str, *, timeout: float = 10.0, api_key: str = "") -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ConfigurationError(
                f"registry URL must start with http:// or https://, got {base_url!r}"
            )
        self.url = base_url.rstrip("/")
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.AsyncClient(
            base_url=self.url, timeout=timeout, headers=headers, trust_env=False
        )

    async def _get(self, path: str, **params: Any) -> Any | None:
        try:
            resp = await self._client.get(path, params={k: v for k, v in params.items() if v})
        except httpx.HTTPError as exc:
            raise StoreError(
                f"o cadastro de processos em {self.url} não respondeu ({type(exc).__name__}); "
                "confira COLMEIA_ASSISTANT_REGISTRY e se o serviço do cadastro está no ar"
            ) from None
        if resp.status_code == 404:
            return None
        if resp.status_code >= 400:
            raise StoreError(
                f"o cadastro de processos em {self.url} respondeu HTTP {resp.status_code}"
            )
        try:
            return resp.json()
        except ValueError:
            raise StoreError(
                f"o cadastro de processos em {self.url} não respondeu em JSON"
            ) from None

    async def _case(self, case: CaseId) -> dict[str, Any] | None:
        data = await self._get(f"/v1/cases/{case_slug(case)}")
        if not isinstance(data, dict) or data.get("kind") != case.kind:
            return None
        record = data.get("record")
        return record if isinstance(record, dict) else None

    async def process(self, case: CaseId) -> Process | None:
        record = await self._case(case)
        return _build(Process, record) if record else None

    async def expediente(self, case: CaseId) -> Expediente | None:
        record = await self._case(case)
        return _build(Expediente, record) if record else None

    async def parties(self, case: CaseId) -> list[Party]:
        data = await self._get(f"/v1/cases/{case_slug(case)}/parties")
        return [_build(Party, r) for r in data or []]

    async def movements(self, case: CaseId, limit: int = 20) -> list[Movement]:
        data = await self._get(f"/v1/cases/{case_slug(case)}/movements", limit=limit)
        return [_build(Movement, r) for r in data or []]

    async def documents(self, case: CaseId, limit: int = 20) -> list[CaseDocument]:
        data = await self._get(f"/v1/cases/{case_slug(case)}/documents", limit=limit)
        return [_build(CaseDocument, r) for r in data or []]

    async def location(self, case: CaseId, today: dt.date | None = None) -> Location | None:
        data = await self._get(
            f"/v1/cases/{case_slug(case)}/location", today=today.isoformat() if today else None
        )
        if not isinstance(data, dict):
            return None
        last = data.get("last_movement")
        fields = {k: v for k, v in data.items() if k != "last_movement"}
        loc: Location = _build(Location, fields)
        loc.last_movement = _build(Movement, last) if isinstance(last, dict) else None
        return loc

    async def subscribe(self, case: CaseId, contact: str, key: str) -> Subscription:
        try:
            resp = await self._client.post(
                "/v1/subscriptions",
                json={"case": case.canonical, "contact": contact, "key": key},
                headers={"Idempotency-Key": key},
            )
        except httpx.HTTPError as exc:
            raise StoreError(
                f"o cadastro de processos em {self.url} não respondeu ({type(exc).__name__}); "
                "confira COLMEIA_ASSISTANT_REGISTRY e se o serviço do cadastro está no ar"
            ) from None
        if resp.status_code >= 400:
            raise StoreError(
                f"o cadastro de processos em {self.url} respondeu HTTP {resp.status_code}"
            )
        sub: Subscription = _build(Subscription, resp.json())
        return sub

    async def counts(self) -> dict[str, int]:
        data = await self._get("/v1/counts")
        return {str(k): int(v) for k, v in (data or {}).items()}

    async def find(self, text: str, limit: int = 20) -> tuple[int, list[CaseSummary]]:
        data = await self._get("/v1/cases", q=text, limit=limit)
        if not isinstance(data, dict):
            return 0, []
        cases = [_build(CaseSummary, r) for r in data.get("cases") or []]
        return int(data.get("total") or len(cases)), cases

    async def case_numbers(self, number: int, year: int | None = None) -> list[CaseId]:
        data = await self._get("/v1/numbers", number=number, year=year)
        out: list[CaseId] = []
        for raw in data if isinstance(data, list) else []:
            try:
                out.append(parse_case_id(str(raw)))
            except IdentifierError:
                continue  # a registry's odd row is not a case to offer
        return out

    async def close(self) -> None:
        await self._client.aclose()


def _build(cls: type[Any], data: Any) -> Any:
    if not isinstance(data, dict):
        raise StoreError(f"the case registry sent an unexpected {cls.__name__}: {data!r:.200}")
    names = set(getattr(cls, "__dataclass_fields__", {}))
    try:
        return cls(**{k: v for k, v in data.items() if k in names})
    except TypeError as exc:
        raise StoreError(f"the case registry sent an incomplete {cls.__name__}: {exc}") from None


def registry_app(registry: CaseRegistry) -> Any:
    """A Starlette application serving ``registry`` with the API of this module."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    def case_of(request: Request) -> CaseId:
        return parse_case_id(str(request.path_params["case"]))

    def limit_of(request: Request) -> int:
        try:
            return max(1, min(int(request.query_params.get("limit", "20")), 1000))
        except ValueError:
            return 20

    async def get_case(request: Request) -> JSONResponse:
        case = case_of(request)
        record: Process | Expediente | None = (
            await registry.process(case)
            if case.kind == "process"
            else await registry.expediente(case)
        )
        if record is None:
            return JSONResponse({"error": f"{case} not found"}, status_code=404)
        return JSONResponse({"kind": case.kind, "record": record.as_dict()})

    async def parties(request: Request) -> JSONResponse:
        return JSONResponse([p.as_dict() for p in await registry.parties(case_of(request))])

    async def movements(request: Request) -> JSONResponse:
        found = await registry.movements(case_of(request), limit_of(request))
        return JSONResponse([m.as_dict() for m in found])

    async def documents(request: Request) -> JSONResponse:
        found = await registry.documents(case_of(request), limit_of(request))
        return JSONResponse([d.as_dict() for d in found])

    async def location(request: Request) -> JSONResponse:
        raw = request.query_params.get("today")
        today = dt.date.fromisoformat(raw) if raw else None
        found = await registry.location(case_of(request), today)
        if found is None:
            return JSONResponse({"error": "not found"}, status_code=404)
        return JSONResponse(found.as_dict())

    async def subscribe(request: Request) -> JSONResponse:
        body = await request.json()
        key = str(body.get("key") or request.headers.get("idempotency-key") or "")
        case = parse_case_id(str(body.get("case", "")))
        sub = await registry.subscribe(case, str(body.get("contact", "")), key)
        return JSONResponse(sub.as_dict(), status_code=201 if sub.created else 200)

    async def counts(request: Request) -> JSONResponse:
        return JSONResponse(await registry.counts())

    async def find(request: Request) -> JSONResponse:
        total, found = await registry.find(request.query_params.get("q", ""), limit_of(request))
        return JSONResponse({"total": total, "cases": [c.as_dict() for c in found]})

    async def numbers(request: Request) -> JSONResponse:
        number = int(request.query_params.get("number", "0"))
        raw_year = request.query_params.get("year")
        found = await registry.case_numbers(number, int(raw_year) if raw_year else None)
        return JSONResponse([c.canonical for c in found])

    async def bad_id(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=400)

    return Starlette(
        routes=[
            Route("/v1/cases", find),
            Route("/v1/cases/{case}", get_case),
            Route("/v1/cases/{case}/parties", parties),
            Route("/v1/cases/{case}/movements", movements),
            Route("/v1/cases/{case}/documents", documents),
            Route("/v1/cases/{case}/location", location),
            Route("/v1/subscriptions", subscribe, methods=["POST"]),
            Route("/v1/counts", counts),
            Route("/v1/numbers", numbers),
        ],
        exception_handlers={IdentifierError: bad_id, ValueError: bad_id},
    )


class RegistryServer:
    """Serve a registry on a loopback port from a background thread (tests, demo, CLI)."""

    def __init__(self, registry: CaseRegistry, host: str = "127.0.0.1", port: int = 0) -> None:
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise ConfigurationError(
                f"the registry server listens on loopback only (127.0.0.1), not {host!r}"
            )
        self.registry = registry
        self.host = host
        self.port = port
        self._server: Any = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> RegistryServer:
        import uvicorn

        sock = socket.socket(socket.AF_INET6 if ":" in self.host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        self.port = int(sock.getsockname()[1])
        config = uvicorn.Config(
            registry_app(self.registry), log_level="warning", lifespan="off", access_log=False
        )
        self._server = server = uvicorn.Server(config)

        def run() -> None:
            try:
                asyncio.run(server.serve(sockets=[sock]))
            finally:
                sock.close()

        self._thread = threading.Thread(target=run, name="colmeia-registry", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise ConfigurationError(f"the registry server did not start on {self.url}")
            time.sleep(0.005)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(5)
        self._thread = self._server = None

    def __enter__(self) -> RegistryServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
