"""The web UI: server-rendered pages (Jinja2) made live with htmx. Same process, same auth
(a sign-in cookie holding a session token, never the key), same app calls as the API.

Pages: sign-in; search + upload; the case registry (look a case up, list cases); moderation batches with live progress, results, report and
review queue; the assistant chat and the approval queue; literature reviews. Portuguese by
default (``?lang=en`` switches and is remembered).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, File, Form, HTTPException, Query, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from colmeia.errors import QueryError
from colmeia.rag.retrieve import Citation
from colmeia.service.auth import SESSION_COOKIE, Principal, caller, state_of
from colmeia.service.keys import create_session, delete_session, verify_key
from colmeia.service.names import NewName
from colmeia.service.routers.collections import start_ingestion
from colmeia.service.routers.moderation import (
    VerdictIn,
    give_verdict,
    moderation_job,
    read_results,
    review_item,
    review_queue,
    start_moderation,
)
from colmeia.service.routers.registry import case_id, find_case, list_cases
from colmeia.service.routers.search import retriever_for
from colmeia.service.web.i18n import LANGS, Lang, translate

__all__ = ["SignInRequired", "error_page", "router", "templates"]

_HERE = Path(__file__).parent
templates = Jinja2Templates(directory=str(_HERE / "templates"))
router = APIRouter(prefix="/ui", include_in_schema=False)
LANG_COOKIE = "colmeia_lang"


class SignInRequired(Exception):
    """The page needs a signed-in user: go to the sign-in page."""


async def web_caller(request: Request) -> Principal:
    """The signed-in user of a page, or a redirect to the sign-in page."""
    try:
        return await caller(request, None, None)
    except HTTPException as exc:
        if exc.status_code == 401:
            raise SignInRequired from exc
        raise


def language(request: Request) -> Lang:
    wanted = request.query_params.get("lang") or request.cookies.get(LANG_COOKIE) or ""
    if wanted in LANGS:
        return wanted
    return state_of(request).service.default_language


def page(
    request: Request,
    name: str,
    context: Mapping[str, Any] | None = None,
    *,
    principal: Principal | None = None,
    status: int = 200,
) -> HTMLResponse:
    """Render a template with the language, the signed-in user and the simulated flag."""
    lang = language(request)
    state = state_of(request)
    data = {
        "request": request,
        "lang": lang,
        "other_lang": "en" if lang == "pt" else "pt",
        "t": lambda key: translate(key, lang),
        "principal": principal,
        "simulated": state.simulated,
        "quote": lambda s: quote(str(s), safe=""),
        **(context or {}),
    }
    response = templates.TemplateResponse(request, name, data, status_code=status)
    if request.query_params.get("lang") in LANGS:
        response.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="lax")
    return response


def _error(request: Request, exc: HTTPException) -> HTMLResponse:
    """The message of what went wrong, as a fragment htmx swaps in place (it names no one:
    ``_error.html`` shows the message alone)."""
    return page(
        request,
        "_error.html",
        {"message": exc.detail},
        status=200,  # htmx swaps only 2xx answers by default: show the message in place
    )


def _error_page(
    request: Request, status: int, message: str, *, retry_after: str | None = None
) -> HTMLResponse:
    """A whole page saying what went wrong (a browser route never answers with JSON)."""
    principal = getattr(request.state, "principal", None)  # set once the caller is known
    response = page(
        request,
        "error.html",
        {"status": status, "message": message, "retry_after": retry_after},
        principal=principal,
        status=status,
    )
    if retry_after:
        response.headers["Retry-After"] = retry_after
    return response


def error_page(request: Request, exc: HTTPException) -> HTMLResponse:
    """The page for an HTTP error of a browser route (rate limits included); for an htmx
    request the fragment it swaps in place (``static/app.js`` swaps error fragments), with
    the status and the headers (``Retry-After``) kept. The service's refusals with a wait
    (rate limit, token quota) name it in their message, shown as it is."""
    if request.headers.get("hx-request"):
        response = page(
            request, "_error.html", {"message": str(exc.detail)}, status=exc.status_code
        )
        for name, value in (exc.headers or {}).items():
            response.headers[name] = value
        return response
    retry = (exc.headers or {}).get("Retry-After")
    return _error_page(request, exc.status_code, str(exc.detail), retry_after=retry)


# -- sign-in ---------------------------------------------------------------------------------


CSRF_COOKIE = "colmeia_csrf"


def _login_page(request: Request, *, failed: bool, status: int = 200) -> HTMLResponse:
    """The sign-in form with a fresh CSRF token, in the form and in a cookie (double submit):
    a sign-in posted from another site has neither the cookie's value nor our page."""
    import secrets

    token = secrets.token_urlsafe(24)
    response = page(request, "login.html", {"failed": failed, "csrf": token}, status=status)
    response.set_cookie(
        CSRF_COOKIE,
        token,
        max_age=3600,
        httponly=True,
        samesite="strict",
        secure=state_of(request).service.secure_cookies,
        path="/ui/login",
    )
    return response


def _from_elsewhere(request: Request) -> bool:
    """The request names an origin (Origin, else Referer) that is not this service."""
    from urllib.parse import urlsplit

    origin = request.headers.get("origin") or request.headers.get("referer")
    return bool(origin) and urlsplit(origin).netloc != request.headers.get("host", "")


@router.get("/login", response_class=HTMLResponse)
async def login_form(request: Request) -> HTMLResponse:
    return _login_page(request, failed=False)


@router.post("/login", response_model=None)
async def login(
    request: Request,
    key: str = Form(..., max_length=200),
    csrf: str = Form("", max_length=100),
) -> Response:
    import hmac
    import time

    state = state_of(request)
    expected = request.cookies.get(CSRF_COOKIE, "")
    if _from_elsewhere(request) or not expected or not hmac.compare_digest(csrf, expected):
        return _error_page(
            request, 403, "the sign-in form was not sent from this site's page; open it again"
        )
    client = request.client.host if request.client else "unknown"
    failures_key = f"authfail:{client}:{int(time.time() // 60)}"
    counters = state.limiter.counters
    if await counters.get(failures_key) >= state.service.auth_failures_per_minute:
        return _error_page(request, 429, "too many failed sign-ins; wait a minute and try again")
    info = await asyncio.to_thread(verify_key, state.db, key)
    if info is None:
        await counters.incr(failures_key, 1, 61)
        return _login_page(request, failed=True, status=401)
    token = await asyncio.to_thread(create_session, state.db, info, state.service.session_hours)
    response = RedirectResponse("/ui/search", status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=int(state.service.session_hours * 3600),
        httponly=True,
        samesite="strict",
        secure=state.service.secure_cookies,
    )
    return response


@router.post("/logout")
async def logout(request: Request) -> RedirectResponse:
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        await asyncio.to_thread(delete_session, state_of(request).db, token)
    response = RedirectResponse("/ui/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE)
    return response


# -- search and documents --------------------------------------------------------------------


async def _collections(request: Request, principal: Principal) -> list[Any]:
    store = state_of(request).tenants.store(principal.tenant)
    return await asyncio.to_thread(store.collections)


@router.get("/search", response_class=HTMLResponse)
async def search_page(request: Request, principal: Principal = Depends(web_caller)) -> HTMLResponse:
    return page(
        request,
        "search.html",
        {"collections": await _collections(request, principal)},
        principal=principal,
    )


@router.get("/collections", response_class=HTMLResponse)
async def collections_part(
    request: Request, principal: Principal = Depends(web_caller)
) -> HTMLResponse:
    return page(
        request,
        "_collections.html",
        {"collections": await _collections(request, principal)},
        principal=principal,
    )


@router.post("/search", response_class=HTMLResponse)
async def search_results(
    request: Request,
    principal: Principal = Depends(web_caller),
    query: str = Form(..., max_length=10_000),
    collection: str = Form(""),
) -> HTMLResponse:
    state = state_of(request)
    try:
        retriever = retriever_for(state, principal, [collection] if collection else [])
        hits = await retriever.asearch(query, 10)
    except HTTPException as exc:
        return _error(request, exc)
    except QueryError as exc:
        return _error(request, HTTPException(422, str(exc)))
    return page(request, "_results.html", {"query": query, "hits": hits}, principal=principal)


@router.post("/upload", response_class=HTMLResponse)
async def upload(
    request: Request,
    principal: Principal = Depends(web_caller),
    collection: NewName = Form(...),
    files: list[UploadFile] = File(...),
) -> HTMLResponse:
    state = state_of(request)
    try:
        job = await start_ingestion(state, principal, collection, files, "auto")
    except HTTPException as exc:
        return _error(request, exc)
    return page(request, "_job.html", {"job": job}, principal=principal)


@router.get("/jobs/{job_id}", response_class=HTMLResponse)
async def job_part(
    request: Request, job_id: str, principal: Principal = Depends(web_caller)
) -> HTMLResponse:
    job = await asyncio.to_thread(state_of(request).jobs.get, principal.tenant, job_id)
    if job is None:
        return _error(request, HTTPException(404, f"no job {job_id!r}"))
    response = page(request, "_job.html", {"job": job}, principal=principal)
    if job.status in ("succeeded", "partial"):
        response.headers["HX-Trigger"] = "job-done"  # the collection list refreshes
    return response


@router.get("/passage/{collection}/{chunk_id:path}", response_class=HTMLResponse)
async def passage(
    request: Request,
    collection: str,
    chunk_id: str,
    principal: Principal = Depends(web_caller),
) -> HTMLResponse:
    store = state_of(request).tenants.store(principal.tenant)
    if store.collection(collection) is None:
        return _error(request, HTTPException(404, f"no collection {collection!r}"))
    found = (await asyncio.to_thread(store.get_chunks, collection, [chunk_id])).get(chunk_id)
    if found is None:
        return _error(request, HTTPException(404, f"no passage {chunk_id!r}"))
    return page(
        request,
        "_passage.html",
        {"chunk": found, "citation": Citation.of_chunk(found), "collection": collection},
        principal=principal,
    )


# -- case registry ---------------------------------------------------------------------------


@router.get("/cases", response_class=HTMLResponse)
async def cases_page(
    request: Request,
    principal: Principal = Depends(web_caller),
    q: str = Query("", max_length=200),
    number: str = Query("", max_length=100),
) -> HTMLResponse:
    """Look a case up (its record, where it is and since when, its timeline) and list cases."""
    registry = state_of(request).tenants.registry(principal.tenant)
    found: dict[str, Any] | None = None
    problem = ""
    timeline: list[dict[str, Any]] = []
    if number.strip():
        try:
            found = await find_case(registry, number)
            moves = await registry.movements(case_id(number), limit=1000)
            timeline = [m.as_dict() for m in reversed(moves)]
        except HTTPException as exc:
            problem = str(exc.detail)
    page_ = await list_cases(request, principal, q=q, limit=20)
    return page(
        request,
        "cases.html",
        {
            "q": q,
            "number": number,
            "found": found,
            "problem": problem,
            "timeline": timeline,
            "cases": page_,
        },
        principal=principal,
    )


# -- moderation ------------------------------------------------------------------------------


@router.get("/moderation", response_class=HTMLResponse)
async def moderation_page(
    request: Request, principal: Principal = Depends(web_caller)
) -> HTMLResponse:
    state = state_of(request)
    jobs = await asyncio.to_thread(state.jobs.recent, principal.tenant, "moderation", 50)
    return page(
        request,
        "moderation.html",
        {"jobs": jobs, "has_model": state.model is not None},
        principal=principal,
    )


@router.post("/moderation", response_model=None)
async def moderation_start(
    request: Request,
    principal: Principal = Depends(web_caller),
    files: list[UploadFile] = File(...),
) -> Response:
    state = state_of(request)
    try:
        job = await start_moderation(state, principal, files, None, None, 8)
    except HTTPException as exc:
        return _error(request, exc)
    response = Response(status_code=204)
    response.headers["HX-Redirect"] = f"/ui/moderation/{job.id}"
    return response


@router.get("/moderation/{job_id}", response_class=HTMLResponse)
async def moderation_job_page(
    request: Request, job_id: str, principal: Principal = Depends(web_caller)
) -> HTMLResponse:
    state = state_of(request)
    try:
        job, folder = await asyncio.to_thread(moderation_job, state, principal, job_id)
    except HTTPException as exc:
        return _error(request, exc)
    lines = await asyncio.to_thread(read_results, folder)
    queue = None
    if job.status in ("succeeded", "partial"):
        queue = await asyncio.to_thread(review_queue, folder, None)
    return page(
        request,
        "moderation_job.html",
        {"job": job, "results": lines[:200], "total": len(lines), "queue": queue, "job_id": job.id},
        principal=principal,
    )


@router.post("/moderation/{job_id}/review/{key:path}", response_class=HTMLResponse)
async def moderation_verdict(
    request: Request,
    job_id: str,
    key: str,
    principal: Principal = Depends(web_caller),
    verdict: str = Form(..., pattern=r"^(accept|reject|edit)$"),
    edited_answer: str = Form("", max_length=20_000),
    note: str = Form("", max_length=2_000),
) -> HTMLResponse:
    state = state_of(request)
    try:
        _, folder = await asyncio.to_thread(moderation_job, state, principal, job_id)
        fields: dict[str, Any] = {"verdict": verdict, "note": note}
        if verdict == "edit":
            fields["edited_answer"] = edited_answer
        # the form's limits are VerdictIn's or stricter: what passed them validates
        body = VerdictIn.model_validate(fields)
        await asyncio.to_thread(give_verdict, folder, key, body, principal.actor)
        # the result the verdict was given on, in the review queue or not
        item = await asyncio.to_thread(review_item, folder, key)
    except HTTPException as exc:
        return _error(request, exc)
    if item is None:
        return _error(request, HTTPException(404, f"no result {key!r} in this job"))
    return page(request, "_review_item.html", {"item": item, "job_id": job_id}, principal=principal)


@router.get("/moderation/{job_id}/progress", response_class=HTMLResponse)
async def moderation_progress(
    request: Request, job_id: str, principal: Principal = Depends(web_caller)
) -> HTMLResponse:
    state = state_of(request)
    try:
        job, _ = await asyncio.to_thread(moderation_job, state, principal, job_id)
    except HTTPException as exc:
        return _error(request, exc)
    response = page(request, "_moderation_progress.html", {"job": job}, principal=principal)
    if job.status in ("succeeded", "partial", "failed", "cancelled"):
        response.headers["HX-Refresh"] = "true"  # show the results and report
    return response


# -- assistant chat and the approval queue -----------------------------------------------------


def _threads(state: Any, principal: Principal) -> list[Any]:
    """The threads the API lists for ``principal`` (its own, shared ones; all for an admin)."""
    from colmeia.service.routers.assistant import _thread_out, _visible

    rows = state.db.query(
        "SELECT * FROM threads WHERE tenant_id = ? ORDER BY updated_at DESC", (principal.tenant,)
    )
    return [_thread_out(r) for r in rows if _visible(r, principal)][:100]


@router.get("/chat", response_class=HTMLResponse)
async def chat_page(request: Request, principal: Principal = Depends(web_caller)) -> HTMLResponse:
    state = state_of(request)
    threads = await asyncio.to_thread(_threads, state, principal)
    return page(
        request,
        "chat.html",
        {
            "threads": threads,
            "thread": None,
            "messages": [],
            "collections": await _collections(request, principal),
        },
        principal=principal,
    )


@router.post("/chat/new")
async def chat_new(
    request: Request,
    principal: Principal = Depends(web_caller),
    collection: str = Form("", max_length=200),
) -> RedirectResponse:
    from colmeia.service.routers.assistant import ThreadCreate, create_thread

    made = await create_thread(request, ThreadCreate(collection=collection or None), principal)
    return RedirectResponse(f"/ui/chat/{made.id}", status_code=303)


@router.get("/chat/{thread_id}", response_class=HTMLResponse)
async def chat_thread(
    request: Request, thread_id: str, principal: Principal = Depends(web_caller)
) -> HTMLResponse:
    from colmeia.service.routers.assistant import get_thread

    state = state_of(request)
    try:
        thread = await get_thread(request, thread_id, principal)
    except HTTPException as exc:
        return _error(request, exc)
    return page(
        request,
        "chat.html",
        {
            "threads": await asyncio.to_thread(_threads, state, principal),
            "thread": thread,
            "messages": thread.get("messages", []),
            "collections": await _collections(request, principal),
        },
        principal=principal,
    )


@router.get("/approvals", response_class=HTMLResponse)
async def approvals_page(
    request: Request, principal: Principal = Depends(web_caller)
) -> HTMLResponse:
    from colmeia.service.routers.assistant import pending

    queue = await pending(request, principal)
    return page(request, "approvals.html", {"queue": queue}, principal=principal)


@router.post("/approvals/{thread_id}", response_class=HTMLResponse)
async def approvals_resume(
    request: Request,
    thread_id: str,
    principal: Principal = Depends(web_caller),
    action: str = Form("", pattern=r"^(|approve|reject)$"),
    text: str = Form("", max_length=8000),
) -> HTMLResponse:
    from colmeia.service.routers.assistant import ResumeIn, resume

    body = ResumeIn.model_validate({"action": action or None, "text": text or None})
    try:
        result = await resume(request, thread_id, body, principal)
    except HTTPException as exc:
        return _error(request, exc)
    return page(request, "_resumed.html", {"result": result}, principal=principal)


# -- literature reviews ------------------------------------------------------------------------


@router.get("/reviews", response_class=HTMLResponse)
async def reviews_page(
    request: Request, principal: Principal = Depends(web_caller)
) -> HTMLResponse:
    state = state_of(request)
    jobs = await asyncio.to_thread(state.jobs.recent, principal.tenant, "review", 50)
    return page(
        request,
        "reviews.html",
        {"jobs": jobs, "collections": await _collections(request, principal)},
        principal=principal,
    )


@router.post("/reviews", response_model=None)
async def reviews_start(
    request: Request,
    principal: Principal = Depends(web_caller),
    question: str = Form(..., min_length=3, max_length=2000),
    collection: NewName = Form(...),
    top: int = Form(10, ge=1, le=50),
) -> Response:
    from colmeia.service.routers.reviews import ReviewCreate, start_review

    try:
        job = await start_review(
            state_of(request),
            principal,
            ReviewCreate(question=question, collection=collection, top=top),
        )
    except HTTPException as exc:
        return _error(request, exc)
    return RedirectResponse(f"/ui/reviews/{job.id}", status_code=303)


@router.get("/reviews/{review_id}", response_class=HTMLResponse)
async def review_page(
    request: Request, review_id: str, principal: Principal = Depends(web_caller)
) -> HTMLResponse:
    from colmeia.service.routers.reviews import get_review

    try:
        found = await get_review(request, review_id, principal)
    except HTTPException as exc:
        return _error(request, exc)
    job = await asyncio.to_thread(state_of(request).jobs.get, principal.tenant, review_id)
    return page(
        request,
        "review.html",
        {"job": job, "review": found["review"], "review_simulated": found.get("simulated", False)},
        principal=principal,
    )


@router.post("/reviews/{review_id}/screening", response_class=HTMLResponse)
async def review_screening(
    request: Request,
    review_id: str,
    principal: Principal = Depends(web_caller),
    work: str = Form(..., max_length=500),
    decision: str = Form(..., pattern=r"^(include|exclude|pending)$"),
    reason: str = Form("", max_length=2000),
) -> HTMLResponse:
    """Include or exclude one work of a review (the API's screening), and show its row."""
    from colmeia.apps.literature import Review
    from colmeia.service.routers.reviews import Screening, review_file, screen

    error = ""
    try:
        body = Screening(work=work, decision=decision, reason=reason)
        await screen(request, review_id, body, principal)
    except HTTPException as exc:
        if exc.status_code != 422:
            return _error(request, exc)
        error = str(exc.detail)  # e.g. an exclusion without a reason: said on the row
    _, path = await asyncio.to_thread(review_file, state_of(request), principal, review_id)
    review = await asyncio.to_thread(Review.load, path)
    row = next((w for w in review.works if w.doc_id == work or str(w.rank) == work), None)
    if row is None:
        return _error(request, HTTPException(404, f"no work {work!r} in this review"))
    return page(
        request,
        "_screening_row.html",
        {"w": row, "job_id": review_id, "error": error},
        principal=principal,
    )


@router.post("/library", response_class=HTMLResponse)
async def library_upload(
    request: Request,
    principal: Principal = Depends(web_caller),
    collection: NewName = Form(...),
    files: list[UploadFile] = File(...),
) -> HTMLResponse:
    from colmeia.service.routers.reviews import import_library

    try:
        job = await import_library(request, collection, principal, files)
    except HTTPException as exc:
        return _error(request, exc)
    state = state_of(request)
    found = await asyncio.to_thread(state.jobs.get, principal.tenant, job.id)
    return page(request, "_job.html", {"job": found}, principal=principal)
