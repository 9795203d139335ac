"""Reading a request body whole in ASGI middleware, bounded, and handing it on.

The OAuth doors (`registration.py`, `client_secrets.py`) must read a body before the SDK
does: they count it as it streams, stop past their limit, and give the app the body they
read (possibly rewritten) as if it had just arrived.
"""

from __future__ import annotations

from starlette.types import Message, Receive


async def read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole body, or None as soon as it passes `limit` bytes."""
    body = b""
    more = True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
        if len(body) > limit:
            return None
    return body


def replaying(body: bytes, receive: Receive) -> Receive:
    """A `receive` that yields `body` once, then whatever the client sends next."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay
