"""Failures that produce no receipt. Each surface maps `code` to its own form.

HTTP: problem+json with a distinct `type` per code; MCP: an `isError` result whose text
names the field, the problem and the fix.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum


class SosoapiError(Exception):
    """The base of every exception the service raises on purpose (refusals, faults and
    conditions it names), so a caller can tell ours from a bug's."""


class ErrorCode(StrEnum):
    """Why a call produced no receipt; each surface words it in its own form (`FORMS`)."""

    INVALID_INPUT = "invalid_input"
    UNAUTHENTICATED = "unauthenticated"
    FORBIDDEN = "forbidden"
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    CONFLICT = "conflict"
    TOO_LARGE = "too_large"
    BUSY = "busy"
    INTERNAL = "internal"
    UNAVAILABLE = "unavailable"

    @property
    def http_status(self) -> int:
        return FORMS[self][0]

    @property
    def problem_title(self) -> str:
        return FORMS[self][1]


# The one table of each code's HTTP status and title (problem+json, the MCP error text).
FORMS: dict[ErrorCode, tuple[int, str]] = {
    ErrorCode.INVALID_INPUT: (400, "Invalid input"),
    ErrorCode.UNAUTHENTICATED: (401, "Authentication required"),
    ErrorCode.FORBIDDEN: (403, "Forbidden"),
    ErrorCode.NOT_FOUND: (404, "Not found"),
    ErrorCode.METHOD_NOT_ALLOWED: (405, "Method not allowed"),
    ErrorCode.CONFLICT: (422, "mutation_id reused with other arguments"),
    ErrorCode.TOO_LARGE: (413, "Request body too large"),
    ErrorCode.BUSY: (429, "Too many queued calls"),
    ErrorCode.INTERNAL: (500, "Internal error"),
    ErrorCode.UNAVAILABLE: (503, "Service unavailable"),
}
PROBLEM_BASE = "https://sosoapi.dev/problems/"


@dataclass
class ServiceError(SosoapiError):
    """A call that cannot produce a receipt."""

    code: ErrorCode
    message: str
    field: str | None = None
    errors: list[dict[str, str]] = dataclasses.field(default_factory=list)
    retry_after_seconds: int | None = None
    incident_id: str | None = None

    def __post_init__(self) -> None:
        self.code = ErrorCode(self.code)  # a known code, or a ValueError at the raise site

    def __str__(self) -> str:
        return self.message

    @property
    def problem_type(self) -> str:
        return PROBLEM_BASE + self.code.replace("_", "-")

    @property
    def http_status(self) -> int:
        return self.code.http_status

    @property
    def title(self) -> str:
        return self.code.problem_title


def invalid_input(message: str, field: str | None = None) -> ServiceError:
    return ServiceError(ErrorCode.INVALID_INPUT, message, field)


def unauthenticated(message: str) -> ServiceError:
    return ServiceError(ErrorCode.UNAUTHENTICATED, message)


def forbidden(message: str) -> ServiceError:
    return ServiceError(ErrorCode.FORBIDDEN, message)


def not_found(message: str) -> ServiceError:
    return ServiceError(ErrorCode.NOT_FOUND, message)


def conflict(message: str, field: str | None = None) -> ServiceError:
    return ServiceError(ErrorCode.CONFLICT, message, field)
