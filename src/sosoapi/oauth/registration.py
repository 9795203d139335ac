"""Dynamic client registration, bounded (RFC 7591): who may register what, and how often.

Registration is open to anyone (MCP clients register themselves), so what one caller can
make the server store is bounded here: a body over 16 KiB is refused before it is parsed
(413); registrations and authorization requests are rate-limited per client address (429
with `Retry-After`); a client's redirect URIs must be ones a browser can safely be sent to
(`https`, `http` on a loopback host, or a private-use scheme of reverse-domain form, RFC
8252; no fragment; at most 10) and its name short and free of control and bidi characters
(`invalid_redirect_uri` / `invalid_client_metadata`). The store's sweeper removes clients
that never completed a sign-in and stale consent requests (`grants.py`); docs/oauth.md
sums up what a flood costs.
"""

from __future__ import annotations

import json
import math
import re
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Iterable
from urllib.parse import urlsplit

from mcp.server.auth.provider import RegistrationError
from starlette.types import ASGIApp, Receive, Scope, Send

from sosoapi.contract.numbers import whole_number
from sosoapi.oauth.asgi_bodies import read_body, replaying

MAX_REGISTRATION_BYTES = 16 * 1024
MAX_REDIRECT_URIS = 10
MAX_REDIRECT_URI_CHARS = 2000
MAX_CLIENT_NAME_CHARS = 100
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
_PRIVATE_SCHEME = re.compile(r"[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+")  # com.example.app
_HIDDEN = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})  # controls, bidi, unassigned


def redirect_uri_problem(uri: str) -> str | None:
    """Why a browser must not be sent to `uri` with a code, or None when it may."""
    if len(uri) > MAX_REDIRECT_URI_CHARS:
        return f"is longer than {MAX_REDIRECT_URI_CHARS} characters"
    if "#" in uri:
        return "has a fragment, which a redirect URI must not have (RFC 6749 section 3.1.2)"
    try:
        parts = urlsplit(uri)
        host = parts.hostname
    except ValueError:
        return "is not a URL"
    scheme = parts.scheme.lower()
    if scheme == "https":
        return None if host else "has no host"
    if scheme == "http":
        if host in LOOPBACK_HOSTS:
            return None
        return "uses http on a host other than 127.0.0.1, [::1] or localhost; use https"
    if _PRIVATE_SCHEME.fullmatch(scheme):
        return None
    return (
        f"uses the scheme {scheme or '(none)'}; use https, http on loopback, or an app's "
        "private-use scheme in reverse-domain form such as com.example.app (RFC 8252)"
    )


def client_name_problem(name: str | None) -> str | None:
    if name is None:
        return None
    if len(name) > MAX_CLIENT_NAME_CHARS:
        return f"client_name is longer than {MAX_CLIENT_NAME_CHARS} characters"
    hidden = sorted({f"U+{ord(c):04X}" for c in name if unicodedata.category(c) in _HIDDEN})
    if hidden:
        return (
            f"client_name contains control or bidirectional characters ({', '.join(hidden)}); "
            "send the plain name people should see"
        )
    return None


def check_registration(redirect_uris: Iterable[str] | None, client_name: str | None) -> None:
    """Refuse a registration RFC 7591 lets us refuse (`RegistrationError`, 400)."""
    uris = [str(u) for u in redirect_uris or ()]
    if not uris:
        raise RegistrationError("invalid_redirect_uri", "register at least one redirect URI")
    if len(uris) > MAX_REDIRECT_URIS:
        raise RegistrationError(
            "invalid_redirect_uri",
            f"{len(uris)} redirect URIs; register at most {MAX_REDIRECT_URIS}",
        )
    for uri in uris:
        problem = redirect_uri_problem(uri)
        if problem:
            raise RegistrationError("invalid_redirect_uri", f"redirect URI {uri[:200]} {problem}")
    problem = client_name_problem(client_name)
    if problem:
        raise RegistrationError("invalid_client_metadata", problem)


class RateLimit:
    """A token bucket per client address: `burst` at once, then `per_minute`.

    In memory, per server process (behind a proxy, every caller shares the proxy's
    address); the table keeps the `max_addresses` most recent addresses.
    """

    def __init__(self, burst: int, per_minute: float, max_addresses: int = 10_000) -> None:
        self.burst = burst
        self.rate = per_minute / 60.0
        self.max_addresses = max_addresses
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, address: str, now: float | None = None) -> float:
        """0 when the call may go ahead (one token taken), else seconds until it may."""
        now = time.monotonic() if now is None else now
        tokens, last = self.buckets.pop(address, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        wait = 0.0
        if tokens >= 1:
            tokens -= 1
        else:
            wait = (1 - tokens) / self.rate
        self.buckets[address] = (tokens, now)
        while len(self.buckets) > self.max_addresses:
            self.buckets.popitem(last=False)
        return wait


class RegistrationGate:
    """Before the SDK's /register and /authorize: rate limits (the operator's, from
    SOSOAPI_OAUTH_*_BURST and *_PER_MINUTE), and /register's body cap."""

    def __init__(self, app: ASGIApp, register: RateLimit, authorize: RateLimit) -> None:
        self.app = app
        self.limits = {"/register": register, "/authorize": authorize}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit = self.limits.get(scope["path"]) if scope["type"] == "http" else None
        if limit is None:
            await self.app(scope, receive, send)
            return
        address = (scope.get("client") or ("unknown", 0))[0]
        wait = limit.take(address)
        if wait > 0:
            await _answer(
                send,
                429,
                "too many requests from this address; retry after Retry-After seconds",
                [(b"retry-after", str(math.ceil(wait)).encode())],
            )
            return
        if scope["path"] != "/register" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        declared = whole_number(dict(scope["headers"]).get(b"content-length", b"0"))
        if declared is not None and declared > MAX_REGISTRATION_BYTES:
            await _too_large(send)
            return
        read = await read_body(receive, MAX_REGISTRATION_BYTES)
        if read is None:
            await _too_large(send)
            return
        body = read
        await self.app(scope, replaying(body, receive), send)


async def _too_large(send: Send) -> None:
    await _answer(
        send,
        413,
        f"a registration is at most {MAX_REGISTRATION_BYTES} bytes; send less metadata",
    )


async def _answer(
    send: Send, status: int, description: str, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    error = "invalid_client_metadata" if status == 413 else "too_many_requests"
    body = json.dumps({"error": error, "error_description": description}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
