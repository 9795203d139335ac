"""DNS-rebinding protection on every route: the Host must be a name this server answers to.

A page on `evil.example` whose name is re-pointed at 127.0.0.1 can make a victim's browser
talk to a loopback server; its requests still say `Host: evil.example`. So every request
(the API, /mcp, the OAuth endpoints, the consent page, the console, the docs) must name
this server: the host of `SOSOAPI_PUBLIC_URL` (or of the bound address), the loopback
names on any port when bound to loopback, or one of `SOSOAPI_ALLOWED_HOSTS`. Otherwise 421
(as the MCP SDK answers at /mcp). A browser's `Origin`, when sent, must name an allowed
host too (403), except on the endpoints browser-based OAuth clients call cross-origin.

Bound to every interface (`0.0.0.0`, `::`) with neither setting, the server cannot know its
names and checks nothing (docs/operations.md says so); `SOSOAPI_ALLOWED_HOSTS=*` turns the
check off on purpose.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from sosoapi.api.problems import PROBLEM_JSON
from sosoapi.contract.errors import PROBLEM_BASE
from sosoapi.contract.numbers import whole_number

log = logging.getLogger("sosoapi.api")
_NAME = re.compile(r"[a-z0-9_-]+(\.[a-z0-9_-]+)*")
_IPV6 = re.compile(r"[0-9a-f:.]+")
LOOPBACK_BINDS = frozenset({"127.0.0.1", "localhost", "::1"})
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
WILDCARD_BINDS = frozenset({"0.0.0.0", "::", ""})
DEFAULT_PORTS = {"http": 80, "https": 443}
# Called from other origins by browser-based OAuth clients (the SDK answers CORS there).
CROSS_ORIGIN_PATHS = ("/register", "/token", "/revoke", "/.well-known/")


@dataclass(frozen=True, slots=True)
class Allowed:
    """A host name and its port (None: any port; `bare` also allows no port at all)."""

    name: str
    port: int | None
    bare: bool = True


def split_host(value: str) -> tuple[str, int | None] | None:
    """(name, port) of a Host header or `host[:port]`; None when malformed."""
    value = value.strip().lower()
    if value.startswith("["):
        name, sep, rest = value[1:].partition("]")
        if not sep or (rest and not rest.startswith(":")):
            return None
        port_text = rest[1:] if rest else ""
    elif value.count(":") > 1:  # a bare IPv6 address is not a valid Host header
        return None
    else:
        name, _, port_text = value.partition(":")
    name = name.rstrip(".")
    if not (_IPV6 if value.startswith("[") else _NAME).fullmatch(name):
        return None
    if not port_text:
        return name, None
    port = whole_number(port_text, least=1, most=65535)
    return None if port is None else (name, port)


def parse_allowed(entry: str) -> Allowed:
    """One `SOSOAPI_ALLOWED_HOSTS` entry: `name` or `name:*` (any port), or `name:port`."""
    text = entry.strip().lower()
    any_port = text.endswith(":*")
    parsed = split_host(text[:-2] if any_port else text)
    if parsed is None:
        raise ValueError(
            f"SOSOAPI_ALLOWED_HOSTS entry {entry!r} is not a host name; write `name`, "
            "`name:port` or `name:*`, comma-separated"
        )
    name, port = parsed
    return Allowed(name, None if any_port else port, bare=port is None)


@dataclass(frozen=True, slots=True)
class HostPolicy:
    """The names one server answers to; `None` as `allowed` checks nothing."""

    allowed: tuple[Allowed, ...] | None

    @classmethod
    def build(cls, bind: str, base: str, extra: Sequence[str] = ()) -> HostPolicy:
        if "*" in (e.strip() for e in extra):
            return cls(None)
        allowed = [parse_allowed(e) for e in extra if e.strip()]
        parts = urlsplit(base)
        if parts.hostname and parts.hostname not in WILDCARD_BINDS:
            port = parts.port or DEFAULT_PORTS.get(parts.scheme)
            bare = port == DEFAULT_PORTS.get(parts.scheme)
            allowed.append(Allowed(parts.hostname.lower(), port, bare))
        if bind in LOOPBACK_BINDS:
            allowed += [Allowed(name, None) for name in LOOPBACK_NAMES]
        if not allowed:
            return cls(None)
        return cls(tuple(allowed))

    def permits(self, host: str | None) -> bool:
        if self.allowed is None:
            return True
        parsed = split_host(host or "")
        if parsed is None:
            return False
        name, port = parsed
        for entry in self.allowed:
            if entry.name != name:
                continue
            if port is None and entry.bare:
                return True
            if port is not None and entry.port in (None, port):
                return True
        return False

    def permits_origin(self, origin: str) -> bool:
        parts = urlsplit(origin)
        if parts.scheme not in DEFAULT_PORTS or not parts.netloc or parts.path:
            return False
        return self.permits(parts.netloc)


class HostCheck:
    """421 for a Host this server does not answer to, 403 for a foreign browser Origin."""

    def __init__(self, app: ASGIApp, policy: HostPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.policy.allowed is None:
            await self.app(scope, receive, send)
            return
        host = _header(scope, b"host")
        if not self.policy.permits(host):
            log.warning("refused host=%s path=%s (not a name of this server)", host, scope["path"])
            await _problem(
                send,
                421,
                "misdirected-request",
                "Misdirected request",
                f"Host {host!r} is not a name of this server; use the address it is served at, "
                "or have the operator add the name to SOSOAPI_ALLOWED_HOSTS.",
            )
            return
        origin = _header(scope, b"origin")
        cross_origin_ok = scope["path"].startswith(CROSS_ORIGIN_PATHS)
        if origin and not cross_origin_ok and not self.policy.permits_origin(origin):
            log.warning("refused origin=%s path=%s", origin, scope["path"])
            await _problem(
                send,
                403,
                "forbidden-origin",
                "Forbidden origin",
                f"Origin {origin!r} is not this server; a page elsewhere may not call it "
                "from a browser.",
            )
            return
        await self.app(scope, receive, send)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return None


async def _problem(send: Send, status: int, slug: str, title: str, detail: str) -> None:
    problem = {"type": PROBLEM_BASE + slug, "title": title, "status": status, "detail": detail}
    body = json.dumps(problem).encode()
    headers = [
        (b"content-type", PROBLEM_JSON.encode()),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
