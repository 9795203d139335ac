"""Client secrets are stored hashed: present the SDK the hash of what the client sent.

The SDK's client authentication compares the presented secret with the stored one. We
keep only SHA-256 hashes (like every token), so on /token and /revoke this middleware
replaces the secret in the form body or the Basic header with its hash before the SDK
compares; the plain secret never reaches the store.
"""

from __future__ import annotations

import base64
import binascii
from urllib.parse import parse_qsl, quote, unquote, urlencode

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sosoapi.auth.tokens import hash_token

CLIENT_AUTH_PATHS = frozenset({"/token", "/revoke"})
MAX_FORM_BYTES = 64 * 1024


def hashed_form(body: bytes) -> bytes:
    pairs = parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
    return urlencode(
        [(k, hash_token(v) if k == "client_secret" and v else v) for k, v in pairs]
    ).encode()


def hashed_basic(header: str) -> str:
    try:
        decoded = base64.b64decode(header[6:], validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return header  # the SDK answers the malformed header itself
    client_id, sep, secret = decoded.partition(":")
    if not sep:
        return header
    hashed = f"{client_id}:{quote(hash_token(unquote(secret)), safe='')}"
    return "Basic " + base64.b64encode(hashed.encode()).decode()


class ClientSecretHasher:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] not in CLIENT_AUTH_PATHS:
            await self.app(scope, receive, send)
            return
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > MAX_FORM_BYTES:
                await _too_large(send)
                return
        if _content_type(scope).startswith("application/x-www-form-urlencoded"):
            body = hashed_form(body)
        headers = [
            (k, v) for k, v in scope["headers"] if k not in (b"content-length", b"authorization")
        ]
        headers.append((b"content-length", str(len(body)).encode()))
        for k, v in scope["headers"]:
            if k == b"authorization":
                value = v.decode("latin-1")
                if value.startswith("Basic "):
                    value = hashed_basic(value)
                headers.append((b"authorization", value.encode("latin-1")))
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app({**scope, "headers": headers}, replay, send)


def _content_type(scope: Scope) -> str:
    for key, value in scope["headers"]:
        if key == b"content-type":
            return str(value.decode("latin-1")).lower()
    return ""


async def _too_large(send: Send) -> None:
    await send({"type": "http.response.start", "status": 413, "headers": []})
    await send({"type": "http.response.body", "body": b""})
