"""Reading an origin's response: its headers as text, the exchange as a `Hop`, its body
streamed into a bounded decoder. The gate (gate.py) decides what to do with each; this
module only reads.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime

import httpcore

from sosoapi.contract.numbers import whole_number
from sosoapi.egress.body import BoundedBody, DecodingFailed, UnsupportedEncoding
from sosoapi.egress.statuses import ERROR_BODY_MAX, ERROR_BODY_SECONDS
from sosoapi.egress.types import Hop, IPAddress
from sosoapi.egress.urls import Target
from sosoapi.progress import report


def hop_of(
    target: Target,
    ip: IPAddress,
    at: datetime,
    sent: list[tuple[bytes, bytes]],
    response: httpcore.Response,
) -> Hop:
    """The exchange as it went over the wire (its body is added once read)."""
    extensions = response.extensions
    return Hop(
        url=target.url,
        ip=str(ip),
        at=at,
        request_headers=tuple((k.decode("latin-1"), v.decode("latin-1")) for k, v in sent),
        status=response.status,
        reason_phrase=bytes(extensions.get("reason_phrase", b"")).decode("latin-1"),
        http_version=bytes(extensions.get("http_version", b"HTTP/1.1")).decode("latin-1"),
        response_headers=tuple(
            (k.decode("latin-1"), decode_header(v)) for k, v in response.headers
        ),
    )


async def read_body(response: httpcore.Response, body: BoundedBody, declared: int | None) -> bool:
    """Stream into `body` until done or capped; True when the origin sent less than it
    promised (connection closed early against Content-Length or chunked framing)."""
    try:
        async for chunk in response.aiter_stream():
            if body.feed(chunk):
                return False
            report("reading", body.raw_bytes, declared)
    except (httpcore.RemoteProtocolError, httpcore.ReadError):
        return True
    return declared is not None and body.raw_bytes < declared


async def error_body(response: httpcore.Response, header: Callable[[str], str | None]) -> bytes:
    """The first ERROR_BODY_MAX bytes of an error page, within ERROR_BODY_SECONDS; what
    arrived when the origin stalls, breaks or sends an unreadable coding (never raises)."""
    try:
        body = BoundedBody(header("content-encoding"), ERROR_BODY_MAX)
    except UnsupportedEncoding:
        return b""
    try:
        async with asyncio.timeout(ERROR_BODY_SECONDS):
            await read_body(response, body, None)
    except (
        TimeoutError,
        DecodingFailed,
        httpcore.TimeoutException,
        httpcore.NetworkError,
        httpcore.ProtocolError,
    ):
        pass
    return body.body


def decode_header(value: bytes) -> str:
    """UTF-8 as browsers read Location, else Latin-1 (HTTP's historical charset)."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value.decode("latin-1")


def content_length(value: str | None) -> int | None:
    if value is None:
        return None
    first = value.split(",")[0].strip()
    return whole_number(first)


def media_accepted(media: str | None, accept: Sequence[str]) -> bool:
    """True when the response's media type (`ResponseHeaders.media_type`) is one the caller
    can use (or is absent, so the caller can sniff). `type/*` and `*/*` in `accept` match
    as wildcards."""
    if media is None:
        return True
    kind = media.split("/")[0]
    return any(a in (media, "*/*", f"{kind}/*") for a in accept)
