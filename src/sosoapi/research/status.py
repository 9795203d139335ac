"""Turning observed conditions into one status, one reason and the warnings.

A condition is a (status, reason) pair: `response_too_large` is `partial` when a bounded
prefix was usable and `unavailable` when nothing was, `language_mismatch` is `partial` for
page text and `empty` for captions. The deciding condition is the one whose status comes
first in STATUS_ORDER and, within a status, whose reason comes first in REASONS[status];
every other observed reason is a warning (at most 10, no repeats, never the reason).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sosoapi.contract.models import Provenance, RetrieveResult, Segment

STATUS_ORDER = (
    "cancelled",
    "blocked",
    "unsupported",
    "rate_limited",
    "unavailable",
    "empty",
    "partial",
)
REASONS: dict[str, tuple[str, ...]] = {
    "partial": (
        "text_limited",
        "cues_limited",
        "invalid_cues",
        "nodes_limited",
        "response_too_large",
        "source_partial",
        "language_mismatch",
    ),
    "blocked": ("unsafe_url", "access_denied", "login_required"),
    "unsupported": ("unsupported_source", "unsupported_media", "unsupported_content"),
    "empty": ("no_text", "metadata_only", "no_captions", "invalid_captions", "language_mismatch"),
    "rate_limited": ("rate_limited",),
    "unavailable": (
        "not_found",
        "timeout",
        "egress_unavailable",
        "unavailable",
        "response_too_large",
    ),
    "cancelled": ("cancelled",),
}
MAX_WARNINGS = 10
DEFAULT_RETRY_AFTER = 60  # seconds, when an origin says 429 without Retry-After


def status_of(reason: str, *, usable: bool = False, captions: bool = False) -> str:
    """The status a reason code stands for, in its context."""
    if reason == "response_too_large":
        return "partial" if usable else "unavailable"
    if reason == "language_mismatch":
        return "empty" if captions else "partial"
    for status, reasons in REASONS.items():
        if reason in reasons:
            return status
    raise ValueError(f"unknown reason code {reason!r}")


@dataclass(frozen=True, slots=True)
class Condition:
    status: str
    reason: str

    @property
    def rank(self) -> tuple[int, int]:
        return STATUS_ORDER.index(self.status), REASONS[self.status].index(self.reason)


def decide(conditions: list[Condition]) -> tuple[str, str | None, list[str]]:
    """(status, reason, warnings) for the conditions met; `ready` when there are none."""
    if not conditions:
        return "ready", None, []
    winner = min(conditions, key=lambda c: c.rank)
    warnings: list[str] = []
    for condition in sorted(conditions, key=lambda c: c.rank):
        if condition.reason != winner.reason and condition.reason not in warnings:
            warnings.append(condition.reason)
    return winner.status, winner.reason, warnings[:MAX_WARNINGS]


@dataclass
class Draft:
    """A result being assembled by a source reader; `finish()` makes it a contract model."""

    kind: str
    retrieved_at: datetime | None = None
    source_url: str | None = None
    mime_type: str | None = None
    text: str = ""
    title: str | None = None
    description: str | None = None
    segments: list[Segment] = field(default_factory=list)
    content_kind: str = "none"
    caption_format: str | None = None
    language: str | None = None
    conditions: list[Condition] = field(default_factory=list)
    retry_after_seconds: int | None = None

    def add(self, reason: str, *, usable: bool = False) -> Draft:
        status = status_of(reason, usable=usable, captions=self.kind == "published_captions")
        self.conditions.append(Condition(status, reason))
        return self

    def finish(self, settled_at: datetime) -> RetrieveResult:
        status, reason, warnings = decide(self.conditions)
        keep_content = status in ("ready", "partial", "empty")
        return RetrieveResult(
            kind=self.kind,  # type: ignore[arg-type]
            status=status,  # type: ignore[arg-type]
            text=self.text if status in ("ready", "partial") else "",
            title=self.title if keep_content else None,
            description=self.description if keep_content else None,
            segments=self.segments if status in ("ready", "partial") else [],
            provenance=Provenance(
                source_url=self.source_url,
                retrieved_at=self.retrieved_at or settled_at,
                mime_type=self.mime_type,  # type: ignore[arg-type]
                content_kind=self.content_kind if keep_content else "none",  # type: ignore[arg-type]
                caption_format=self.caption_format,  # type: ignore[arg-type]
                language=self.language,
                language_source="publisher_declared" if self.language else "unknown",
            ),
            reason=reason,  # type: ignore[arg-type]
            warnings=warnings,  # type: ignore[arg-type]
            retry_after_seconds=(
                (self.retry_after_seconds or DEFAULT_RETRY_AFTER)
                if status == "rate_limited"
                else None
            ),
        )
