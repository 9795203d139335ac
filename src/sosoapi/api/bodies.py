"""Request bodies: counted as they stream, capped, and pre-scanned before JSON parsing.

`BodyLimit` wraps the whole HTTP app (the API and /mcp alike). It never buffers: it
counts each chunk the app asks for, so a body is only read once the app has checked the
token and chooses to read it, and a body past the cap (declared or streamed without a
Content-Length) is cut off and answered 413 problem+json.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sosoapi.api.problems import problem_response
from sosoapi.contract.errors import ErrorCode, ServiceError, invalid_input
from sosoapi.contract.inputs import raw_depth_exceeded, too_deep
from sosoapi.contract.numbers import whole_number

log = logging.getLogger("sosoapi.api")
_DISCONNECT: Message = {"type": "http.disconnect"}


def too_large(max_bytes: int) -> ServiceError:
    return ServiceError(
        ErrorCode.TOO_LARGE,
        f"The request body is larger than {max_bytes} bytes (SOSOAPI_MAX_REQUEST_BYTES); "
        "no tool input needs more: send a smaller body.",
    )


def parse_json_body(raw: bytes) -> Any:
    """The JSON value of a request body; refuse deep nesting before the recursive parse."""
    if raw_depth_exceeded(raw):
        raise too_deep()
    try:
        return json.loads(raw or b"null")
    except (ValueError, RecursionError) as exc:
        detail = str(exc) if isinstance(exc, json.JSONDecodeError) else "unreadable value"
        raise invalid_input(
            f"The request body is not JSON ({detail}); send a JSON object."
        ) from None


class _Counted:
    """One request's body stream, cut off once it passes the cap."""

    def __init__(self, scope: Scope, receive: Receive, max_bytes: int) -> None:
        self._receive = receive
        self.max_bytes = max_bytes
        self.seen = 0
        self.over = False
        self._declared_over = _declared(scope) > max_bytes

    async def receive(self) -> Message:
        self.over = self.over or self._declared_over
        if self.over:  # the app sees a client that went away; we answer 413
            return _DISCONNECT
        message = await self._receive()
        if message["type"] == "http.request":
            self.seen += len(message.get("body", b""))
            if self.seen > self.max_bytes:
                self.over = True
                return _DISCONNECT
        return message


def _declared(scope: Scope) -> int:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            return whole_number(value) or 0
    return 0


class BodyLimit:
    """ASGI middleware: at most `max_bytes` of any request body is ever read."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body = _Counted(scope, receive, self.max_bytes)
        answered = False

        async def guarded(message: Message) -> None:
            nonlocal answered
            if body.over and not answered:
                return  # the app's answer to the cut-off body is replaced by the 413
            answered = answered or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, body.receive, guarded)
        except Exception:
            if not body.over or answered:
                raise
        if body.over and not answered:
            log.info("api refused code=too_large path=%s", scope.get("path", ""))
            await problem_response(too_large(self.max_bytes), scope.get("path"))(
                scope, receive, send
            )
