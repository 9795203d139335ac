"""Hostile origins' route handlers for `HTTPSOrigin`, which the egress tests and
bench/egress.py serve: decompression bombs built without materialising the decoded
bytes, drip feeds, endless bodies, redirect chains, bodies shorter than their
Content-Length."""

from __future__ import annotations

import gzip
import struct
import time
import zlib
from collections.abc import Iterable
from functools import cache
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from sosoapi.testing.origin import Handler

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
