"""The bearer scheme on HTTP (RFC 6750): reading the token, and the 401 challenge."""

from __future__ import annotations

BEARER = "bearer "


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer ...` header, or None."""
    header = authorization or ""
    return header[len(BEARER) :].strip() or None if header.lower().startswith(BEARER) else None


def bearer_challenge(description: str) -> str:
    """The `WWW-Authenticate` value of a 401: what was wrong with the token, and the fix."""
    text = description.replace("\\", "").replace('"', "'")
    return f'Bearer realm="sosoapi", error="invalid_token", error_description="{text}"'
