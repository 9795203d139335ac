"""Failures that produce no receipt. Each surface maps `code` to its own form.

HTTP: problem+json with a distinct `type` per code; MCP: an `isError` result whose text
names the field, the problem and the fix.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

HTTP_STATUS = {
    "invalid_input": 400,
    "unauthenticated": 401,
    "forbidden": 403,
    "not_found": 404,
    "method_not_allowed": 405,
    "conflict": 422,
    "too_large": 413,
    "busy": 429,
    "internal": 500,
    "unavailable": 503,
}
TITLES = {
    "invalid_input": "Invalid input",
    "unauthenticated": "Authentication required",
    "forbidden": "Forbidden",
    "not_found": "Not found",
    "method_not_allowed": "Method not allowed",
    "conflict": "mutation_id reused with other arguments",
    "too_large": "Request body too large",
    "busy": "Too many queued calls",
    "internal": "Internal error",
    "unavailable": "Service unavailable",
}
PROBLEM_BASE = "https://sosoapi.dev/problems/"


@dataclass
class ServiceError(Exception):
    """A call that cannot produce a receipt."""

    code: str
    message: str
    field: str | None = None
    errors: list[dict[str, str]] = dataclasses.field(default_factory=list)
    retry_after_seconds: int | None = None
    incident_id: str | None = None

    def __str__(self) -> str:
        return self.message

    @property
    def problem_type(self) -> str:
        return PROBLEM_BASE + self.code.replace("_", "-")

    @property
    def http_status(self) -> int:
        return HTTP_STATUS[self.code]


def invalid_input(message: str, field: str | None = None) -> ServiceError:
    return ServiceError("invalid_input", message, field)


def unauthenticated(message: str) -> ServiceError:
    return ServiceError("unauthenticated", message)


def forbidden(message: str) -> ServiceError:
    return ServiceError("forbidden", message)


def not_found(message: str) -> ServiceError:
    return ServiceError("not_found", message)


def conflict(message: str, field: str | None = None) -> ServiceError:
    return ServiceError("conflict", message, field)
