"""JSON answers on /mcp, except an SSE stream for a call that asks for progress.

/mcp answers each POST with one JSON body, which cannot carry the notifications sent
while a request runs; the SDK drops them. A `tools/call` whose `_meta` holds a
`progressToken`, from a client that accepts `text/event-stream`, is answered as an SSE
stream instead, so its `notifications/progress` reach the client before the result.

The SDK fixes the choice per session manager (a bool it reads on every request, and
copies into each session's transport). `PerRequestJson` stands in for that bool and
answers per request from a context variable `ProgressStreams` sets; this module is the
one place that replaces it. The SDK's router, which runs outside any request, reads it
to decide whether a request's notification may be kept: kept while a streamed call is in
flight. Only a streamed call sends any (the server sends progress only on a request with
a back-channel, `server._progress_sender`), so a JSON answer never receives one.
"""

from __future__ import annotations

import contextvars
import json
from typing import Any

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.types import ASGIApp, Message, Receive, Scope, Send

_stream_this: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "sosoapi_mcp_stream_this", default=False
)


class PerRequestJson:
    """Truthy (answer JSON) unless the request being served asked for progress, or, read
    outside a request (the SDK's router), while such a call is in flight."""

    def __init__(self) -> None:
        self.streaming = 0

    def __bool__(self) -> bool:
        return not (_stream_this.get() or self.streaming)


def _asks_for_progress(body: bytes) -> bool:
    """A single `tools/call` naming a progress token; anything else (a batch, a body too
    deeply nested to parse) is left to the SDK, which answers it as it always has."""
    if b'"progressToken"' not in body:
        return False
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return False
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return False
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and meta.get("progressToken") is not None


def _accepts_sse(scope: Scope) -> bool:
    for key, value in scope.get("headers", ()):
        if key == b"accept" and b"text/event-stream" in value:
            return True
    return False


class ProgressStreams:
    """ASGI wrapper of the SDK's app: reads a POST's body once, replays it, and marks a
    progress-asking call so the SDK answers it as a stream."""

    def __init__(self, app: ASGIApp, flag: PerRequestJson, path: str = "/mcp") -> None:
        self.app = app
        self.flag = flag
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST" or not _accepts_sse(scope):
            await self.app(scope, receive, send)
            return
        if scope.get("path") != self.path:
            await self.app(scope, receive, send)
            return
        messages: list[Message] = []
        body = b""
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if not message.get("more_body"):
                break

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        if not _asks_for_progress(body):
            await self.app(scope, replay, send)
            return
        token = _stream_this.set(True)
        self.flag.streaming += 1
        try:
            await self.app(scope, replay, send)
        finally:
            self.flag.streaming -= 1
            _stream_this.reset(token)


def streaming(app: Any, manager: StreamableHTTPSessionManager) -> ASGIApp:
    """The SDK's app answering JSON, with SSE for calls that ask for progress."""
    flag = PerRequestJson()
    manager.json_response = flag  # type: ignore[assignment]
    return ProgressStreams(app, flag)
