"""A fetch-URL tool: the readable text of a web page, with the usual SSRF guards.

Before any connection the URL is checked: only ``http``/``https``; the host is resolved and
*every* address it resolves to must be public (no loopback, private, link-local, multicast,
reserved or unspecified addresses, IPv4-mapped IPv6 included). The connection then goes to
the address that was checked (the ``Host`` header and TLS SNI keep the name), so a DNS answer
that changes between check and connect cannot redirect it. Redirects are followed by hand and
each hop is checked again. Size and time are bounded.

``allow_private=True`` (``COLMEIA_SEARCH_ALLOW_PRIVATE``) lets loopback and private networks
through, for tests and intranets; link-local addresses (cloud metadata) stay refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import re
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx

from colmeia.errors import ToolError, UnsafeTargetError
from colmeia.tools.registry import Tool

__all__ = [
    "FetchLimits",
    "check_url",
    "fetch_text",
    "fetch_url_tool",
    "html_to_text",
    "pinned_request",
    "pinned_stream",
]

log = logging.getLogger(__name__)

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml")


@dataclass(frozen=True, slots=True)
class FetchLimits:
    """How much one fetch may cost."""

    max_bytes: int = 2_000_000
    timeout: float = 15.0
    max_redirects: int = 5
    max_chars: int = 20_000


def _refusal(address: IPAddress, allow_private: bool) -> str | None:
    """Why ``address`` may not be contacted, or None if it may."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_link_local:
        return "link-local (cloud metadata and similar services)"
    if address.is_multicast or address.is_unspecified:
        return "multicast/unspecified"
    if allow_private:
        return None
    if address.is_loopback:
        return "loopback"
    if address.is_private:
        return "private network"
    if address.is_reserved or not address.is_global:
        return "reserved/non-public"
    return None


async def _resolve(host: str, port: int) -> list[IPAddress]:
    try:
        return [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        pass
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise ToolError(f"cannot resolve host {host!r}: {exc}") from None
    addresses: list[IPAddress] = []
    for info in infos:
        raw = str(info[4][0]).split("%", 1)[0]  # drop an IPv6 zone id
        addr = ipaddress.ip_address(raw)
        if addr not in addresses:
            addresses.append(addr)
    if not addresses:
        raise ToolError(f"host {host!r} resolved to no address")
    return addresses


@dataclass(frozen=True, slots=True)
class CheckedURL:
    """A URL that passed the checks, and the address to connect to."""

    url: str
    host: str
    port: int
    scheme: str
    addresses: tuple[IPAddress, ...]


async def check_url(url: str, *, allow_private: bool = False) -> CheckedURL:
    """Refuse unsafe URLs (:class:`UnsafeTargetError`) before any connection is made."""
    try:
        parts = urlsplit(url.strip())
    except ValueError as exc:
        raise ToolError(f"not a valid URL {url[:100]!r}: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise UnsafeTargetError(
            f"refusing to fetch {url[:100]!r}: only http:// and https:// URLs may be fetched"
        )
    host = parts.hostname
    if not host:
        raise ToolError(f"the URL {url[:100]!r} has no host name")
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        raise ToolError(f"the URL {url[:100]!r} has an invalid port") from None
    addresses = await _resolve(host, port)
    for address in addresses:
        reason = _refusal(address, allow_private)
        if reason is not None:
            raise UnsafeTargetError(
                f"refusing to fetch {url[:100]!r}: {host} resolves to {address}, a {reason} "
                "address. Only public addresses may be fetched (COLMEIA_SEARCH_ALLOW_PRIVATE=true "
                "allows private and loopback ones)."
            )
    return CheckedURL(url.strip(), host, port, scheme, tuple(addresses))


def html_to_text(html: str) -> tuple[str, str]:
    """``(title, text)`` of an HTML page: scripts, styles and navigation removed."""
    import lxml.html  # type: ignore[import-untyped]

    try:
        doc = lxml.html.document_fromstring(html)
    except Exception:  # lxml raises several types for junk; fall back to tag stripping
        return "", re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()
    for bad in doc.xpath("//script|//style|//noscript|//template|//svg|//nav|//footer"):
        bad.drop_tree()
    titles = doc.xpath("//title/text()")
    title = str(titles[0]).strip() if titles else ""
    for block in doc.xpath("//p|//br|//div|//li|//h1|//h2|//h3|//h4|//tr|//section|//article"):
        block.tail = "\n" + (block.tail or "")
    text = doc.text_content()
    lines = [re.sub(r"[ \t\r\f\v]+", " ", ln).strip() for ln in text.splitlines()]
    return title, "\n".join(ln for ln in lines if ln)


async def _get_once(
    client: httpx.AsyncClient, target: CheckedURL, limits: FetchLimits
) -> tuple[httpx.Response, bytes]:
    """GET from the first checked address that accepts a connection."""
    for n, address in enumerate(target.addresses, start=1):
        try:
            return await _get_from(client, target, address, limits)
        except httpx.ConnectError:
            if n == len(target.addresses):
                raise
    raise ToolError(f"{target.host} has no address to connect to")  # unreachable: never empty


def pinned_request(
    client: httpx.AsyncClient,
    target: CheckedURL,
    address: IPAddress | None = None,
    headers: dict[str, str] | None = None,
) -> httpx.Request:
    """A GET of ``target`` that connects to the address that passed the check (``address``,
    default its first), with the original ``Host`` and TLS name: the host is not resolved a
    second time, so a DNS answer that changes after the check (rebinding) is never used."""
    address = address or target.addresses[0]
    parts = urlsplit(target.url)
    ip = str(address)
    netloc_ip = f"[{ip}]" if address.version == 6 else ip
    default = 443 if target.scheme == "https" else 80
    netloc = netloc_ip if target.port == default else f"{netloc_ip}:{target.port}"
    pinned = urlunsplit((target.scheme, netloc, parts.path or "/", parts.query, ""))
    host_header = target.host if target.port == default else f"{target.host}:{target.port}"
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    return client.build_request(
        "GET", pinned, headers={**(headers or {}), "Host": host_header}, extensions=extensions
    )


@contextlib.asynccontextmanager
async def pinned_stream(
    client: httpx.AsyncClient, target: CheckedURL, headers: dict[str, str] | None = None
) -> AsyncIterator[httpx.Response]:
    """Stream a GET of a checked URL from its checked address (see :func:`pinned_request`)."""
    response = await client.send(pinned_request(client, target, None, headers), stream=True)
    try:
        yield response
    finally:
        await response.aclose()


async def _get_from(
    client: httpx.AsyncClient, target: CheckedURL, address: IPAddress, limits: FetchLimits
) -> tuple[httpx.Response, bytes]:
    request = pinned_request(client, target, address)
    response = await client.send(request, stream=True)
    try:
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body.extend(chunk)
            if len(body) > limits.max_bytes:
                raise ToolError(
                    f"{target.url[:100]} is larger than {limits.max_bytes} bytes; fetch a "
                    "smaller page"
                )
        return response, bytes(body)
    finally:
        await response.aclose()


async def fetch_text(
    url: str, *, allow_private: bool = False, limits: FetchLimits | None = None
) -> str:
    """Fetch ``url`` and return its title and text (cut at ``limits.max_chars``)."""
    lim = limits or FetchLimits()
    current = url
    try:
        async with asyncio.timeout(lim.timeout):
            async with httpx.AsyncClient(
                follow_redirects=False,
                timeout=lim.timeout,
                trust_env=False,  # a proxy from the environment would bypass the address check
                headers={
                    "User-Agent": "colmeia-fetch/0.1",
                    "Accept": "text/html,text/*;q=0.9,*/*;q=0.5",
                },
            ) as client:
                for _ in range(lim.max_redirects + 1):
                    target = await check_url(current, allow_private=allow_private)
                    response, body = await _get_once(client, target, lim)
                    if response.is_redirect and "location" in response.headers:
                        current = urljoin(target.url, response.headers["location"])
                        continue
                    break
                else:
                    raise ToolError(f"{url[:100]} redirected more than {lim.max_redirects} times")
    except TimeoutError:
        raise ToolError(f"fetching {url[:100]} took longer than {lim.timeout:g}s") from None
    except httpx.HTTPError as exc:
        raise ToolError(
            f"could not fetch {url[:100]}: {exc.__class__.__name__}: {exc}"[:400]
        ) from None
    if response.status_code >= 400:
        raise ToolError(f"{current[:100]} answered HTTP {response.status_code}")
    ctype = response.headers.get("content-type", "text/html").split(";")[0].strip().lower()
    if not ctype.startswith(_TEXT_TYPES):
        raise ToolError(f"{current[:100]} is {ctype}, not a text page; it cannot be read as text")
    text = body.decode(response.encoding or "utf-8", errors="replace")
    title = ""
    if "html" in ctype or text.lstrip()[:15].lower().startswith(("<!doctype", "<html")):
        title, text = html_to_text(text)
    if len(text) > lim.max_chars:
        text = text[: lim.max_chars] + f"\n[… cut at {lim.max_chars} characters]"
    return f"{title}\n\n{text}".strip() if title else text


def fetch_url_tool(*, allow_private: bool = False, limits: FetchLimits | None = None) -> Tool:
    """The ``fetch_url`` tool (public addresses only unless ``allow_private``)."""
    lim = limits or FetchLimits()

    async def fetch_url(url: str) -> str:
        """Fetch a web page and return its readable text (title first).

        Use it to read a page found by web search. Only public http(s) addresses can be read.

        Args:
            url: The full address of the page, starting with http:// or https://.
        """
        return await fetch_text(url, allow_private=allow_private, limits=lim)

    return Tool.from_function(fetch_url, timeout=lim.timeout + 5, tags=("web",))
