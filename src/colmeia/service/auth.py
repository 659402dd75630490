"""Who is calling: an API key, a bearer JWT (OIDC), or a web sign-in cookie; then the key's
rate limit and, for endpoints that spend model tokens, its token quota.

Every route depends on :func:`caller` (or :func:`metered_caller`/:func:`admin_caller`); the
:class:`Principal` it returns carries the tenant, and everything a route reads or writes is
looked up under that tenant only.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import Depends, HTTPException, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from colmeia.errors import ConfigurationError
from colmeia.service.keys import KeyInfo, Role, ensure_tenant, session_key, verify_key
from colmeia.service.settings import ServiceSettings
from colmeia.service.state import ServiceState

__all__ = [
    "SESSION_COOKIE",
    "Admin",
    "Caller",
    "JwtVerifier",
    "Metered",
    "Principal",
    "admin_caller",
    "authenticate",
    "caller",
    "metered_caller",
    "require_owner",
    "state_of",
]

SESSION_COOKIE = "colmeia_session"

_api_key = APIKeyHeader(
    name="X-API-Key", auto_error=False, description="An API key from `colmeia keys create`."
)
_bearer = HTTPBearer(
    auto_error=False, description="An API key, or a JWT from the configured OIDC provider."
)


@dataclass(frozen=True, slots=True)
class Principal:
    """The caller: tenant, who (for the audit log), role and limits."""

    tenant: str
    actor: str
    bucket: str
    role: Role
    rate_limit: int
    token_quota: int
    via: Literal["key", "jwt", "session"]


def require_owner(principal: Principal, created_by: str | None, what: str) -> None:
    """403 unless ``principal`` made the thing (``created_by``, its bucket) or is an admin:
    a member acts on their own jobs and reviews; reading stays open to the tenant. (A bucket
    is never empty, so a thing without a creator is an admin's alone.)"""
    if principal.role == "admin" or created_by == principal.bucket:
        return
    raise HTTPException(
        403, f"{what} belongs to another member of the tenant: only its creator or an admin may"
    )


def state_of(request: Request) -> ServiceState:
    """The service state of the app serving ``request``."""
    state: ServiceState = request.app.state.colmeia
    return state


class JwtVerifier:
    """Checks bearer JWTs: HS256 with a shared secret, or RS/ES keys from a JWKS."""

    def __init__(self, settings: ServiceSettings) -> None:
        import jwt

        self.settings = settings
        self.secret = settings.jwt_secret.get_secret_value()
        self._jwks_client: Any = None
        self._jwks: Any = None
        if settings.jwt_jwks_url:
            self._jwks_client = jwt.PyJWKClient(settings.jwt_jwks_url, cache_keys=True, timeout=5)
        elif settings.jwt_jwks_file:
            try:
                self._jwks = jwt.PyJWKSet.from_json(settings.jwt_jwks_file.read_text("utf-8"))
            except (OSError, ValueError, jwt.PyJWTError) as exc:
                raise ConfigurationError(
                    f"COLMEIA_SERVICE_JWT_JWKS_FILE={settings.jwt_jwks_file}: cannot read a "
                    f"JWKS from it ({exc})"
                ) from exc

    @property
    def enabled(self) -> bool:
        return bool(self.secret or self._jwks_client or self._jwks)

    def verify(self, token: str) -> dict[str, Any]:
        """The token's claims, or ``ValueError`` saying why it is not accepted."""
        import jwt

        try:
            header = jwt.get_unverified_header(token)
            alg = str(header.get("alg", ""))
            if alg.startswith("HS"):
                if not self.secret:
                    raise ValueError("HS-signed tokens are not accepted here")
                key: Any = self.secret
                algorithms = ["HS256", "HS384", "HS512"]
            else:
                if self._jwks_client is not None:
                    key = self._jwks_client.get_signing_key_from_jwt(token).key
                elif self._jwks is not None:
                    kid = header.get("kid")
                    matches = [k for k in self._jwks.keys if kid is None or k.key_id == kid]
                    if not matches:
                        raise ValueError(f"no key {kid!r} in the configured JWKS")
                    key = matches[0].key
                else:
                    raise ValueError("no JWKS is configured for signed tokens")
                algorithms = ["RS256", "RS384", "RS512", "ES256", "ES384", "PS256"]
            options = {"require": ["exp", "sub"]}
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=algorithms,
                audience=self.settings.jwt_audience,
                issuer=self.settings.jwt_issuer,
                options=options,  # type: ignore[arg-type]
                leeway=30,
            )
        except jwt.PyJWTError as exc:
            raise ValueError(str(exc)) from exc
        return claims


def _unauthorized(detail: str) -> HTTPException:
    return HTTPException(401, detail, headers={"WWW-Authenticate": "Bearer"})


def _from_key(info: KeyInfo, state: ServiceState, via: Literal["key", "session"]) -> Principal:
    return Principal(
        tenant=info.tenant_id,
        actor=f"key:{info.id}:{info.name}",
        bucket=f"key:{info.id}",
        role=info.role,
        rate_limit=info.rate_limit or state.service.rate_limit_per_minute,
        token_quota=info.token_quota or state.service.token_quota,
        via=via,
    )


def _from_jwt(token: str, state: ServiceState) -> Principal:
    verifier: JwtVerifier = state.extras["jwt"]
    try:
        claims = verifier.verify(token)
    except ValueError as exc:
        raise _unauthorized(f"the bearer token was refused: {exc}") from exc
    claim = state.service.jwt_tenant_claim
    tenant = claims.get(claim)
    if not isinstance(tenant, str):
        raise _unauthorized(f"the token has no {claim!r} claim naming the tenant")
    try:
        ensure_tenant(state.db, tenant)
    except ConfigurationError as exc:
        raise _unauthorized(f"the token's tenant is not valid: {exc}") from exc
    roles = claims.get("roles") or []
    subject = str(claims["sub"])
    return Principal(
        tenant=tenant,
        actor=f"jwt:{subject}",
        bucket=f"jwt:{tenant}:{subject}",
        role="admin" if isinstance(roles, list) and "admin" in roles else "member",
        rate_limit=state.service.rate_limit_per_minute,
        token_quota=state.service.token_quota,
        via="jwt",
    )


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin") or request.headers.get("referer")
    if not origin:
        return True
    from urllib.parse import urlsplit

    return urlsplit(origin).netloc == request.headers.get("host", "")


def _presented(request: Request) -> str | None:
    key = request.headers.get("x-api-key")
    if key:
        return key
    scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
    return credentials.strip() if scheme.lower() == "bearer" and credentials.strip() else None


async def authenticate(request: Request) -> Principal:
    """The principal behind the request's credentials (headers or the sign-in cookie), or a
    401. The service's ASGI middleware calls it before any body is read and keeps the answer
    in the request's state; the route dependencies reuse it."""
    known: Principal | None = request.scope.get("state", {}).get("authenticated")
    if known is not None:
        return known
    state = state_of(request)
    presented = _presented(request)
    if presented:
        if presented.startswith("cmk_"):
            info = await asyncio.to_thread(verify_key, state.db, presented)
            if info is None:
                raise _unauthorized("unknown or revoked API key")
            return _from_key(info, state, "key")
        if state.extras["jwt"].enabled and presented.count(".") == 2:
            return _from_jwt(presented, state)
        raise _unauthorized("the credentials are neither an API key nor an accepted token")
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        info = await asyncio.to_thread(session_key, state.db, cookie)
        if info is not None:
            if request.method not in ("GET", "HEAD", "OPTIONS") and not _same_origin(request):
                raise HTTPException(403, "cross-site request refused")
            return _from_key(info, state, "session")
    raise _unauthorized(
        "sign in: send `X-API-Key: cmk_…` or `Authorization: Bearer …` "
        "(create a key with `colmeia keys create --tenant NAME --name WHO`)"
    )


def _refuse(request: Request, reason: str, retry_after: int, detail: str) -> HTTPException:
    state_of(request).metrics.refusals.labels(reason).inc()
    return HTTPException(
        429,
        detail,
        headers={"Retry-After": str(retry_after), "X-Colmeia-Limit": reason},
    )


def _quota_refusal(principal: Principal, left: int, hold: int, retry_s: int) -> str:
    """Why a model-calling request cannot start, with the numbers and what to do."""
    head = (
        f"token quota of {principal.token_quota} tokens: {left} left, and a request holds up "
        f"to {hold} while it runs"
    )
    if left <= 0:
        return (
            f"{head}; none is left (spent, or held by this key's requests still running): "
            f"it renews in {retry_s}s"
        )
    return (
        f"{head} (the most one request may use: COLMEIA_SERVICE_REQUEST_TOKEN_RESERVE, capped "
        "at the key's quota), so no model-calling request can start until this key's running "
        f"requests end or the quota renews in {retry_s}s; ask the operator for a larger quota "
        "(colmeia keys create --token-quota) or a smaller reserve"
    )


async def _checked(request: Request, principal: Principal, *, metered: bool) -> Principal:
    state = state_of(request)
    request.state.principal = principal
    decision = await state.limiter.request(principal.bucket, principal.rate_limit)
    if not decision.allowed:
        raise _refuse(
            request,
            "rate_limit",
            decision.retry_after_s,
            f"rate limit of {principal.rate_limit} requests per minute reached; "
            f"retry in {decision.retry_after_s}s",
        )
    if metered:
        hold = min(state.service.request_token_reserve, principal.token_quota)
        quota, held = await state.limiter.reserve(principal.bucket, principal.token_quota, hold)
        if held is None:
            raise _refuse(
                request,
                "token_quota",
                quota.retry_after_s,
                _quota_refusal(principal, quota.remaining, hold, quota.retry_after_s),
            )
        request.state.reservation = held
    return principal


async def caller(
    request: Request,
    api_key: Annotated[str | None, Depends(_api_key)] = None,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)] = None,
) -> Principal:
    """Authenticated and within its rate limit."""
    return await _checked(request, await authenticate(request), metered=False)


async def metered_caller(
    request: Request,
    api_key: Annotated[str | None, Depends(_api_key)] = None,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)] = None,
) -> Principal:
    """Like :func:`caller`, and with tokens left in its quota (the route calls a model)."""
    return await _checked(request, await authenticate(request), metered=True)


async def admin_caller(principal: Annotated[Principal, Depends(caller)]) -> Principal:
    """A caller whose key has the admin role of its tenant."""
    if principal.role != "admin":
        raise HTTPException(
            403, "this needs an admin key of the tenant (colmeia keys create --admin)"
        )
    return principal


Caller = Annotated[Principal, Depends(caller)]
Metered = Annotated[Principal, Depends(metered_caller)]
Admin = Annotated[Principal, Depends(admin_caller)]
