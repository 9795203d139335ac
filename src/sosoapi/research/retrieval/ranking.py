"""A result's status: observed conditions ranked into one status, one reason, warnings.

A condition is a (status, reason) pair: `response_too_large` is `partial` when a bounded
prefix was usable and `unavailable` when nothing was, `language_mismatch` is `partial` for
page text and `empty` for captions. The deciding condition is the one whose status comes
first in STATUS_ORDER and, within a status, whose reason comes first in REASONS[status];
every other observed reason is a warning (at most 10, no repeats, never the reason).
"""

from __future__ import annotations

from dataclasses import dataclass

from sosoapi.contract.vocabulary import DEFAULT_RETRY_AFTER, Reason, Status

STATUS_ORDER: tuple[Status, ...] = (
    Status.CANCELLED,
    Status.BLOCKED,
    Status.UNSUPPORTED,
    Status.RATE_LIMITED,
    Status.UNAVAILABLE,
    Status.EMPTY,
    Status.PARTIAL,
)
# The ranking table of docs/product.md ("Statuses and reasons"): every reason under
# each status it can stand for.
REASONS: dict[Status, tuple[Reason, ...]] = {
    Status.PARTIAL: (
        Reason.TEXT_LIMITED,
        Reason.CUES_LIMITED,
        Reason.INVALID_CUES,
        Reason.NODES_LIMITED,
        Reason.RESPONSE_TOO_LARGE,
        Reason.SOURCE_PARTIAL,
        Reason.LANGUAGE_MISMATCH,
    ),
    Status.BLOCKED: (Reason.UNSAFE_URL, Reason.ACCESS_DENIED, Reason.LOGIN_REQUIRED),
    Status.UNSUPPORTED: (
        Reason.UNSUPPORTED_SOURCE,
        Reason.UNSUPPORTED_MEDIA,
        Reason.UNSUPPORTED_CONTENT,
    ),
    Status.EMPTY: (
        Reason.NO_TEXT,
        Reason.METADATA_ONLY,
        Reason.NO_CAPTIONS,
        Reason.INVALID_CAPTIONS,
        Reason.LANGUAGE_MISMATCH,
    ),
    Status.RATE_LIMITED: (Reason.RATE_LIMITED,),
    Status.UNAVAILABLE: (
        Reason.NOT_FOUND,
        Reason.TIMEOUT,
        Reason.EGRESS_UNAVAILABLE,
        Reason.UNAVAILABLE,
        Reason.RESPONSE_TOO_LARGE,
    ),
    Status.CANCELLED: (Reason.CANCELLED,),
}
MAX_WARNINGS = 10


def status_of(reason: Reason, *, usable: bool = False, captions: bool = False) -> Status:
    """The status a reason code stands for, in its context."""
    if reason == Reason.RESPONSE_TOO_LARGE:
        return Status.PARTIAL if usable else Status.UNAVAILABLE
    if reason == Reason.LANGUAGE_MISMATCH:
        return Status.EMPTY if captions else Status.PARTIAL
    for status, reasons in REASONS.items():
        if reason in reasons:
            return status
    raise ValueError(f"unknown reason code {reason!r}")


@dataclass(frozen=True, slots=True)
class Condition:
    status: Status
    reason: Reason

    @property
    def rank(self) -> tuple[int, int]:
        return STATUS_ORDER.index(self.status), REASONS[self.status].index(self.reason)


def retry_after(status: Status, seconds: int | None) -> int | None:
    """A result's `retry_after_seconds`: the origin's (or the default) when rate limited."""
    return (seconds or DEFAULT_RETRY_AFTER) if status == Status.RATE_LIMITED else None


def decide(conditions: list[Condition]) -> tuple[Status, Reason | None, list[Reason]]:
    """(status, reason, warnings) for the conditions met; `ready` when there are none."""
    if not conditions:
        return Status.READY, None, []
    winner = min(conditions, key=lambda c: c.rank)
    warnings: list[Reason] = []
    for condition in sorted(conditions, key=lambda c: c.rank):
        if condition.reason != winner.reason and condition.reason not in warnings:
            warnings.append(condition.reason)
    return winner.status, winner.reason, warnings[:MAX_WARNINGS]
