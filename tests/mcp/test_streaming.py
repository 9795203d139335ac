"""/mcp's per-request answer form: JSON, except SSE for a tools/call that asks for progress."""

from __future__ import annotations

import json
from typing import Any

from starlette.types import Message, Receive, Scope, Send

from sosoapi.mcp.streaming import PerRequestJson, ProgressStreams

CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
WITH_TOKEN = {**CALL, "params": {"name": "t", "_meta": {"progressToken": 1}}}


async def answer_form(body: bytes, accept: bytes) -> tuple[bool, bytes]:
    """(answered as JSON, the body the app read) for one POST through the wrapper."""
    flag = PerRequestJson()
    seen: dict[str, Any] = {}

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen["json"] = bool(flag)
        seen["body"] = b""
        while True:
            message = await receive()
            seen["body"] += message["body"]
            if not message["more_body"]:
                break

    chunks: list[Message] = [
        {"type": "http.request", "body": body[:5], "more_body": True},
        {"type": "http.request", "body": body[5:], "more_body": False},
    ]

    async def receive() -> Message:
        return chunks.pop(0)

    async def send(message: Message) -> None:
        return None

    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": [(b"accept", accept)]}
    await ProgressStreams(app, flag)(scope, receive, send)
    assert bool(flag) and flag.streaming == 0  # outside the request: JSON again
    return seen["json"], seen["body"]


async def test_only_a_progress_asking_call_from_an_sse_client_streams() -> None:
    both = b"application/json, text/event-stream"
    streamed, body = await answer_form(json.dumps(WITH_TOKEN).encode(), both)
    assert streamed is False and json.loads(body) == WITH_TOKEN  # the body is replayed whole
    assert (await answer_form(json.dumps(CALL).encode(), both))[0] is True
    assert (await answer_form(json.dumps(WITH_TOKEN).encode(), b"application/json"))[0] is True
    deep = b'{"progressToken": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    assert (await answer_form(deep, both))[0] is True  # too deep to parse: left to the SDK
