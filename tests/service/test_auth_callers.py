"""Who is calling, decided from a request's headers and cookie, without a server.

Each test builds the service's real state (SQLite tables, limiter, JWT verifier) and asks the
route dependencies (``caller``, ``metered_caller``, ``admin_caller``) about a request, as the
service does before any route runs: which tenant, actor, role and limits the caller gets, or the
exact refusal (status, message, headers) a client reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from fastapi import HTTPException
from service_helpers import service_settings
from starlette.applications import Starlette
from starlette.requests import Request

from colmeia.config import Settings
from colmeia.errors import ConfigurationError
from colmeia.service.app import build_state
from colmeia.service.auth import (
    SESSION_COOKIE,
    JwtVerifier,
    Principal,
    admin_caller,
    caller,
    metered_caller,
)
from colmeia.service.keys import create_key, create_session
from colmeia.service.settings import ServiceSettings
from colmeia.service.state import ServiceState

SECRET = "s3cret-for-tests-only-" + "0123456789abcdef" * 3
SIGN_IN = (
    "sign in: send `X-API-Key: cmk_…` or `Authorization: Bearer …` "
    "(create a key with `colmeia keys create --tenant NAME --name WHO`)"
)

Make = Callable[..., ServiceState]


@pytest.fixture
def make_state(tmp_path: Path) -> Iterator[Make]:
    made: list[ServiceState] = []

    def make(**service: Any) -> ServiceState:
        home = tmp_path / f"home{len(made)}"
        options = {"rate_limit_per_minute": 500, **service}
        state = build_state(Settings(home=home), service_settings(home, **options))
        made.append(state)
        return state

    yield make
    for state in made:
        state.tenants.close()
        state.db.close()


def _request(
    state: ServiceState,
    method: str = "GET",
    headers: dict[str, str] | None = None,
    cookie: str | None = None,
) -> Request:
    app = Starlette()
    app.state.colmeia = state
    raw = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    raw.append((b"host", b"colmeia.test"))
    if cookie is not None:
        raw.append((b"cookie", f"{SESSION_COOKIE}={cookie}".encode()))
    scope = {
        "type": "http",
        "method": method,
        "path": "/v1/me",
        "headers": raw,
        "query_string": b"",
        "app": app,
        "client": ("127.0.0.1", 50000),
    }
    return Request(scope)


def _call(state: ServiceState, *, metered: bool = False, **request: Any) -> Principal:
    dependency = metered_caller if metered else caller
    return asyncio.run(dependency(_request(state, **request)))


def _refused(state: ServiceState, *, metered: bool = False, **request: Any) -> HTTPException:
    with pytest.raises(HTTPException) as err:
        _call(state, metered=metered, **request)
    return err.value


def _key(state: ServiceState, tenant: str = "acme", name: str = "ci", **options: Any) -> Any:
    info, plain = create_key(state.db, tenant, name, **options)
    return info, plain


# -- API keys ------------------------------------------------------------------------------


def test_an_api_key_names_its_tenant_actor_and_the_services_default_limits(
    make_state: Make,
) -> None:
    state = make_state(rate_limit_per_minute=77, token_quota=9_000)
    info, plain = _key(state, name="ci bot")
    expected = Principal(
        tenant="acme",
        actor=f"key:{info.id}:ci bot",
        bucket=f"key:{info.id}",
        role="member",
        rate_limit=77,
        token_quota=9_000,
        via="key",
    )
    assert _call(state, headers={"X-API-Key": plain}) == expected
    assert _call(state, headers={"Authorization": f"Bearer {plain}"}) == expected
    assert _call(state, headers={"Authorization": f"bearer  {plain} "}) == expected


def test_a_keys_own_limits_and_role_replace_the_defaults(make_state: Make) -> None:
    state = make_state()
    _, plain = _key(state, "globex", "ops", role="admin", rate_limit=5, token_quota=40)
    got = _call(state, headers={"X-API-Key": plain})
    assert (got.tenant, got.role, got.rate_limit, got.token_quota) == ("globex", "admin", 5, 40)
    assert asyncio.run(admin_caller(got)) == got


def test_a_member_key_is_refused_where_an_admin_key_is_needed(make_state: Make) -> None:
    state = make_state()
    _, plain = _key(state)
    member = _call(state, headers={"X-API-Key": plain})
    with pytest.raises(HTTPException) as err:
        asyncio.run(admin_caller(member))
    assert err.value.status_code == 403
    assert err.value.detail == "this needs an admin key of the tenant (colmeia keys create --admin)"


def test_an_unknown_or_revoked_key_is_a_401_that_asks_for_a_bearer(make_state: Make) -> None:
    state = make_state()
    refusal = _refused(state, headers={"X-API-Key": "cmk_000000000000_" + "x" * 43})
    assert (refusal.status_code, refusal.detail) == (401, "unknown or revoked API key")
    assert refusal.headers == {"WWW-Authenticate": "Bearer"}
    refusal = _refused(state, headers={"Authorization": "Bearer cmk_nope"})
    assert (refusal.status_code, refusal.detail) == (401, "unknown or revoked API key")


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Basic YWxhZGRpbjpvcGVuc2VzYW1l"},
        {"Authorization": "Bearer "},
        {"Authorization": "Bearer"},
        {"X-API-Key": ""},
    ],
)
def test_a_request_without_credentials_is_told_how_to_sign_in(
    make_state: Make, headers: dict[str, str]
) -> None:
    refusal = _refused(make_state(), headers=headers)
    assert (refusal.status_code, refusal.detail) == (401, SIGN_IN)
    assert refusal.headers == {"WWW-Authenticate": "Bearer"}


@pytest.mark.parametrize("token", ["a.b.c", "not-a-key", "x.y"])
def test_a_token_is_refused_plainly_when_no_jwt_is_configured(make_state: Make, token: str) -> None:
    refusal = _refused(make_state(), headers={"Authorization": f"Bearer {token}"})
    assert (refusal.status_code, refusal.detail) == (
        401,
        "the credentials are neither an API key nor an accepted token",
    )


# -- limits --------------------------------------------------------------------------------


def test_the_request_over_a_keys_rate_limit_is_a_429_saying_when_to_retry(
    make_state: Make,
) -> None:
    state = make_state()
    _, plain = _key(state, rate_limit=2)
    _, other = _key(state, name="other", rate_limit=2)
    for _ in range(2):
        _call(state, headers={"X-API-Key": plain})
    refusal = _refused(state, headers={"X-API-Key": plain})
    assert refusal.status_code == 429 and refusal.headers is not None
    wait = int(refusal.headers["Retry-After"])
    assert 1 <= wait <= 60
    assert refusal.headers["X-Colmeia-Limit"] == "rate_limit"
    assert refusal.detail == f"rate limit of 2 requests per minute reached; retry in {wait}s"
    assert _call(state, headers={"X-API-Key": other}).rate_limit == 2  # counted per key
    refusals = state.metrics.refusals.labels("rate_limit")._value.get()
    assert refusals == 1


def test_a_model_calling_request_holds_tokens_and_is_refused_once_the_quota_is_used(
    make_state: Make,
) -> None:
    state = make_state(request_token_reserve=20, quota_window_s=3600)
    info, plain = _key(state, token_quota=50)
    request = _request(state, "POST", headers={"X-API-Key": plain})
    principal = asyncio.run(metered_caller(request))
    held = request.state.reservation
    assert (held.tokens, principal.token_quota) == (20, 50)
    asyncio.run(state.limiter.settle(held, 50))  # the request used the whole quota
    # a request that calls no model is still served
    assert _call(state, headers={"X-API-Key": plain}).tenant == "acme"
    refusal = _refused(state, metered=True, method="POST", headers={"X-API-Key": plain})
    assert refusal.status_code == 429 and refusal.headers is not None
    wait = int(refusal.headers["Retry-After"])
    assert 1 <= wait <= 3600 and refusal.headers["X-Colmeia-Limit"] == "token_quota"
    assert refusal.detail == (
        "token quota of 50 tokens: 0 left, and a request holds up to 20 while it runs; none "
        f"is left (spent, or held by this key's requests still running): it renews in {wait}s"
    )
    assert state.metrics.refusals.labels("token_quota")._value.get() == 1
    assert info.id in principal.bucket


def test_a_key_with_fewer_tokens_left_than_a_hold_is_told_why_and_what_to_do(
    make_state: Make,
) -> None:
    # issue 34: a 500-token key with 220 left answered 429 to every request, saying only
    # that "a request holds up to 500"
    state = make_state(request_token_reserve=3000, quota_window_s=3600)
    _, plain = _key(state, token_quota=500)
    request = _request(state, "POST", headers={"X-API-Key": plain})
    asyncio.run(metered_caller(request))
    asyncio.run(state.limiter.settle(request.state.reservation, 280))
    refusal = _refused(state, metered=True, method="POST", headers={"X-API-Key": plain})
    assert refusal.status_code == 429
    detail = str(refusal.detail)
    assert detail.startswith(
        "token quota of 500 tokens: 220 left, and a request holds up to 500 while it runs"
    )
    assert "COLMEIA_SERVICE_REQUEST_TOKEN_RESERVE" in detail and "larger quota" in detail


def test_a_quota_smaller_than_one_requests_hold_caps_the_hold(make_state: Make) -> None:
    state = make_state(request_token_reserve=3000)
    _, plain = _key(state, token_quota=30)
    request = _request(state, "POST", headers={"X-API-Key": plain})
    asyncio.run(metered_caller(request))
    assert request.state.reservation.tokens == 30
    refusal = _refused(state, metered=True, method="POST", headers={"X-API-Key": plain})
    assert refusal.detail.startswith(
        "token quota of 30 tokens: 0 left, and a request holds up to 30 while it runs"
    )


def test_a_request_already_authenticated_is_not_checked_again(make_state: Make) -> None:
    state = make_state()
    _, plain = _key(state, rate_limit=5)
    request = _request(state, headers={"X-API-Key": plain})
    first = asyncio.run(caller(request))
    assert request.state.principal == first
    known = _request(state, headers={"X-API-Key": "cmk_000000000000_" + "x" * 43})
    known.scope["state"] = {"authenticated": first}
    assert asyncio.run(metered_caller(known)) is not None  # its key was already verified


# -- web sign-in cookie ----------------------------------------------------------------------


def test_a_sign_in_cookie_names_the_key_it_was_made_for(make_state: Make) -> None:
    state = make_state()
    info, _ = _key(state, name="browser", role="admin")
    token = create_session(state.db, info, hours=1)
    got = _call(state, cookie=token)
    assert (got.tenant, got.role, got.via, got.actor) == (
        "acme",
        "admin",
        "session",
        f"key:{info.id}:browser",
    )
    refusal = _refused(state, cookie=token + "x")
    assert (refusal.status_code, refusal.detail) == (401, SIGN_IN)
    # a key sent with the request wins over the cookie
    _, other = _key(state, "globex", "api")
    assert _call(state, cookie=token, headers={"X-API-Key": other}).tenant == "globex"


@pytest.mark.parametrize(
    ("headers", "allowed"),
    [
        ({}, True),
        ({"Origin": "http://colmeia.test"}, True),
        ({"Referer": "https://colmeia.test/ui/search?q=x"}, True),
        ({"Origin": "https://evil.example"}, False),
        ({"Referer": "https://evil.example/page"}, False),
        ({"Origin": "http://colmeia.test.evil.example"}, False),
    ],
)
def test_a_cookie_request_that_changes_something_must_come_from_this_site(
    make_state: Make, headers: dict[str, str], allowed: bool
) -> None:
    state = make_state()
    info, _ = _key(state)
    token = create_session(state.db, info, hours=1)
    for method in ("GET", "HEAD", "OPTIONS"):  # reading is allowed from anywhere
        assert _call(state, method=method, cookie=token, headers=headers).via == "session"
    for method in ("POST", "DELETE"):
        if allowed:
            assert _call(state, method=method, cookie=token, headers=headers).via == "session"
        else:
            refusal = _refused(state, method=method, cookie=token, headers=headers)
            assert (refusal.status_code, refusal.detail) == (403, "cross-site request refused")


# -- JWT --------------------------------------------------------------------------------------


def _hs(claims: dict[str, Any], secret: str = SECRET, alg: str = "HS256") -> str:
    body = {"sub": "maria", "tenant": "acme", "exp": int(time.time()) + 300, **claims}
    return jwt.encode({k: v for k, v in body.items() if v is not None}, secret, algorithm=alg)


def test_a_jwt_names_its_tenant_subject_and_admin_role(make_state: Make) -> None:
    state = make_state(jwt_secret=SECRET, rate_limit_per_minute=9, token_quota=99)
    token = _hs({"tenant": "nova-empresa", "roles": ["viewer", "admin"]})
    got = _call(state, headers={"Authorization": f"Bearer {token}"})
    assert got == Principal(
        tenant="nova-empresa",
        actor="jwt:maria",
        bucket="jwt:nova-empresa:maria",
        role="admin",
        rate_limit=9,
        token_quota=99,
        via="jwt",
    )
    # a tenant first seen in a token is created
    assert state.db.one("SELECT id FROM tenants WHERE id = 'nova-empresa'") is not None
    for roles in (["viewer"], "admin", None):
        member = _call(state, headers={"Authorization": f"Bearer {_hs({'roles': roles})}"})
        assert member.role == "member"


def test_each_jwt_subject_has_its_own_rate_limit(make_state: Make) -> None:
    state = make_state(jwt_secret=SECRET, rate_limit_per_minute=1)
    maria = {"Authorization": f"Bearer {_hs({'sub': 'maria'})}"}
    joao = {"Authorization": f"Bearer {_hs({'sub': 'joao'})}"}
    _call(state, headers=maria)
    assert _call(state, headers=joao).bucket == "jwt:acme:joao"
    assert _refused(state, headers=maria).status_code == 429


def test_the_tenant_claim_can_be_renamed_and_must_name_a_valid_tenant(make_state: Make) -> None:
    state = make_state(jwt_secret=SECRET, jwt_tenant_claim="org")
    got = _call(state, headers={"Authorization": f"Bearer {_hs({'org': 'globex'})}"})
    assert got.tenant == "globex"
    refusal = _refused(state, headers={"Authorization": f"Bearer {_hs({'org': None})}"})
    assert (refusal.status_code, refusal.detail) == (
        401,
        "the token has no 'org' claim naming the tenant",
    )
    assert refusal.headers == {"WWW-Authenticate": "Bearer"}
    refusal = _refused(state, headers={"Authorization": f"Bearer {_hs({'org': 42})}"})
    assert refusal.detail == "the token has no 'org' claim naming the tenant"
    refusal = _refused(state, headers={"Authorization": f"Bearer {_hs({'org': 'Bad Org'})}"})
    assert (refusal.status_code, refusal.detail) == (
        401,
        "the token's tenant is not valid: invalid tenant 'Bad Org': "
        "use 1-32 lowercase letters, digits, '-' or '_'",
    )
    assert refusal.headers == {"WWW-Authenticate": "Bearer"}


def test_a_refused_jwt_says_why(make_state: Make) -> None:
    state = make_state(jwt_secret=SECRET)
    expired = _hs({"exp": int(time.time()) - 120})
    refusal = _refused(state, headers={"Authorization": f"Bearer {expired}"})
    assert (refusal.status_code, refusal.detail) == (
        401,
        "the bearer token was refused: Signature has expired",
    )
    assert refusal.headers == {"WWW-Authenticate": "Bearer"}
    forged = _hs({}, secret="another-secret-" + "0123456789abcdef" * 3)
    refusal = _refused(state, headers={"Authorization": f"Bearer {forged}"})
    assert refusal.detail == "the bearer token was refused: Signature verification failed"


# -- the verifier itself ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rsa_key() -> Any:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _jwks(key: Any, kid: str) -> str:
    public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    public.update({"kid": kid, "use": "sig", "alg": "RS256"})
    return json.dumps({"keys": [public]})


def _rs(key: Any, kid: str | None, **claims: Any) -> str:
    body = {"sub": "maria", "tenant": "acme", "exp": int(time.time()) + 300, **claims}
    headers = {"kid": kid} if kid is not None else None
    return jwt.encode(body, key, algorithm="RS256", headers=headers)


def _verifier(tmp_path: Path, **options: Any) -> JwtVerifier:
    return JwtVerifier(ServiceSettings(**options))


def test_the_verifier_is_on_only_when_a_secret_or_keys_are_configured(
    tmp_path: Path, rsa_key: Any
) -> None:
    jwks = tmp_path / "jwks.json"
    jwks.write_text(_jwks(rsa_key, "k1"), encoding="utf-8")
    assert not _verifier(tmp_path).enabled
    assert _verifier(tmp_path, jwt_secret=SECRET).enabled
    assert _verifier(tmp_path, jwt_jwks_file=jwks).enabled
    assert _verifier(tmp_path, jwt_jwks_url="http://127.0.0.1:9/jwks.json").enabled


def test_a_jwks_file_that_cannot_be_read_is_a_configuration_error(tmp_path: Path) -> None:
    for content in (None, "not json", '{"keys": []}'):
        path = tmp_path / "jwks.json"
        if content is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(content, encoding="utf-8")
        with pytest.raises(ConfigurationError) as err:
            _verifier(tmp_path, jwt_jwks_file=path)
        assert str(err.value).startswith(
            f"COLMEIA_SERVICE_JWT_JWKS_FILE={path}: cannot read a JWKS from it ("
        )


def test_hs_tokens_are_checked_against_the_secret_only(tmp_path: Path, rsa_key: Any) -> None:
    verifier = _verifier(tmp_path, jwt_secret=SECRET)
    for alg in ("HS256", "HS384", "HS512"):
        assert verifier.verify(_hs({"n": alg}, alg=alg))["n"] == alg
    jwks = tmp_path / "jwks.json"
    jwks.write_text(_jwks(rsa_key, "k1"), encoding="utf-8")
    with pytest.raises(ValueError, match=r"^HS-signed tokens are not accepted here$"):
        _verifier(tmp_path, jwt_jwks_file=jwks).verify(_hs({}))
    with pytest.raises(ValueError, match=r"^no JWKS is configured for signed tokens$"):
        verifier.verify(_rs(rsa_key, "k1"))


def test_signed_tokens_are_checked_against_the_jwks_key_they_name(
    tmp_path: Path, rsa_key: Any
) -> None:
    jwks = tmp_path / "jwks.json"
    jwks.write_text(_jwks(rsa_key, "k1"), encoding="utf-8")
    verifier = _verifier(tmp_path, jwt_jwks_file=jwks)
    assert verifier.verify(_rs(rsa_key, "k1"))["tenant"] == "acme"
    assert verifier.verify(_rs(rsa_key, None))["sub"] == "maria"  # no kid: the key there is
    with pytest.raises(ValueError, match=r"^no key 'k2' in the configured JWKS$"):
        verifier.verify(_rs(rsa_key, "k2"))
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    with pytest.raises(ValueError, match="Signature verification failed"):
        verifier.verify(_rs(other, "k1"))


def test_a_token_needs_a_subject_and_an_expiry_and_gets_30_s_of_leeway(tmp_path: Path) -> None:
    verifier = _verifier(tmp_path, jwt_secret=SECRET)
    with pytest.raises(ValueError, match='"sub"'):
        verifier.verify(_hs({"sub": None}))
    with pytest.raises(ValueError, match='"exp"'):
        verifier.verify(_hs({"exp": None}))
    assert verifier.verify(_hs({"exp": int(time.time()) - 20}))["sub"] == "maria"
    with pytest.raises(ValueError, match="Signature has expired"):
        verifier.verify(_hs({"exp": int(time.time()) - 45}))
    with pytest.raises(ValueError, match=r"Not enough segments|Invalid header"):
        verifier.verify("not.a-token")


def _public_jwk(key: Any, kid: str, alg: str) -> dict[str, Any]:
    family = jwt.algorithms.ECAlgorithm if alg.startswith("ES") else jwt.algorithms.RSAAlgorithm
    public: dict[str, Any] = json.loads(family.to_jwk(key.public_key()))
    public.update({"kid": kid, "use": "sig", "alg": alg})
    return public


def test_every_signed_algorithm_a_provider_uses_is_accepted_from_the_jwks(
    tmp_path: Path, rsa_key: Any
) -> None:
    # RS*, PS256 (RSA keys) and ES256/ES384 (EC keys): the ones identity providers sign with
    keys = {
        "RS256": rsa_key,
        "RS384": rsa_key,
        "RS512": rsa_key,
        "PS256": rsa_key,
        "ES256": ec.generate_private_key(ec.SECP256R1()),
        "ES384": ec.generate_private_key(ec.SECP384R1()),
    }
    jwks = tmp_path / "jwks.json"
    public = [_public_jwk(key, alg.lower(), alg) for alg, key in keys.items()]
    jwks.write_text(json.dumps({"keys": public}), encoding="utf-8")
    verifier = _verifier(tmp_path, jwt_jwks_file=jwks)
    for alg, key in keys.items():
        body = {"sub": "maria", "tenant": "acme", "exp": int(time.time()) + 300, "alg": alg}
        token = jwt.encode(body, key, algorithm=alg, headers={"kid": alg.lower()})
        assert verifier.verify(token)["alg"] == alg
    # an unsigned token is never accepted, whatever the JWKS holds
    unsigned = jwt.encode({"sub": "maria", "exp": int(time.time()) + 300}, None, algorithm="none")
    with pytest.raises(ValueError, match="alg"):
        verifier.verify(unsigned)


def test_keys_are_fetched_from_the_jwks_url_and_kept(tmp_path: Path, rsa_key: Any) -> None:
    served = _jwks(rsa_key, "k1").encode()
    fetched: list[str] = []

    class Jwks(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            fetched.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(served)))
            self.end_headers()
            self.wfile.write(served)

        def log_message(self, *_: Any) -> None:
            return None

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Jwks)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/.well-known/jwks.json"
        verifier = _verifier(tmp_path, jwt_jwks_url=url)
        for _ in range(3):
            assert verifier.verify(_rs(rsa_key, "k1"))["tenant"] == "acme"
        assert fetched == ["/.well-known/jwks.json"]  # once, then from the cache
        with pytest.raises(ValueError, match="k2"):
            verifier.verify(_rs(rsa_key, "k2"))
    finally:
        server.shutdown()
        server.server_close()


def test_a_jwks_url_that_never_answers_refuses_the_token_within_seconds(
    tmp_path: Path, rsa_key: Any
) -> None:
    # a listener that takes the connection and says nothing: the fetch's own timeout ends the
    # wait, and the token is refused (a sign-in must not hang on a stuck identity provider)
    from concurrent.futures import ThreadPoolExecutor

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []

    def accept() -> None:
        server.settimeout(30)
        with contextlib.suppress(OSError):
            while True:
                held.append(server.accept()[0])

    threading.Thread(target=accept, daemon=True).start()
    url = f"http://127.0.0.1:{server.getsockname()[1]}/jwks.json"
    verifier = _verifier(tmp_path, jwt_jwks_url=url)
    pool = ThreadPoolExecutor(1)
    try:
        pending = pool.submit(verifier.verify, _rs(rsa_key, "k1"))
        with pytest.raises(ValueError, match="timed out"):
            pending.result(timeout=20)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        server.close()
        for c in held:
            c.close()


def test_the_leeway_is_thirty_seconds_to_the_second(tmp_path: Path) -> None:
    verifier = _verifier(tmp_path, jwt_secret=SECRET)
    if time.time() % 1 > 0.5:  # both checks within one clock second
        time.sleep(1.02 - time.time() % 1)
    now = int(time.time())
    assert verifier.verify(_hs({"exp": now - 29}))["sub"] == "maria"
    with pytest.raises(ValueError, match="Signature has expired"):
        verifier.verify(_hs({"exp": now - 30}))


def test_audience_and_issuer_are_required_when_configured(tmp_path: Path) -> None:
    verifier = _verifier(
        tmp_path, jwt_secret=SECRET, jwt_audience="colmeia", jwt_issuer="https://idp.test"
    )
    good = {"aud": "colmeia", "iss": "https://idp.test"}
    assert verifier.verify(_hs(good))["aud"] == "colmeia"
    with pytest.raises(ValueError, match="Audience doesn't match"):
        verifier.verify(_hs({**good, "aud": "other"}))
    with pytest.raises(ValueError, match="issuer"):
        verifier.verify(_hs({**good, "iss": "https://evil.test"}))
    # without them configured, a token's aud and iss are not checked
    assert _verifier(tmp_path, jwt_secret=SECRET).verify(_hs({"iss": "x"}))["iss"] == "x"


def test_each_key_has_its_own_token_quota(make_state: Make) -> None:
    state = make_state(request_token_reserve=50)
    _, spender = _key(state, name="spender", token_quota=50)
    _, other = _key(state, name="other", token_quota=50)
    request = _request(state, "POST", headers={"X-API-Key": spender})
    asyncio.run(metered_caller(request))
    asyncio.run(state.limiter.settle(request.state.reservation, 50))
    assert (
        _refused(state, metered=True, method="POST", headers={"X-API-Key": spender}).status_code
        == 429
    )
    assert _call(state, metered=True, method="POST", headers={"X-API-Key": other}).token_quota == 50


def test_a_token_expired_exactly_30_s_ago_is_refused(tmp_path: Path) -> None:
    verifier = _verifier(tmp_path, jwt_secret=SECRET)
    time.sleep(1 - time.time() % 1)  # at the start of a second, so the check runs within it
    with pytest.raises(ValueError, match="Signature has expired"):
        verifier.verify(_hs({"exp": int(time.time()) - 30}))


@pytest.fixture(scope="module")
def ec_keys() -> dict[str, Any]:
    from cryptography.hazmat.primitives.asymmetric import ec

    return {
        "ES256": ec.generate_private_key(ec.SECP256R1()),
        "ES384": ec.generate_private_key(ec.SECP384R1()),
    }


def _jwks_of(keys: dict[str, Any]) -> str:
    out = []
    for kid, key in keys.items():
        algorithm = (
            jwt.algorithms.ECAlgorithm if kid.startswith("ES") else jwt.algorithms.RSAAlgorithm
        )
        public = json.loads(algorithm.to_jwk(key.public_key()))
        public.update({"kid": kid, "use": "sig"})
        out.append(public)
    return json.dumps({"keys": out})


@pytest.mark.parametrize("alg", ["RS256", "RS384", "RS512", "PS256", "ES256", "ES384"])
def test_every_signature_an_oidc_provider_may_use_is_accepted(
    tmp_path: Path, rsa_key: Any, ec_keys: dict[str, Any], alg: str
) -> None:
    keys = {"rsa": rsa_key, **ec_keys}
    jwks = tmp_path / "jwks.json"
    jwks.write_text(_jwks_of(keys), encoding="utf-8")
    kid = alg if alg.startswith("ES") else "rsa"
    body = {"sub": "maria", "tenant": "acme", "exp": int(time.time()) + 60}
    token = jwt.encode(body, keys[kid], algorithm=alg, headers={"kid": kid})
    assert _verifier(tmp_path, jwt_jwks_file=jwks).verify(token)["sub"] == "maria"


def test_signed_tokens_are_checked_against_the_keys_at_the_jwks_url(
    tmp_path: Path, rsa_key: Any
) -> None:
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from threading import Thread

    payload = _jwks(rsa_key, "k1").encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/jwks.json"
        verifier = _verifier(tmp_path, jwt_jwks_url=url)
        assert verifier.verify(_rs(rsa_key, "k1"))["tenant"] == "acme"
        other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        with pytest.raises(ValueError, match="Signature verification failed"):
            verifier.verify(_rs(other, "k1"))
        with pytest.raises(ValueError, match="Unable to find a signing key"):
            verifier.verify(_rs(rsa_key, "k2"))
    finally:
        server.shutdown()
        server.server_close()
