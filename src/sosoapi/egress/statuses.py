"""HTTP status codes and Retry-After to contract reason codes."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from sosoapi.clock import utcnow
from sosoapi.contract.vocabulary import DEFAULT_RETRY_AFTER, Reason

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
MIN_RETRY_AFTER = 1
MAX_RETRY_AFTER = 86_400
# Statuses a bot defence answers its challenge and block pages with (Cloudflare 403/429/503,
# AWS WAF's CAPTCHA 405, DataDome, PerimeterX, Akamai, Imperva and Sucuri 403): their body is
# read (bounded, ERROR_BODY_MAX) so `extract/walls/` can tell a challenge from a real
# refusal or outage. Every other non-2xx answer is settled from its status alone.
CHALLENGE_STATUSES = frozenset({403, 405, 429, 503})
ERROR_BODY_MAX = 64 * 1024
ERROR_BODY_SECONDS = 2.0  # a slow error body is not worth the retrieval's deadline

_REASONS: dict[int, Reason] = {
    401: Reason.LOGIN_REQUIRED,
    403: Reason.ACCESS_DENIED,
    404: Reason.NOT_FOUND,
    406: Reason.UNSUPPORTED_MEDIA,  # nothing in our Accept list is available
    407: Reason.EGRESS_UNAVAILABLE,  # a proxy on the way wants credentials we do not have
    410: Reason.NOT_FOUND,
    415: Reason.UNSUPPORTED_MEDIA,
    451: Reason.ACCESS_DENIED,  # unavailable for legal reasons: access is refused, not missing
}


def reason_for_status(status: int, retry_after: str | None) -> tuple[Reason, int | None]:
    """(reason, retry_after_seconds) for a non-2xx, non-redirect final status."""
    if status == 429:
        return Reason.RATE_LIMITED, parse_retry_after(retry_after) or DEFAULT_RETRY_AFTER
    if status == 503:
        seconds = parse_retry_after(retry_after)
        return (Reason.RATE_LIMITED, seconds) if seconds is not None else (Reason.UNAVAILABLE, None)
    return _REASONS.get(status, Reason.UNAVAILABLE), None


def parse_retry_after(value: str | None, now: datetime | None = None) -> int | None:
    """Seconds from a Retry-After header (delta-seconds or HTTP-date), rounded up and
    clamped to 1..86400; None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text.isascii() and text.isdigit():
        seconds: float = int(text) if len(text) <= 9 else MAX_RETRY_AFTER
    else:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or utcnow())).total_seconds()
    return clamp_retry_after(seconds)


def clamp_retry_after(seconds: float) -> int:
    """Round up to whole seconds and clamp to the contract's 1..86400."""
    return min(MAX_RETRY_AFTER, max(MIN_RETRY_AFTER, math.ceil(seconds)))
