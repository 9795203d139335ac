"""The one clock of the service: timezone-aware UTC now.

Every layer asks this for the time, so a test can move it in one place and no code
mixes naive and aware datetimes.
"""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    return datetime.now(UTC)
