"""What the research layer asks of egress, and what egress answers.

The research layer never sees sockets or httpx: it hands a URL and the media types it can
use to `Egress.fetch` and gets a `FetchOutcome` back, always (egress never raises for a
network condition; every condition is a contract reason code).
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from sosoapi.contract.vocabulary import Cause, Reason
from sosoapi.egress.politeness import Reservation
from sosoapi.egress.statuses import clamp_retry_after

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


class Sink(Protocol):
    def write(self, data: bytes, /) -> object: ...


@dataclass(frozen=True, slots=True)
class Spool:
    """Where a 2xx body goes instead of memory, and its own byte bound: a document (a PDF
    of up to tens of MiB) is written as it arrives, counted and capped like any body.
    Its `FetchOutcome.body` and capture body are then empty: the bytes are in `sink`."""

    sink: Sink
    max_bytes: int


def _content_type(header: str | None) -> tuple[str | None, str | None]:
    """(lower-case media type without parameters, charset parameter), each None if absent."""
    if not header:
        return None, None
    media, *params = header.split(";")
    charset = None
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip("\"'") or None
    return media.strip().lower() or None, charset


@dataclass(frozen=True, slots=True)
class ResponseHeaders(Mapping[str, str]):
    """A response's headers as every reader after egress sees them: one value per
    lower-case name (repeats joined by ", "), with the Content-Type parsed once into
    `media_type` and `charset` (None when absent: sniff). Read-only, and a `Mapping`, so
    the extractor's judgements read it without knowing egress."""

    by_name: dict[str, str] = field(default_factory=dict)
    media_type: str | None = field(init=False)
    charset: str | None = field(init=False)

    def __post_init__(self) -> None:
        media, charset = _content_type(self.by_name.get("content-type"))
        object.__setattr__(self, "media_type", media)
        object.__setattr__(self, "charset", charset)

    @classmethod
    def of(cls, pairs: Iterable[tuple[str, str]]) -> ResponseHeaders:
        """From (name, value) pairs in order: names lower-cased, repeats joined."""
        values: dict[str, str] = {}
        for name, value in pairs:
            key = name.lower()
            values[key] = f"{values[key]}, {value}" if key in values else value
        return cls(values)

    def __getitem__(self, name: str) -> str:
        return self.by_name[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.by_name)

    def __len__(self) -> int:
        return len(self.by_name)

    @property
    def content_type(self) -> str | None:
        """The Content-Type header as sent."""
        return self.by_name.get("content-type")

    @property
    def content_language(self) -> str | None:
        return self.by_name.get("content-language")


@dataclass(frozen=True, slots=True)
class Hop:
    """One HTTP exchange as it went over the wire, kept so a capture can be archived.

    `request_headers` are exactly the headers we sent (the gate sends no cookies and no
    credentials: there are none to leak). `response_headers` keep the origin's case,
    order and repeats. `body` is the raw body as received, before any content decoding,
    bounded like the decoded one (a redirect's body is not read: empty).
    """

    url: str
    ip: str
    at: datetime
    request_headers: tuple[tuple[str, str], ...]
    status: int
    reason_phrase: str
    http_version: str
    response_headers: tuple[tuple[str, str], ...]
    body: bytes = b""
    body_truncated: bool = False


@dataclass(frozen=True, slots=True)
class LateTurn:
    """The origin's turn for a fetch's next hop comes after the fetch's deadline.

    The gate does not decide whether the read may wait that long: it stops before the hop,
    keeps the start it reserved (`start`), and answers `rate_limited` with this value.
    The caller either waits and calls `Egress.resume` at the turn (the hop then runs with
    a whole deadline of its own), or `Egress.forgo`, which gives the start back.
    """

    url: str  # the hop to fetch at the turn, the redirects before it in `hops`
    accept: tuple[str, ...]
    start: Reservation
    hops: tuple[Hop, ...] = ()

    @property
    def seconds(self) -> float:
        """How long until the turn, from now."""
        return max(0.0, self.start.at - time.monotonic())

    def answer(self) -> FetchOutcome:
        """The answer of a fetch stopped before this turn: `rate_limited` until the turn,
        carrying the turn for its caller to `resume` or `forgo`."""
        retry = clamp_retry_after(self.seconds)
        return FetchOutcome(
            Reason.RATE_LIMITED,
            final_url=self.url,
            retry_after_seconds=retry,
            hops=self.hops,
            late_turn=self,
        )


@dataclass(frozen=True, slots=True)
class FetchOutcome:
    """The result of one bounded fetch, redirects included.

    `reason` is None when a 2xx body was read (fully, or a bounded prefix when
    `truncated`). Otherwise it is the contract reason for the failure.

    With reason None, two flags qualify the body: `truncated` (the source was larger
    than the cap; `body` is the first `max_body_bytes` decoded bytes: the caller reports
    `response_too_large`, partial if the prefix was usable, else unavailable) and
    `short_body` (the origin closed before Content-Length or the last chunk; `body` is
    the prefix received: the caller reports `source_partial`). `robots_disallowed` marks
    an `access_denied` decided by the origin's robots.txt, not by the origin's answer.

    `headers` are the final response's headers, the one shape they travel in after egress
    (`ResponseHeaders`: the media type and charset parsed once).
    With a reason from a status a bot defence uses (403, 405, 429, 503), `body` holds the
    first 64 KiB of the error page, so the reader can tell a challenge page from a real
    refusal or outage; for any other reason it is empty. `hops` are the exchanges as they
    arrived (the capture an archive keeps): each redirect's response, then the final one.
    `late_turn` is set (with `rate_limited`) only for a caller that asked for late turns.
    """

    reason: Reason | None
    final_url: str | None = None
    status_code: int | None = None
    body: bytes = b""
    truncated: bool = False
    short_body: bool = False
    retry_after_seconds: int | None = None
    retrieved_at: datetime | None = None
    robots_disallowed: bool = False  # access_denied because robots.txt disallows the URL
    cause: Cause | None = None
    headers: ResponseHeaders = field(default_factory=ResponseHeaders)
    hops: tuple[Hop, ...] = ()  # every response of this fetch, redirects first, as received
    late_turn: LateTurn | None = None

    @property
    def content_type(self) -> str | None:
        """The Content-Type header as sent (None when absent: sniff)."""
        return self.headers.content_type

    @property
    def content_language(self) -> str | None:
        return self.headers.content_language

    def header(self, name: str) -> str | None:
        """One response header by lower-case name, None when absent."""
        return self.headers.get(name)
