"""What the research layer asks of egress, and what egress answers.

The research layer never sees sockets or httpx: it hands a URL and the media types it can
use to `Egress.fetch` and gets a `FetchOutcome` back, always (egress never raises for a
network condition; every condition is a contract reason code).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class FetchOutcome:
    """The result of one bounded fetch, redirects included.

    `reason` is None when a 2xx body was read (fully, or a bounded prefix when
    `truncated`). Otherwise it is one contract reason code: `unsafe_url`,
    `unsupported_source`, `not_found`, `access_denied`, `login_required`, `rate_limited`,
    `timeout`, `egress_unavailable`, `unavailable`, `response_too_large`, `source_partial`.
    """

    reason: str | None
    final_url: str | None = None
    status_code: int | None = None
    content_type: str | None = None
    content_language: str | None = None
    body: bytes = b""
    truncated: bool = False
    short_body: bool = False
    retry_after_seconds: int | None = None
    retrieved_at: datetime | None = None

    @property
    def ok(self) -> bool:
        return self.reason is None
