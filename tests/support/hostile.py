"""Hostile origins and watchful network fakes for egress tests and benchmarks.

- route handlers for `HTTPSOrigin` (`sosoapi.testing.hostile_routes`, re-exported here):
  drip feeds, decompression bombs, endless bodies, redirect chains, bodies shorter than
  their Content-Length;
- `Canary`: a loopback TCP listener that counts every connection it is offered;
- `DialGuard`: a network backend that lets through only the (address, port) pairs a
  test names, sends every other loopback dial to the canary, and never dials anything
  outside loopback (recorded, refused), so even a bug cannot reach the network;
- resolvers that answer what a test wants (including a different answer on later lookups,
  to prove pinning);
- `ConnectProxy`: a tiny HTTP CONNECT proxy on loopback that records its targets.
"""

from __future__ import annotations

import contextlib
import ipaddress
import select
import socket
import threading
from collections.abc import Iterable

import httpcore

from sosoapi.testing.hostile_routes import (
    GIB,
    double_gzip_zeros,
    drip,
    encoded_body,
    endless_body,
    gzip_zeros,
    redirect_from_query,
    redirect_to,
    short_body,
)

__all__ = [
    "GIB",
    "Canary",
    "ConnectProxy",
    "DialGuard",
    "MapResolver",
    "RebindingResolver",
    "double_gzip_zeros",
    "drip",
    "encoded_body",
    "endless_body",
    "gzip_zeros",
    "redirect_from_query",
    "redirect_to",
    "short_body",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


# --- canary, dial guard, resolvers ----------------------------------------------------------


class Canary:
    """A loopback TCP listener that accepts and counts connections, then drops them."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self._sock = socket.create_server((host, 0))
        self._sock.settimeout(0.2)
        self.host = host
        self.port: int = self._sock.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def address(self) -> IPAddress:
        return ipaddress.ip_address(self.host)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except (TimeoutError, OSError):
                continue
            self.connections += 1
            conn.close()

    def __enter__(self) -> Canary:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        _stop_listener(self._stop, self._sock, self._thread)


def _stop_listener(stop: threading.Event, sock: socket.socket, thread: threading.Thread) -> None:
    """Stop an accept loop now: shutting the socket down wakes a blocked accept()."""
    stop.set()
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    thread.join(timeout=2)
    sock.close()


class DialGuard(httpcore.AsyncNetworkBackend):
    """Let through only `permitted` (ip, port) dials; loopback strays go to the canary;
    anything outside loopback is recorded and refused without touching the network."""

    def __init__(self, permitted: Iterable[tuple[str, int]], canary: Canary | None = None):
        self.permitted = {(ipaddress.ip_address(h).compressed, p) for h, p in permitted}
        self.canary = canary
        self.dials: list[tuple[str, int]] = []
        self.strays: list[tuple[str, int]] = []
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        ip = ipaddress.ip_address(host)
        self.dials.append((ip.compressed, port))
        if (ip.compressed, port) in self.permitted:
            return await self._inner.connect_tcp(host, port, timeout=timeout)
        self.strays.append((ip.compressed, port))
        if ip.is_loopback and self.canary is not None:
            return await self._inner.connect_tcp(self.canary.host, self.canary.port)
        raise httpcore.ConnectError(f"test guard refused to dial {host}:{port}")

    async def connect_unix_socket(self, *args: object, **kwargs: object) -> None:  # type: ignore[override]
        raise httpcore.ConnectError("no unix sockets")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class MapResolver:
    """Answer `names[host]`, else `default`; a name mapped to None does not exist."""

    def __init__(
        self, default: IPAddress | None, names: dict[str, IPAddress | None] | None = None
    ) -> None:
        self.default = default
        self.names = dict(names or {})
        self.lookups: list[str] = []

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        from sosoapi.egress.resolver import NameNotFound

        self.lookups.append(host)
        answer = self.names.get(host, self.default)
        if answer is None:
            raise NameNotFound(host)
        return [answer]


class RebindingResolver:
    """First lookup of each name: `first`; every later lookup: `later` (DNS rebinding)."""

    def __init__(self, first: IPAddress, later: IPAddress) -> None:
        self.first = first
        self.later = later
        self.lookups: list[str] = []

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        answer = self.later if host in self.lookups else self.first
        self.lookups.append(host)
        return [answer]


# --- a CONNECT proxy --------------------------------------------------------------------------


class ConnectProxy:
    """A minimal HTTP CONNECT proxy on loopback that tunnels only to `permitted` targets
    and records every target it was asked for."""

    def __init__(self, permitted: Iterable[tuple[str, int]]) -> None:
        self.permitted = set(permitted)
        self.targets: list[str] = []
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._sock.settimeout(0.2)
        self.port: int = self._sock.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=self._tunnel, args=(conn,), daemon=True).start()

    def _tunnel(self, client: socket.socket) -> None:
        with client:
            head = b""
            while b"\r\n\r\n" not in head:
                data = client.recv(4096)
                if not data:
                    return
                head += data
            method, target = head.split(b" ", 2)[:2]
            self.targets.append(target.decode())
            host, _, port = target.decode().rpartition(":")
            key = (host.strip("[]"), int(port))
            if method != b"CONNECT" or key not in self.permitted:
                client.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
                return
            with socket.create_connection(key, timeout=5) as upstream:
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                _pump(client, upstream)

    def __enter__(self) -> ConnectProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        _stop_listener(self._stop, self._sock, self._thread)


def _pump(a: socket.socket, b: socket.socket) -> None:
    sockets = [a, b]
    while True:
        readable, _, _ = select.select(sockets, [], [], 10)
        if not readable:
            return
        for sock in readable:
            data = sock.recv(65536)
            if not data:
                return
            (b if sock is a else a).sendall(data)
