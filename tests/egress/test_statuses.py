"""Status codes and Retry-After to contract reasons."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from sosoapi.egress.statuses import parse_retry_after, reason_for_status

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("status", "retry_after", "expected"),
    [
        (401, None, ("login_required", None)),
        (403, None, ("access_denied", None)),
        (404, None, ("not_found", None)),
        (410, None, ("not_found", None)),
        (429, None, ("rate_limited", 60)),
        (429, "7", ("rate_limited", 7)),
        (429, "soon", ("rate_limited", 60)),
        (503, "120", ("rate_limited", 120)),
        (503, None, ("unavailable", None)),
        (500, None, ("unavailable", None)),
        (502, None, ("unavailable", None)),
        (406, None, ("unsupported_media", None)),
        (300, None, ("unavailable", None)),
        (304, None, ("unavailable", None)),
    ],
)
def test_reason_for_status(status, retry_after, expected) -> None:
    assert reason_for_status(status, retry_after) == expected


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("0", 1),
        ("1", 1),
        ("3600", 3600),
        ("86400", 86400),
        ("86401", 86400),
        ("99999999999999999999999999", 86400),
        (format_datetime(NOW + timedelta(seconds=90), usegmt=True), 90),
        (format_datetime(NOW - timedelta(days=1), usegmt=True), 1),
        (format_datetime(NOW + timedelta(days=30), usegmt=True), 86400),
        ("Mon, 30 Nov 2026 12:02:00 GMT", 120),
        ("Monday, 30-Nov-26 12:02:00 GMT", 120),
        ("Mon Nov 30 12:02:00 2026", 120),
        ("", None),
        ("-5", None),
        ("1.5", None),
        ("tomorrow", None),
    ],
)
def test_parse_retry_after(value: str, seconds: int | None) -> None:
    assert parse_retry_after(value, now=NOW) == seconds


def test_http_date_rounds_up_partial_seconds() -> None:
    later = format_datetime(NOW + timedelta(seconds=90), usegmt=True)
    assert parse_retry_after(later, now=NOW - timedelta(milliseconds=300)) == 91
