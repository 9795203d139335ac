"""RFC 9457 problem+json responses, one distinct `type` per cause."""

from __future__ import annotations

from starlette.responses import JSONResponse

from sosoapi.auth.challenge import bearer_challenge
from sosoapi.contract.errors import ErrorCode, ServiceError

PROBLEM_JSON = "application/problem+json"


def problem_response(
    error: ServiceError, instance: str | None = None, resource_metadata: str | None = None
) -> JSONResponse:
    body: dict[str, object] = {
        "type": error.problem_type,
        "title": error.title,
        "status": error.http_status,
        "detail": error.message,
    }
    if instance:
        body["instance"] = instance
    if error.field:
        body["field"] = error.field
    if error.errors:
        body["errors"] = error.errors
    if error.incident_id:
        body["incident_id"] = error.incident_id
    headers = {}
    if error.retry_after_seconds is not None:
        headers["Retry-After"] = str(error.retry_after_seconds)
    if error.code == ErrorCode.UNAUTHENTICATED:
        challenge = bearer_challenge(error.message)
        if resource_metadata:
            challenge += f', resource_metadata="{resource_metadata}"'
        headers["WWW-Authenticate"] = challenge
    return JSONResponse(
        body, status_code=error.http_status, media_type=PROBLEM_JSON, headers=headers
    )


PROBLEM_SCHEMA = {
    "type": "object",
    "properties": {
        "type": {"type": "string", "format": "uri"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "instance": {"type": "string"},
        "field": {"type": "string"},
        "errors": {"type": "array", "items": {"type": "object"}},
        "incident_id": {"type": "string"},
    },
    "required": ["type", "title", "status", "detail"],
}
