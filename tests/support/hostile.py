"""Hostile origins and watchful network fakes for egress tests and benchmarks.

- route handlers for `HTTPSOrigin`: drip feeds, decompression bombs, endless bodies,
  redirect chains, bodies shorter than their Content-Length;
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
import gzip
import ipaddress
import select
import socket
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterable
from functools import cache
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

import httpcore

Handler = Callable[[BaseHTTPRequestHandler], None]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
GIB = 1 << 30


# --- compressed bombs, built without materialising the decoded bytes ---------------------


@cache
def gzip_zeros(size: int = GIB) -> bytes:
    """A gzip member that inflates to `size` zero bytes (1 GiB -> about 1 MiB).

    One fully flushed deflate block of 1 MiB zeros is independent of what precedes it, so
    repeating it is a valid stream; the trailer's CRC is computed over zeros chunk by chunk.
    """
    chunk = 1 << 20
    assert size % chunk == 0
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = compressor.compress(bytes(chunk)) + compressor.flush(zlib.Z_FULL_FLUSH)
    tail = compressor.flush()
    crc = 0
    zeros = bytes(chunk)
    for _ in range(size // chunk):
        crc = zlib.crc32(zeros, crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    trailer = struct.pack("<II", crc, size & 0xFFFFFFFF)
    return header + block * (size // chunk) + tail + trailer


@cache
def double_gzip_zeros(size: int = GIB) -> bytes:
    """`Content-Encoding: gzip, gzip` bomb: a few KiB that inflate to `size` bytes."""
    return gzip.compress(gzip_zeros(size), 9)


# --- route handlers -------------------------------------------------------------------------


def _head(
    handler: BaseHTTPRequestHandler,
    status: int = 200,
    headers: Iterable[tuple[str, str]] = (),
    content_type: str | None = "text/html; charset=utf-8",
) -> None:
    handler.send_response(status)
    if content_type:
        handler.send_header("Content-Type", content_type)
    for name, value in headers:
        handler.send_header(name, value)
    handler.end_headers()


def _write(handler: BaseHTTPRequestHandler, data: bytes) -> bool:
    try:
        handler.wfile.write(data)
        handler.wfile.flush()
    except OSError:
        return False
    return True


def encoded_body(body: bytes, encoding: str, content_type: str = "text/html") -> Handler:
    """Serve `body` (already encoded) with `Content-Encoding: encoding`."""

    def handle(handler: BaseHTTPRequestHandler) -> None:
        headers = [("Content-Encoding", encoding), ("Content-Length", str(len(body)))]
        _head(handler, headers=headers, content_type=content_type)
        _write(handler, body)

    return handle


def endless_body(chunk_size: int = 64 * 1024, total: int = GIB) -> Handler:
    """Announce and stream `total` bytes of HTML-ish filler until the client hangs up."""
    chunk = (b"<p>" + b"a" * (chunk_size - 8) + b"</p>\n\n")[:chunk_size]

    def handle(handler: BaseHTTPRequestHandler) -> None:
        _head(handler, headers=[("Content-Length", str(total))])
        sent = 0
        while sent < total and _write(handler, chunk[: total - sent]):
            sent += len(chunk)

    return handle


def drip(interval: float = 0.1, byte: bytes = b"a", forever: float = 120.0) -> Handler:
    """Send headers, then one byte every `interval` seconds: never fast, never silent."""

    def handle(handler: BaseHTTPRequestHandler) -> None:
        _head(handler, headers=[("Content-Length", "1000000")])
        deadline = time.monotonic() + forever
        while time.monotonic() < deadline and _write(handler, byte):
            time.sleep(interval)

    return handle


def short_body(body: bytes, promised: int) -> Handler:
    """Promise `promised` bytes in Content-Length, send `body`, then close."""

    def handle(handler: BaseHTTPRequestHandler) -> None:
        _head(handler, headers=[("Content-Length", str(promised)), ("Connection", "close")])
        _write(handler, body)
        handler.close_connection = True

    return handle


def redirect_to(location: str, status: int = 302) -> Handler:
    def handle(handler: BaseHTTPRequestHandler) -> None:
        _head(handler, status, [("Location", location), ("Content-Length", "0")], None)

    return handle


def redirect_from_query(handler: BaseHTTPRequestHandler) -> None:
    """`/redirect?to=URL` answers 302 with Location: URL (for redirect SSRF cases)."""
    query = parse_qs(urlsplit(handler.path).query)
    target = query.get("to", ["/"])[0]
    _head(handler, 302, [("Location", target), ("Content-Length", "0")], None)


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
