"""What the research layer asks of egress, and what egress answers.

The research layer never sees sockets or httpx: it hands a URL and the media types it can
use to `Egress.fetch` and gets a `FetchOutcome` back, always (egress never raises for a
network condition; every condition is a contract reason code).
"""

from __future__ import annotations

import ipaddress
import time
from dataclasses import dataclass
from datetime import datetime

from sosoapi.contract.vocabulary import Cause, Reason
from sosoapi.egress.politeness import Reservation

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


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


@dataclass(frozen=True, slots=True)
class FetchOutcome:
    """The result of one bounded fetch, redirects included.

    `reason` is None when a 2xx body was read (fully, or a bounded prefix when
    `truncated`). Otherwise it is the contract reason for the failure.

    With reason None, two flags qualify the body: `truncated` (the source was larger
    than the cap; `body` is the first `max_body_bytes` decoded bytes: the caller reports
    `response_too_large`, partial if the prefix was usable, else unavailable) and
    `short_body` (the origin closed before Content-Length or the last chunk; `body` is
    the prefix received: the caller reports `source_partial`). `content_type` is the
    Content-Type header as sent (None when absent: sniff). `robots_disallowed` marks an
    `access_denied` decided by the origin's robots.txt, not by the origin's answer.

    `headers` are the final response's headers (names lower-case, repeats joined by ", ").
    With a reason from a status a bot defence uses (403, 405, 429, 503), `body` holds the
    first 64 KiB of the error page, so the reader can tell a challenge page from a real
    refusal or outage; for any other reason it is empty. `hops` are the exchanges as they
    arrived (the capture an archive keeps): each redirect's response, then the final one.
    `late_turn` is set (with `rate_limited`) only for a caller that asked for late turns.
    """

    reason: Reason | None
    final_url: str | None = None
    status_code: int | None = None
    content_type: str | None = None
    content_language: str | None = None
    body: bytes = b""
    truncated: bool = False
    short_body: bool = False
    retry_after_seconds: int | None = None
    retrieved_at: datetime | None = None
    robots_disallowed: bool = False  # access_denied because robots.txt disallows the URL
    cause: Cause | None = None
    headers: tuple[tuple[str, str], ...] = ()
    hops: tuple[Hop, ...] = ()  # every response of this fetch, redirects first, as received
    late_turn: LateTurn | None = None

    def header(self, name: str) -> str | None:
        """One response header by lower-case name, None when absent."""
        return next((value for key, value in self.headers if key == name), None)
